import LocatedJSON

/// The JSON Schema of `--config` files. The very text below is published at
/// docs/schemas/config.schema.json (a test keeps the two identical), so editors and the loader agree.
/// The `graph` and `b2c` sections belong to their modules: extend their subschemas here.
public enum ConfigurationSchema {
    public static let text = #"""
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://fakeentra.dev/schemas/config.schema.json",
  "title": "FakeEntra configuration",
  "description": "The --config FILE of fakeentra: tenants, users, app registrations, consents and options. Unless includeDefaults is false, the embedded default directory (Contoso, the consumers tenant and their demo users) is merged in; an entry with the id of a default one replaces it.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "$schema": { "type": "string", "description": "Where editors find this schema." },
    "includeDefaults": { "type": "boolean", "default": true, "description": "Merge with the embedded default directory." },
    "options": { "$ref": "#/$defs/options" },
    "tenants": { "type": "array", "items": { "$ref": "#/$defs/tenant" } },
    "users": { "type": "array", "items": { "$ref": "#/$defs/user" } },
    "apps": { "type": "array", "items": { "$ref": "#/$defs/app" } },
    "consents": { "type": "array", "items": { "$ref": "#/$defs/consent" } },
    "graph": { "type": "object", "description": "Microsoft Graph data per user: photos, calendar events. Checked by the Graph module against graph.schema.json (fakeentra schema graph)." },
    "b2c": { "type": "object", "description": "Azure AD B2C tenant, user flows, local accounts, APIs and apps. Checked by the B2C module against b2c.schema.json (fakeentra schema b2c)." },
    "bindings": {
      "type": "array",
      "description": "Scenarios active from start-up (as --scenario and --bind): each for the whole server, one client id, one user, or a tenant alias the app's authority names.",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["scenario"],
        "properties": {
          "scenario": { "type": "string", "minLength": 1, "description": "A scenario name from the shipped library or --scenarios folders." },
          "clientId": { "type": "string", "minLength": 1 },
          "user": { "type": "string", "minLength": 1, "description": "UPN, sign-in name or object id." },
          "tenantAlias": { "type": "string", "minLength": 1, "pattern": "^[^/]+$", "description": "A made-up tenant segment; give tenant too." },
          "tenant": { "type": "string", "minLength": 1, "description": "The real tenant a tenantAlias stands for." }
        }
      }
    }
  },
  "$defs": {
    "guid": {
      "type": "string",
      "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    },
    "seconds": { "type": "integer", "minimum": 1, "maximum": 31536000 },
    "options": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "strict": { "type": "boolean", "description": "Accept only configured apps (AADSTS700016 for others)." },
        "autoLogin": { "type": "boolean", "description": "Sign in the login_hint user (or the only user) and consent without pages." },
        "accessTokenLifetime": { "$ref": "#/$defs/seconds" },
        "accessTokenExtension": { "type": "integer", "minimum": 0, "maximum": 31536000 },
        "idTokenLifetime": { "$ref": "#/$defs/seconds" },
        "refreshTokenInactivity": { "$ref": "#/$defs/seconds" },
        "authorizationCodeLifetime": { "$ref": "#/$defs/seconds" },
        "deviceCodeLifetime": { "$ref": "#/$defs/seconds" },
        "deviceCodePollingInterval": { "type": "integer", "minimum": 1, "maximum": 60 },
        "interactiveFlowLifetime": { "$ref": "#/$defs/seconds" }
      }
    },
    "tenant": {
      "type": "object",
      "additionalProperties": false,
      "required": ["id", "domains"],
      "properties": {
        "id": { "$ref": "#/$defs/guid" },
        "displayName": { "type": "string", "minLength": 1 },
        "domains": {
          "type": "array", "minItems": 1, "uniqueItems": true,
          "items": { "type": "string", "pattern": "^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$" },
          "description": "Verified domains; the first is the initial *.onmicrosoft.com domain."
        },
        "kind": { "enum": ["organization", "consumers", "b2c"], "default": "organization" }
      }
    },
    "user": {
      "type": "object",
      "additionalProperties": false,
      "required": ["userPrincipalName", "displayName"],
      "properties": {
        "id": { "$ref": "#/$defs/guid", "description": "Object id; derived from the UPN when absent." },
        "tenant": { "type": "string", "minLength": 1, "description": "Tenant id or domain; by default the tenant owning the UPN's domain." },
        "userPrincipalName": { "type": "string", "pattern": "^[^@\\s]+@[^@\\s]+$" },
        "displayName": { "type": "string", "minLength": 1 },
        "givenName": { "type": "string" },
        "surname": { "type": "string" },
        "mail": { "type": "string", "format": "email" },
        "otherMails": { "type": "array", "items": { "type": "string", "format": "email" } },
        "jobTitle": { "type": "string" },
        "officeLocation": { "type": "string" },
        "mobilePhone": { "type": "string" },
        "businessPhones": { "type": "array", "items": { "type": "string" } },
        "preferredLanguage": { "type": "string" },
        "password": { "type": "string", "minLength": 1, "description": "Defaults to the demo password Passw0rd!." },
        "mfaRegistered": { "type": "boolean" },
        "mfaRequired": { "type": "boolean", "description": "Conditional Access demands MFA: password and refresh grants get AADSTS50076." },
        "accountEnabled": { "type": "boolean" },
        "locked": { "type": "boolean" },
        "passwordExpired": { "type": "boolean" }
      }
    },
    "secret": {
      "oneOf": [
        { "type": "string", "minLength": 1 },
        {
          "type": "object",
          "additionalProperties": false,
          "required": ["value"],
          "properties": {
            "value": { "type": "string", "minLength": 1 },
            "expiresAt": { "type": "string", "format": "date-time" }
          }
        }
      ]
    },
    "requiredResourceAccess": {
      "type": "object",
      "additionalProperties": false,
      "required": ["resource"],
      "properties": {
        "resource": { "type": "string", "minLength": 1, "description": "App id or identifier URI (https://graph.microsoft.com, api://...)." },
        "scopes": { "type": "array", "items": { "type": "string", "minLength": 1 } },
        "roles": { "type": "array", "items": { "type": "string", "minLength": 1 } }
      }
    },
    "app": {
      "type": "object",
      "additionalProperties": false,
      "required": ["clientId"],
      "properties": {
        "clientId": { "type": "string", "minLength": 1 },
        "displayName": { "type": "string" },
        "tenant": { "type": "string", "minLength": 1, "description": "Home tenant id or domain; absent for a multi-tenant app." },
        "publicClient": { "type": "boolean", "description": "Defaults to true unless secrets or certificates are given." },
        "secrets": { "type": "array", "items": { "$ref": "#/$defs/secret" } },
        "certificates": {
          "type": "array",
          "items": { "type": "string", "minLength": 1 },
          "description": "PEM certificates, inline or as paths relative to this file."
        },
        "redirectUris": { "type": "array", "items": { "type": "string", "minLength": 1 } },
        "requiredResourceAccess": { "type": "array", "items": { "$ref": "#/$defs/requiredResourceAccess" } },
        "identifierUris": { "type": "array", "items": { "type": "string", "minLength": 1 } },
        "exposedScopes": { "type": "array", "items": { "type": "string", "pattern": "^[^\\s/]+$" } },
        "adminConsentScopes": {
          "type": "array", "items": { "type": "string", "pattern": "^[^\\s/]+$" },
          "description": "Exposed scopes only an administrator may consent to (AADSTS90094 for a user)."
        },
        "appRoles": { "type": "array", "items": { "type": "string", "pattern": "^[^\\s/]+$" } },
        "accessTokenAcceptedVersion": { "enum": [1, 2] },
        "familyId": { "type": "string", "minLength": 1 }
      }
    },
    "consent": {
      "type": "object",
      "additionalProperties": false,
      "required": ["clientId", "scopes"],
      "properties": {
        "clientId": { "type": "string", "minLength": 1 },
        "resource": { "type": "string", "minLength": 1, "default": "https://graph.microsoft.com" },
        "user": { "type": "string", "minLength": 1, "description": "UPN of the consenting user; absent means admin consent for the whole tenant." },
        "tenant": { "type": "string", "minLength": 1, "description": "For admin consent: tenant id or domain (defaults to the app's home tenant)." },
        "scopes": { "type": "array", "minItems": 1, "items": { "type": "string", "minLength": 1 } }
      }
    }
  }
}

"""#

    /// Compiled once; the literal is checked by tests, so compiling it cannot fail at run time.
    public static let schema: JSONSchema = {
        do {
            return try JSONSchema(json: Array(text.utf8), file: "config.schema.json")
        } catch {
            preconditionFailure("embedded configuration schema does not compile: \(error)")
        }
    }()
}
