// Generated from Scenarios/*.json (a test asserts the copies are identical to the files).
extension ScenarioLibrary {
    /// The shipped library, compiled in so the binary needs no files: (file name, text).
    public static let shippedFiles: [(file: String, text: String)] = [
        ("access-token-expiry.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "access-token-expiry",
  "description": "Access tokens live 4 minutes instead of about an hour, and after the first Microsoft Graph call the service's clock jumps 10 minutes ahead, so the first access token is expired for every resource that checks it. Exercises the client's expiry handling: MSAL treats a token that expires within 5 minutes as expired and refreshes it silently. A correct MSAL client calls acquireTokenSilent before each Graph call, gets a fresh access token from the refresh token without UI, and never sends the expired one.",
  "rules": [
    {
      "note": "Short-lived access tokens on every token response.",
      "match": {
        "endpoint": "token"
      },
      "action": {
        "tokenLifetimes": {
          "accessToken": 240
        }
      },
      "times": "always"
    },
    {
      "note": "Time passes after the first Graph call: the first access token is now expired.",
      "match": {
        "endpoint": "graph",
        "nth": 1
      },
      "action": {
        "advanceClock": 600
      }
    }
  ]
}
"""#),
        ("adal-v1-resource-migration.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "adal-v1-resource-migration",
  "description": "An app moving from ADAL to MSAL calls a v1 web API whose App ID URI ends with a slash (https://api.contoso.com/): ADAL asked the v1 endpoint for resource=https://api.contoso.com/, MSAL must ask for the scope https://api.contoso.com//.default (double slash). Asking for https://api.contoso.com/.default fails as the real service fails, with invalid_resource AADSTS500011. Exercises the /.default migration path of the ADAL-to-MSAL guide. A correct MSAL client requests '<resource>/.default' with the resource written exactly as registered and gets a v1 access token whose aud is the App ID URI.",
  "directory": {
    "apps": [
      {
        "clientId": "f7e6d5c4-b3a2-4190-8f7e-6d5c4b3a2910",
        "displayName": "Contoso Legacy API",
        "publicClient": false,
        "identifierUris": [
          "https://api.contoso.com/"
        ],
        "exposedScopes": [
          "user_impersonation"
        ]
      },
      {
        "clientId": "e1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607",
        "displayName": "Contoso Field App",
        "redirectUris": [
          "x-msauth-contoso-field://com.contoso.field"
        ],
        "requiredResourceAccess": [
          {
            "resource": "https://api.contoso.com/",
            "scopes": [
              "user_impersonation"
            ]
          }
        ]
      }
    ],
    "consents": [
      {
        "clientId": "e1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607",
        "resource": "https://api.contoso.com/",
        "scopes": [
          "user_impersonation"
        ]
      }
    ]
  },
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "scopes": [
          "https://api.contoso.com/.default"
        ]
      },
      "action": {
        "oauthError": {
          "error": "invalid_resource",
          "code": "AADSTS500011",
          "message": "The resource principal named https://api.contoso.com was not found in the tenant named Contoso. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You might have sent your authentication request to the wrong tenant."
        }
      },
      "times": "always"
    }
  ]
}
"""#),
        ("admin-consent-required.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "admin-consent-required",
  "description": "The app asks for User.Read.All, a permission only an administrator can grant: the token endpoint answers invalid_grant, suberror consent_required, AADSTS90094 'The grant requires admin permission', and /authorize shows the 'Need admin approval' page instead of redirecting back. Exercises how an app surfaces admin consent. A correct MSAL client reports the error (interaction required for the silent call, a server error after the page is closed) and the app tells the user an administrator must consent; it does not loop on interactive sign-in.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "scopes": [
          "User.Read.All"
        ]
      },
      "action": {
        "oauthError": {
          "code": "AADSTS90094"
        }
      },
      "times": "always"
    },
    {
      "match": {
        "endpoint": "authorize",
        "scopes": [
          "User.Read.All"
        ]
      },
      "action": {
        "oauthError": {
          "code": "AADSTS90094",
          "asPage": true
        }
      },
      "times": "always"
    }
  ]
}
"""#),
        ("b2c-cancel.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "b2c-cancel",
  "description": "Azure AD B2C: the user clicks Cancel on the profile-editing page (B2C_1_edit_profile): B2C redirects back with error=access_denied and 'AADB2C90091: The user has cancelled entering self-asserted information.'. Exercises B2C cancellation. A correct MSAL client reports the error, the app treats it as a user cancel (no error dialog) and keeps the existing account.",
  "directory": {
    "tenants": [
      {
        "id": "b6c1a7d2-4e3f-4a5b-9c8d-7e6f5a4b3c21",
        "displayName": "Fabrikam B2C",
        "domains": [
          "fabrikamb2c.onmicrosoft.com"
        ],
        "kind": "b2c"
      }
    ],
    "users": [
      {
        "tenant": "fabrikamb2c.onmicrosoft.com",
        "userPrincipalName": "3f1c0a9e-b2c-local@fabrikamb2c.onmicrosoft.com",
        "displayName": "Patti Fernandez",
        "givenName": "Patti",
        "surname": "Fernandez",
        "mail": "patti@fabrikam.example",
        "otherMails": [
          "patti@fabrikam.example"
        ]
      }
    ]
  },
  "rules": [
    {
      "match": {
        "endpoint": "authorize",
        "policy": "B2C_1_edit_profile"
      },
      "action": {
        "oauthError": {
          "code": "AADB2C90091"
        }
      }
    }
  ]
}
"""#),
        ("b2c-edit-profile.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "b2c-edit-profile",
  "description": "Azure AD B2C: the app runs the profile-editing user flow (B2C_1_edit_profile) and the user changes their display name; the id_token of that flow carries the new name and tfp B2C_1_edit_profile. Exercises policy-specific accounts: MSAL keys B2C accounts by '<oid>-<policy>.<tenant id>'. A correct MSAL client ends with the updated name for the profile-editing authority and keeps the sign-in policy's account and tokens.",
  "directory": {
    "tenants": [
      {
        "id": "b6c1a7d2-4e3f-4a5b-9c8d-7e6f5a4b3c21",
        "displayName": "Fabrikam B2C",
        "domains": [
          "fabrikamb2c.onmicrosoft.com"
        ],
        "kind": "b2c"
      }
    ],
    "users": [
      {
        "tenant": "fabrikamb2c.onmicrosoft.com",
        "userPrincipalName": "3f1c0a9e-b2c-local@fabrikamb2c.onmicrosoft.com",
        "displayName": "Patti Fernandez",
        "givenName": "Patti",
        "surname": "Fernandez",
        "mail": "patti@fabrikam.example",
        "otherMails": [
          "patti@fabrikam.example"
        ]
      }
    ]
  },
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "policy": "B2C_1_edit_profile"
      },
      "action": {
        "tokenClaims": {
          "idToken": {
            "name": "Patti F.",
            "tfp": "B2C_1_edit_profile"
          }
        }
      },
      "times": "always"
    }
  ]
}
"""#),
        ("b2c-forgot-password.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "b2c-forgot-password",
  "description": "Azure AD B2C: the user clicks 'Forgot your password?' on the sign-up-or-sign-in page; B2C redirects back with error=access_denied and error_description 'AADB2C90118: The user has forgotten their password.'. The app must then start the password-reset user flow (B2C_1_reset), which succeeds. Exercises the legacy forgot-password hand-off of B2C user flows. A correct MSAL client reports the AADB2C90118 error, the app starts an interactive request with the password-reset authority, and ends signed in.",
  "directory": {
    "tenants": [
      {
        "id": "b6c1a7d2-4e3f-4a5b-9c8d-7e6f5a4b3c21",
        "displayName": "Fabrikam B2C",
        "domains": [
          "fabrikamb2c.onmicrosoft.com"
        ],
        "kind": "b2c"
      }
    ],
    "users": [
      {
        "tenant": "fabrikamb2c.onmicrosoft.com",
        "userPrincipalName": "3f1c0a9e-b2c-local@fabrikamb2c.onmicrosoft.com",
        "displayName": "Patti Fernandez",
        "givenName": "Patti",
        "surname": "Fernandez",
        "mail": "patti@fabrikam.example",
        "otherMails": [
          "patti@fabrikam.example"
        ]
      }
    ]
  },
  "rules": [
    {
      "match": {
        "endpoint": "authorize",
        "policy": "B2C_1_susi",
        "nth": 1
      },
      "action": {
        "oauthError": {
          "code": "AADB2C90118"
        }
      }
    },
    {
      "note": "The password-reset flow the app must start next.",
      "match": {
        "endpoint": "authorize",
        "policy": "B2C_1_reset"
      },
      "action": {
        "passThrough": true
      },
      "times": "always"
    }
  ]
}
"""#),
        ("bad-token.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "bad-token",
  "description": "The first silent refresh is refused with invalid_grant and suberror bad_token, as Entra ID answers a refresh token it will never accept again (here AADSTS50034: the account it was issued to no longer exists in the directory). Exercises MSAL's cache hygiene: on bad_token MSAL deletes that refresh token. A correct MSAL client reports MSALErrorInteractionRequired, removes the refresh token from its cache (a second silent call does not send it again) and recovers with an interactive sign-in.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "grantType": "refresh_token"
      },
      "action": {
        "oauthError": {
          "code": "AADSTS50034",
          "suberror": "bad_token"
        }
      }
    }
  ]
}
"""#),
        ("clock-skew.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "clock-skew",
  "description": "The service's clock runs 15 minutes ahead of the device: every token's iat and nbf lie in the device's future. Exercises clock-skew tolerance: MSAL computes expiry from expires_in, not from the token's claims. A correct MSAL client caches and uses the tokens normally; an app validating id_token times itself must allow for skew.",
  "clock": {
    "offsetSeconds": 900
  },
  "rules": []
}
"""#),
        ("conditional-access-blocked.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "conditional-access-blocked",
  "description": "A Conditional Access policy blocks the sign-in: the token endpoint answers invalid_grant, suberror message_only, AADSTS53003 'Access has been blocked by Conditional Access policies.', and /authorize shows the block page. Exercises an error the user cannot fix by signing in again. A correct MSAL client reports the error with its message to the user and does not loop between silent and interactive requests.",
  "rules": [
    {
      "match": {
        "endpoint": "token"
      },
      "action": {
        "oauthError": {
          "code": "AADSTS53003"
        }
      },
      "times": "always"
    },
    {
      "match": {
        "endpoint": "authorize"
      },
      "action": {
        "oauthError": {
          "code": "AADSTS53003",
          "asPage": true
        }
      },
      "times": "always"
    }
  ]
}
"""#),
        ("declined-scopes.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "declined-scopes",
  "description": "The user unticks Calendars.Read on the consent page: the token response is a success (HTTP 200) whose scope lists only what was granted, without Calendars.Read. Exercises MSAL's check of the granted scopes against the requested ones. A correct MSAL client returns MSALErrorServerDeclinedScopes with the granted and declined scopes in userInfo (the tokens are still cached) and the app carries on with reduced features or asks again.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "scopes": [
          "Calendars.Read"
        ]
      },
      "action": {
        "declineScopes": [
          "Calendars.Read"
        ]
      }
    }
  ]
}
"""#),
        ("family-refresh-token.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "family-refresh-token",
  "description": "Two apps of the Microsoft family of client ids (foci 1) share a family refresh token; when the second app first uses the family token, the service refuses it with invalid_grant, suberror client_mismatch (the app is not in the family server-side). Exercises FOCI: MSAL then drops the app's family membership and falls back to the app's own refresh token or to interactive sign-in. A correct MSAL client ends with tokens for both apps after at most one interactive sign-in of the second app.",
  "directory": {
    "apps": [
      {
        "clientId": "9c2f4f0e-6a1d-4f7b-8e21-3b5d7c9a1e40",
        "displayName": "Contoso Mail",
        "familyId": "1",
        "redirectUris": [
          "msauth.com.contoso.mail://auth"
        ],
        "requiredResourceAccess": [
          {
            "resource": "https://graph.microsoft.com",
            "scopes": [
              "User.Read",
              "Mail.Read"
            ]
          }
        ]
      },
      {
        "clientId": "d4b7e2a9-3c6f-4e8d-9a1b-5f2c8e7d6b30",
        "displayName": "Contoso Calendar",
        "familyId": "1",
        "redirectUris": [
          "msauth.com.contoso.calendar://auth"
        ],
        "requiredResourceAccess": [
          {
            "resource": "https://graph.microsoft.com",
            "scopes": [
              "User.Read",
              "Calendars.Read"
            ]
          }
        ]
      }
    ]
  },
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "grantType": "refresh_token",
        "clientId": "d4b7e2a9-3c6f-4e8d-9a1b-5f2c8e7d6b30",
        "nth": 1
      },
      "action": {
        "oauthError": {
          "code": "AADSTS70000",
          "suberror": "client_mismatch",
          "message": "Provided grant is invalid or malformed. The refresh token was issued to a different client."
        }
      }
    }
  ]
}
"""#),
        ("grant-revoked-password-change.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "grant-revoked-password-change",
  "description": "The first silent refresh fails as after the user changed or reset their password (or an admin revoked their sessions): HTTP 400, invalid_grant, AADSTS50173 'The provided grant has expired due to it being revoked'. Exercises the client's handling of revoked refresh tokens; POST /_fakeentra/users/{upn}/revoke produces the same answer from the platform itself. A correct MSAL client reports MSALErrorInteractionRequired and signs the user in again interactively.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "grantType": "refresh_token"
      },
      "action": {
        "oauthError": {
          "code": "AADSTS50173"
        }
      }
    }
  ]
}
"""#),
        ("graph-cae-claims-challenge.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "graph-cae-claims-challenge",
  "description": "Continuous access evaluation: the first Microsoft Graph call is answered 401 with WWW-Authenticate error=\"insufficient_claims\" and a base64 claims challenge (access_token nbf), as after a critical event such as a revoked session. Exercises CAE for clients that declared the cp1 capability. A correct MSAL client decodes the claims, calls acquireTokenSilent (or interactive) with them, the token request carries the claims parameter, and the Graph call is retried once with the new token.",
  "rules": [
    {
      "match": {
        "endpoint": "graph",
        "nth": 1
      },
      "action": {
        "claimsChallenge": {}
      }
    },
    {
      "note": "The re-authentication the challenge asks for: a token request that passes the challenge's claims (nbf) back.",
      "match": {
        "endpoint": "token",
        "parameters": {
          "claims": {
            "regex": "\"nbf\""
          }
        }
      },
      "action": {
        "passThrough": true
      },
      "times": "always"
    }
  ]
}
"""#),
        ("graph-missing-scope-403.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "graph-missing-scope-403",
  "description": "The app reads the calendar with a token that lacks Calendars.Read: Microsoft Graph answers 403 ErrorAccessDenied 'Access is denied. Check credentials and try again.'. Exercises incremental consent driven by an API error. A correct client asks for Calendars.Read (interactively, the user consents), and the retried call, made with a token whose scp includes Calendars.Read, is no longer refused.",
  "rules": [
    {
      "match": {
        "endpoint": "graph",
        "graphResource": [
          "events",
          "event",
          "calendarView",
          "calendar",
          "calendars"
        ],
        "lacksScopes": [
          "Calendars.Read"
        ]
      },
      "action": {
        "graphError": {
          "status": 403,
          "code": "ErrorAccessDenied",
          "message": "Access is denied. Check credentials and try again."
        }
      },
      "times": "always"
    }
  ]
}
"""#),
        ("graph-throttling.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "graph-throttling",
  "description": "Microsoft Graph throttles the app: the first two Graph calls get HTTP 429 TooManyRequests with Retry-After: 2, later ones succeed. Exercises Graph throttling handling (the Graph SDKs' retry handler). A correct client waits Retry-After seconds before retrying and ends with the data; it never retries immediately.",
  "rules": [
    {
      "match": {
        "endpoint": "graph"
      },
      "action": {
        "serviceError": {
          "status": 429,
          "retryAfter": 2
        }
      },
      "times": 2
    }
  ]
}
"""#),
        ("happy-path.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "happy-path",
  "description": "The service behaves as Microsoft Entra ID does when nothing goes wrong: discovery, /authorize with PKCE, the code redeemed for access, refresh and id tokens (client_info included), silent refreshes answered at once. Exercises a client's ordinary sign-in and silent token path. A correct MSAL client signs the user in once, then gets every later token silently without showing UI.",
  "rules": []
}
"""#),
        ("incremental-consent-required.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "incremental-consent-required",
  "description": "The user consented to User.Read at sign-in; when the app later asks silently for Calendars.Read, Entra ID answers invalid_grant with suberror consent_required, AADSTS65001, and the next /authorize for that scope shows the consent page. Exercises incremental (dynamic) consent. A correct MSAL client reports MSALErrorInteractionRequired for the silent call, starts an interactive request for Calendars.Read, the user consents, and the token's scope then includes Calendars.Read.",
  "rules": [
    {
      "note": "Silent request for the new scope.",
      "match": {
        "endpoint": "token",
        "scopes": [
          "Calendars.Read"
        ]
      },
      "action": {
        "oauthError": {
          "code": "AADSTS65001"
        }
      }
    },
    {
      "note": "The interactive request shows the consent page for it.",
      "match": {
        "endpoint": "authorize",
        "scopes": [
          "Calendars.Read"
        ]
      },
      "action": {
        "requireConsent": [
          "Calendars.Read"
        ]
      }
    }
  ]
}
"""#),
        ("mfa-required.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "mfa-required",
  "description": "Conditional Access starts demanding multi-factor authentication: the first silent refresh fails with invalid_grant, suberror basic_action, AADSTS50076, and every interactive sign-in (the step-up included) shows the verification-code page. Exercises step-up authentication. A correct MSAL client reports MSALErrorInteractionRequired, runs an interactive request, the user completes MFA (any 6-digit code), and the new tokens carry amr mfa.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "grantType": "refresh_token"
      },
      "action": {
        "oauthError": {
          "code": "AADSTS50076"
        }
      }
    },
    {
      "note": "While the scenario is active every interactive sign-in asks for the second factor.",
      "match": {
        "endpoint": "authorize"
      },
      "action": {
        "requireMFA": true
      },
      "times": "always"
    }
  ]
}
"""#),
        ("network-drop-then-success.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "network-drop-then-success",
  "description": "The connection is closed without an answer on the first token request, as a client sees a network failure; the next request succeeds. Exercises transport error handling. A correct MSAL client retries once (iOS/macOS) or reports a network error the app can retry, and never treats the failure as a sign-out.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "nth": 1
      },
      "action": {
        "dropConnection": true
      }
    }
  ]
}
"""#),
        ("password-expired.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "password-expired",
  "description": "The user's password has expired: the first silent refresh (or password grant) fails with invalid_grant, suberror user_password_expired, AADSTS50055 'The password is expired.'; and this scenario's user nestor.wilke@contoso.onmicrosoft.com (password Passw0rd!), whose password has expired, is asked for a new one on the sign-in page before being let in. Exercises the expired-password path. A correct MSAL client reports MSALErrorInteractionRequired for the silent call, the interactive sign-in shows the password change, and tokens are issued once the new password is set.",
  "directory": {
    "users": [
      {
        "userPrincipalName": "nestor.wilke@contoso.onmicrosoft.com",
        "displayName": "Nestor Wilke",
        "givenName": "Nestor",
        "surname": "Wilke",
        "passwordExpired": true
      }
    ]
  },
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "grantType": [
          "refresh_token",
          "password"
        ]
      },
      "action": {
        "oauthError": {
          "code": "AADSTS50055"
        }
      }
    }
  ]
}
"""#),
        ("prompt-none-no-session.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "prompt-none-no-session",
  "description": "A silent /authorize (prompt=none) arrives while the browser has no session: Entra ID redirects back with error=login_required, AADSTS50058 'A silent sign-in request was sent but no user is signed in.'. Exercises hidden-iframe or silent web sign-in. A correct client treats login_required as interaction required and starts an interactive sign-in.",
  "rules": [
    {
      "match": {
        "endpoint": "authorize",
        "parameters": {
          "prompt": "none"
        }
      },
      "action": {
        "oauthError": {
          "code": "AADSTS50058"
        }
      },
      "times": "always"
    }
  ]
}
"""#),
        ("protection-policy-required.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "protection-policy-required",
  "description": "Intune app protection is required for the resource: the token endpoint answers unauthorized_client with suberror protection_policy_required, AADSTS53005 'Application needs to enforce Intune protection policies.'. Exercises MAM-CA. A correct MSAL client returns MSALErrorServerProtectionPoliciesRequired (with the account in userInfo) so the app can enrol in Intune app protection, instead of showing sign-in UI.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "grantType": [
          "refresh_token",
          "authorization_code"
        ]
      },
      "action": {
        "oauthError": {
          "code": "AADSTS53005"
        }
      }
    }
  ]
}
"""#),
        ("refresh-token-expired.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "refresh-token-expired",
  "description": "The first silent refresh fails the way Entra ID answers a refresh token left unused for 90 days: HTTP 400, invalid_grant, AADSTS700082 'The refresh token has expired due to inactivity'. Exercises the client's handling of an expired refresh token. A correct MSAL client reports MSALErrorInteractionRequired from acquireTokenSilent, the app calls acquireToken interactively, and the new refresh token works for later silent calls.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "grantType": "refresh_token"
      },
      "action": {
        "oauthError": {
          "code": "AADSTS700082"
        }
      }
    }
  ]
}
"""#),
        ("signing-key-rollover.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "signing-key-rollover",
  "description": "The token signing key rolls over at the second token request: new tokens carry a new kid, the JWKS at /discovery/v2.0/keys lists only the new key, and tokens signed with the old key no longer validate. Exercises key rollover for apps and APIs that validate tokens. MSAL itself never checks signatures, so a correct client keeps working; a correct API refetches the JWKS when it meets an unknown kid.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "nth": 2
      },
      "action": {
        "rollSigningKey": true
      }
    }
  ]
}
"""#),
        ("slow-token-endpoint.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "slow-token-endpoint",
  "description": "Every token response takes 8 seconds, as on a slow mobile network or a busy service. Exercises timeouts and UI responsiveness. A correct MSAL client waits (its default timeout is longer), keeps the UI responsive, and ends with tokens; it does not send the same request twice in parallel.",
  "rules": [
    {
      "match": {
        "endpoint": "token"
      },
      "action": {
        "delay": 8000
      },
      "times": "always"
    }
  ]
}
"""#),
        ("throttled-token-endpoint.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "throttled-token-endpoint",
  "description": "The token endpoint is throttling the client: the first two token requests get HTTP 429 with Retry-After: 5 and a temporarily_unavailable JSON body; later ones succeed. Exercises client-side throttling: MSAL (x-ms-lib-capability: retry-after, h429) must not resend an identical request before Retry-After has passed. A correct MSAL client surfaces the throttling error with the retry-after time, waits, and succeeds on a later attempt.",
  "rules": [
    {
      "match": {
        "endpoint": "token"
      },
      "action": {
        "serviceError": {
          "status": 429,
          "retryAfter": 5
        }
      },
      "times": 2
    }
  ]
}
"""#),
        ("transient-503-then-success.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "transient-503-then-success",
  "description": "The token endpoint has a transient outage: the first token request gets HTTP 503 with Retry-After: 1, the next one succeeds. Exercises retry on server errors: MSAL for iOS/macOS retries a 5xx once after about half a second. A correct MSAL client ends with tokens without any error reaching the app.",
  "rules": [
    {
      "match": {
        "endpoint": "token",
        "nth": 1
      },
      "action": {
        "serviceError": {
          "status": 503,
          "retryAfter": 1
        }
      }
    }
  ]
}
"""#),
        ("user-cancels-sign-in.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "user-cancels-sign-in",
  "description": "The user backs out of the sign-in page: /authorize redirects back with error=access_denied and error_subcode=cancel. Exercises the cancel path of the web view. A correct MSAL client ends the interactive request with an access_denied error, caches nothing, and the app treats it as a cancellation (no error dialog) and lets the user start again.",
  "rules": [
    {
      "match": {
        "endpoint": "authorize"
      },
      "action": {
        "oauthError": {
          "error": "access_denied",
          "errorSubcode": "cancel",
          "message": "The user has cancelled the sign-in."
        }
      }
    }
  ]
}
"""#),
        ("user-declines-consent.json", #"""
{
  "$schema": "../docs/schemas/scenario.schema.json",
  "name": "user-declines-consent",
  "description": "The user clicks Cancel on the consent page: /authorize redirects back with error=access_denied and AADSTS65004 'User declined to consent to access the app.'. Exercises the interactive error path. A correct MSAL client ends the interactive request with an error carrying the OAuth error access_denied and the AADSTS65004 description, keeps any account and tokens it already had, and does not retry by itself.",
  "rules": [
    {
      "match": {
        "endpoint": "authorize"
      },
      "action": {
        "oauthError": {
          "code": "AADSTS65004"
        }
      }
    }
  ]
}
"""#),
    ]
}
