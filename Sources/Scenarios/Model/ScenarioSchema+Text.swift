// Generated from docs/schemas/scenario.schema.json (a test asserts both are identical).
extension ScenarioSchema {
    /// The published JSON Schema of scenario files, verbatim.
    public static let text: String = #"""
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://fakeentra.local/schemas/scenario.schema.json",
  "title": "FakeEntra scenario",
  "description": "A scripted behaviour of the Microsoft identity platform, Azure AD B2C and Microsoft Graph as FakeEntra serves it. See docs/scenarios.md.",
  "type": "object",
  "additionalProperties": false,
  "required": ["name", "description", "rules"],
  "properties": {
    "$schema": { "type": "string" },
    "name": {
      "description": "Kebab-case, unique across the loaded library.",
      "type": "string",
      "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$",
      "maxLength": 80
    },
    "description": {
      "description": "What the real service does, which client behaviour it exercises, what a correct MSAL client ends with.",
      "type": "string",
      "minLength": 1
    },
    "clock": {
      "description": "Where the binding's virtual clock starts.",
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "offsetSeconds": { "description": "Seconds added to the server's clock (negative: the service runs behind), within ±100 years.", "type": "number", "minimum": -3155760000, "maximum": 3155760000 }
      }
    },
    "directory": { "$ref": "#/$defs/directory" },
    "rules": {
      "type": "array",
      "items": { "$ref": "#/$defs/rule" }
    }
  },
  "$defs": {
    "stringOrList": {
      "anyOf": [
        { "type": "string", "minLength": 1 },
        { "type": "array", "items": { "type": "string", "minLength": 1 }, "minItems": 1 }
      ]
    },
    "scopeList": { "type": "array", "items": { "type": "string", "minLength": 1 }, "minItems": 1 },
    "endpointKind": {
      "type": "string",
      "enum": ["discovery", "metadata", "keys", "authorize", "token", "devicecode", "devicelogin", "logout", "userrealm", "graph", "b2c", "other"]
    },
    "graphResourceName": {
      "type": "string",
      "enum": ["serviceRoot", "me", "user", "users", "photo", "photoValue", "photos", "events", "event", "calendarView", "calendar", "calendars", "mailboxSettings", "userInfo", "unknown"]
    },
    "pattern": {
      "description": "A glob (* within a path segment, ** across segments) or {\"regex\": \"...\"}.",
      "anyOf": [
        { "type": "string", "minLength": 1 },
        {
          "type": "object",
          "additionalProperties": false,
          "required": ["regex"],
          "properties": { "regex": { "type": "string", "minLength": 1 } }
        }
      ]
    },
    "valueCondition": {
      "description": "A string means equals; or one of equals / regex / present.",
      "anyOf": [
        { "type": "string" },
        {
          "type": "object",
          "additionalProperties": false,
          "minProperties": 1,
          "maxProperties": 1,
          "properties": {
            "equals": { "type": "string" },
            "regex": { "type": "string", "minLength": 1 },
            "present": { "type": "boolean" }
          }
        }
      ]
    },
    "windowBound": {
      "description": "Seconds since the binding started (virtual time), or an absolute date-time.",
      "anyOf": [
        { "type": "number", "minimum": 0 },
        { "type": "string", "format": "date-time" }
      ]
    },
    "match": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "endpoint": {
          "anyOf": [
            { "$ref": "#/$defs/endpointKind" },
            { "type": "array", "items": { "$ref": "#/$defs/endpointKind" }, "minItems": 1 }
          ]
        },
        "method": { "type": "string", "enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] },
        "path": { "$ref": "#/$defs/pattern" },
        "graphResource": {
          "description": "Microsoft Graph resources, by the Graph module's names (whatever the version or user in the path).",
          "anyOf": [
            { "$ref": "#/$defs/graphResourceName" },
            { "type": "array", "items": { "$ref": "#/$defs/graphResourceName" }, "minItems": 1 }
          ]
        },
        "grantType": { "$ref": "#/$defs/stringOrList" },
        "clientId": { "$ref": "#/$defs/stringOrList" },
        "user": { "description": "UPN, sign-in name or object id.", "type": "string", "minLength": 1 },
        "tenant": { "description": "Tenant segment, id or domain.", "type": "string", "minLength": 1 },
        "policy": { "description": "B2C user flow or custom policy.", "type": "string", "minLength": 1 },
        "scopes": { "$ref": "#/$defs/scopeList" },
        "lacksScopes": { "description": "Holds when the requested scopes (a Graph call: the token's scp) miss at least one of these.", "$ref": "#/$defs/scopeList" },
        "parameters": { "type": "object", "additionalProperties": { "$ref": "#/$defs/valueCondition" } },
        "headers": { "type": "object", "additionalProperties": { "$ref": "#/$defs/valueCondition" } },
        "nth": { "description": "Only the n-th matching request (1-based).", "type": "integer", "minimum": 1 },
        "after": { "description": "Every matching request after the n-th.", "type": "integer", "minimum": 0 },
        "window": {
          "type": "object",
          "additionalProperties": false,
          "minProperties": 1,
          "properties": {
            "from": { "$ref": "#/$defs/windowBound" },
            "until": { "$ref": "#/$defs/windowBound" }
          }
        }
      }
    },
    "oauthError": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "error": { "type": "string", "pattern": "^[a-z_]+$" },
        "code": { "type": "string", "pattern": "^(AADSTS|AADB2C)[0-9]+$" },
        "suberror": { "type": "string", "minLength": 1 },
        "errorSubcode": { "description": "error_subcode on /authorize redirects (cancel).", "type": "string", "minLength": 1 },
        "claims": { "anyOf": [{ "type": "string", "minLength": 1 }, { "type": "object" }] },
        "status": { "type": "integer", "minimum": 400, "maximum": 599 },
        "message": { "type": "string", "minLength": 1 },
        "asPage": { "type": "boolean" }
      }
    },
    "action": {
      "type": "object",
      "additionalProperties": false,
      "minProperties": 1,
      "properties": {
        "oauthError": { "$ref": "#/$defs/oauthError" },
        "serviceError": {
          "type": "object",
          "additionalProperties": false,
          "required": ["status"],
          "properties": {
            "status": { "type": "integer", "minimum": 429, "maximum": 599 },
            "retryAfter": { "type": "integer", "minimum": 0, "maximum": 86400 },
            "retryAfterFormat": { "enum": ["seconds", "httpDate"], "description": "Retry-After as delay-seconds (default) or as an HTTP-date retryAfter seconds ahead of the world's clock." },
            "message": { "type": "string", "minLength": 1 }
          }
        },
        "dropConnection": { "const": true },
        "graphError": {
          "type": "object",
          "additionalProperties": false,
          "required": ["status", "code"],
          "properties": {
            "status": { "type": "integer", "minimum": 400, "maximum": 599 },
            "code": { "type": "string", "minLength": 1 },
            "message": { "type": "string", "minLength": 1 },
            "retryAfter": { "type": "integer", "minimum": 0, "maximum": 86400 }
          }
        },
        "claimsChallenge": {
          "type": "object",
          "additionalProperties": false,
          "properties": { "claims": { "anyOf": [{ "type": "string", "minLength": 1 }, { "type": "object" }] } }
        },
        "response": {
          "type": "object",
          "additionalProperties": false,
          "required": ["status"],
          "properties": {
            "status": { "description": "A final status: 1xx are interim answers a response cannot end with.", "type": "integer", "minimum": 200, "maximum": 599 },
            "headers": { "description": "Names are HTTP tokens; framing (Content-Length, Transfer-Encoding, Connection…) is the server's.", "type": "object", "additionalProperties": { "type": "string" } },
            "body": { "type": ["string", "object", "array"] }
          }
        },
        "declineScopes": { "$ref": "#/$defs/scopeList" },
        "requireConsent": { "$ref": "#/$defs/scopeList" },
        "requireMFA": { "const": true },
        "redirectState": { "type": "string", "minLength": 1, "description": "The sign-in's success redirect carries this state instead of the client's (a forged or mixed-up response); on /authorize it holds for the pages of that sign-in." },
        "tokenLifetimes": {
          "type": "object",
          "additionalProperties": false,
          "minProperties": 1,
          "properties": {
            "accessToken": { "type": "integer", "minimum": 1 },
            "refreshToken": { "type": "integer", "minimum": 1 },
            "idToken": { "type": "integer", "minimum": 1 },
            "refreshIn": { "type": "integer", "minimum": 1, "description": "refresh_in of token responses: the client should refresh after this many seconds although the token is still valid." }
          }
        },
        "tokenClaims": {
          "type": "object",
          "additionalProperties": false,
          "minProperties": 1,
          "properties": {
            "accessToken": { "type": "object" },
            "idToken": { "type": "object" }
          }
        },
        "delay": { "description": "Milliseconds of real time before the answer.", "type": "integer", "minimum": 0, "maximum": 600000 },
        "passThrough": { "const": true },
        "rollSigningKey": { "const": true },
        "advanceClock": { "description": "Seconds of virtual time, within ±100 years (a jump that would take the clock's offset further is not made).", "type": "number", "minimum": -3155760000, "maximum": 3155760000 }
      }
    },
    "rule": {
      "type": "object",
      "additionalProperties": false,
      "required": ["action"],
      "properties": {
        "note": { "type": "string" },
        "match": { "$ref": "#/$defs/match" },
        "action": {
          "anyOf": [
            { "$ref": "#/$defs/action" },
            { "type": "array", "items": { "$ref": "#/$defs/action" }, "minItems": 1 }
          ]
        },
        "times": {
          "description": "How many times the rule may fire: a count, \"once\" (the default) or \"always\".",
          "anyOf": [
            { "type": "integer", "minimum": 1 },
            { "type": "string", "enum": ["once", "always"] }
          ]
        }
      }
    },
    "directory": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "tenants": { "type": "array", "items": { "$ref": "#/$defs/tenant" } },
        "users": { "type": "array", "items": { "$ref": "#/$defs/user" } },
        "apps": { "type": "array", "items": { "$ref": "#/$defs/app" } },
        "consents": { "type": "array", "items": { "$ref": "#/$defs/consent" } }
      }
    },
    "tenant": {
      "type": "object",
      "additionalProperties": false,
      "required": ["id", "domains"],
      "properties": {
        "id": { "type": "string", "format": "uuid" },
        "displayName": { "type": "string" },
        "domains": { "type": "array", "items": { "type": "string", "minLength": 1 }, "minItems": 1 },
        "kind": { "type": "string", "enum": ["organization", "consumers", "b2c"] }
      }
    },
    "user": {
      "type": "object",
      "additionalProperties": false,
      "required": ["userPrincipalName"],
      "properties": {
        "id": { "type": "string", "format": "uuid" },
        "tenant": { "description": "Tenant id or domain; default: the directory's first tenant.", "type": "string" },
        "userPrincipalName": { "type": "string", "minLength": 3 },
        "displayName": { "type": "string" },
        "givenName": { "type": "string" },
        "surname": { "type": "string" },
        "mail": { "type": "string" },
        "jobTitle": { "type": "string" },
        "officeLocation": { "type": "string" },
        "mobilePhone": { "type": "string" },
        "businessPhones": { "type": "array", "items": { "type": "string" } },
        "preferredLanguage": { "type": "string" },
        "password": { "type": "string", "minLength": 1 },
        "mfaRegistered": { "type": "boolean" },
        "mfaRequired": { "type": "boolean" },
        "accountEnabled": { "type": "boolean" },
        "locked": { "type": "boolean" },
        "passwordExpired": { "type": "boolean" },
        "otherMails": { "type": "array", "items": { "type": "string" } }
      }
    },
    "app": {
      "type": "object",
      "additionalProperties": false,
      "required": ["clientId"],
      "properties": {
        "clientId": { "type": "string", "minLength": 1 },
        "displayName": { "type": "string" },
        "tenant": { "type": "string" },
        "publicClient": { "type": "boolean" },
        "secrets": { "type": "array", "items": { "type": "string", "minLength": 1 } },
        "redirectUris": { "type": "array", "items": { "type": "string", "minLength": 1 } },
        "requiredResourceAccess": {
          "type": "array",
          "items": {
            "type": "object",
            "additionalProperties": false,
            "required": ["resource"],
            "properties": {
              "resource": { "type": "string", "minLength": 1 },
              "scopes": { "type": "array", "items": { "type": "string" } },
              "roles": { "type": "array", "items": { "type": "string" } }
            }
          }
        },
        "identifierUris": { "type": "array", "items": { "type": "string", "minLength": 1 } },
        "exposedScopes": { "type": "array", "items": { "type": "string", "minLength": 1 } },
        "appRoles": { "type": "array", "items": { "type": "string", "minLength": 1 } },
        "accessTokenAcceptedVersion": { "type": "integer", "enum": [1, 2] },
        "familyId": { "type": "string", "minLength": 1 }
      }
    },
    "consent": {
      "type": "object",
      "additionalProperties": false,
      "required": ["clientId", "scopes"],
      "properties": {
        "clientId": { "type": "string", "minLength": 1 },
        "resource": { "description": "Resource app id or identifier URI; default Microsoft Graph.", "type": "string", "minLength": 1 },
        "user": { "description": "UPN or object id; omitted: admin consent for the whole tenant.", "type": "string", "minLength": 1 },
        "tenant": { "type": "string" },
        "scopes": { "type": "array", "items": { "type": "string", "minLength": 1 } }
      }
    }
  }
}

"""#
}
