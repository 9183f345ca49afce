extension GraphDataset {
    /// JSON Schema (draft 2020-12 keywords: type, properties, required, additionalProperties, items, enum,
    /// pattern, minimum, maximum, minProperties, maxProperties) of the config file's `graph` member.
    public static let jsonSchema = #"""
    {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "title": "Microsoft Graph content per user",
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "users": {
          "description": "Keyed by a user's UPN, sign-in name or object id (case-insensitive).",
          "type": "object",
          "additionalProperties": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "timeZone": {"type": "string", "description": "The mailbox's time zone (mailboxSettings.timeZone): UTC, a Windows name or an IANA id. Event times without a zone are read in it."},
              "photo": {
                "description": "Exactly one of path (relative to the config file), base64, generated.",
                "type": "object",
                "additionalProperties": false,
                "minProperties": 1,
                "maxProperties": 1,
                "properties": {
                  "path": {"type": "string", "minLength": 1},
                  "base64": {"type": "string", "minLength": 4},
                  "generated": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["background"],
                    "properties": {
                      "background": {"type": "string", "pattern": "^#[0-9A-Fa-f]{6}$"},
                      "size": {"type": "integer", "minimum": 8, "maximum": 648},
                      "initials": {"type": "string", "maxLength": 2}
                    }
                  }
                }
              },
              "events": {
                "type": "array",
                "items": {
                  "type": "object",
                  "additionalProperties": false,
                  "required": ["subject", "start"],
                  "properties": {
                    "id": {"type": "string", "minLength": 1},
                    "subject": {"type": "string"},
                    "body": {"type": "string"},
                    "bodyContentType": {"enum": ["text", "html"]},
                    "start": {"$ref": "#/$defs/eventTime"},
                    "end": {"$ref": "#/$defs/eventTime"},
                    "durationMinutes": {"type": "integer", "minimum": 0},
                    "isAllDay": {"type": "boolean"},
                    "timeZone": {"type": "string", "description": "UTC, a Windows name (Pacific Standard Time) or an IANA id."},
                    "location": {"type": "string"},
                    "organizer": {"$ref": "#/$defs/address"},
                    "attendees": {
                      "type": "array",
                      "items": {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["address"],
                        "properties": {
                          "name": {"type": "string"},
                          "address": {"type": "string"},
                          "type": {"enum": ["required", "optional", "resource"]},
                          "response": {"enum": ["none", "accepted", "tentativelyAccepted", "declined", "notResponded"]}
                        }
                      }
                    },
                    "showAs": {"enum": ["free", "tentative", "busy", "oof", "workingElsewhere", "unknown"]},
                    "importance": {"enum": ["low", "normal", "high"]},
                    "categories": {"type": "array", "items": {"type": "string"}},
                    "isOnlineMeeting": {"type": "boolean"}
                  }
                }
              }
            }
          }
        }
      },
      "$defs": {
        "eventTime": {
          "description": "ISO 8601 (2025-03-03T09:00:00Z, with an offset, or without = the event's timeZone; a date alone for all-day events) or relative to the current week: 'mon 09:00', 'next tue 14:30', 'last fri 10:00', 'today 15:00', 'tomorrow 09:00', 'yesterday 16:00', 'wed'.",
          "type": "string",
          "pattern": "^(\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?)?(Z|z|[+-]\\d{2}:?\\d{2})?|(([Nn]ext|[Ll]ast) )?[A-Za-z]{3,9}( \\d{1,2}:\\d{2})?)$"
        },
        "address": {
          "type": "object",
          "additionalProperties": false,
          "required": ["address"],
          "properties": {"name": {"type": "string"}, "address": {"type": "string"}}
        }
      }
    }
    """#
}
