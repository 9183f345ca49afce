/// What each claim of an Entra ID or Azure AD B2C token means, in a line: the explanations jwt.ms gives,
/// written for people reading their own tokens.
enum ClaimGlossary {
    static func explanation(_ claim: String) -> String? { entries[claim] }

    /// Claims whose value is a NumericDate (seconds since 1970).
    static let timeClaims: Set<String> = ["iat", "nbf", "exp", "auth_time", "pwd_exp", "xms_tcdt"]

    static let headerEntries: [String: String] = [
        "typ": "The token type: JWT.",
        "alg": "The signature algorithm. Entra ID signs with RS256 (RSA with SHA-256).",
        "kid": "Which of the keys published at the tenant's jwks_uri signed the token.",
        "x5t": "The SHA-1 thumbprint of the signing certificate; Entra ID writes the same value as kid.",
        "nonce": "Graph tokens only: a value Graph rehashes before validating, so other parties cannot validate them.",
    ]

    static let entries: [String: String] = [
        "aud": "Audience: who the token is for. An id token's is the client id; an access token's is the API (its app id or App ID URI).",
        "iss": "Issuer: the tenant's security token service, {host}/{tenant id}/v2.0 (v2 tokens) or {host}/{tenant id}/ (v1).",
        "iat": "Issued at: when the token was minted.",
        "nbf": "Not before: the token is not valid before this time.",
        "exp": "Expiration: the token must be rejected from this time on.",
        "aio": "An opaque value Entra ID uses internally; do not rely on it.",
        "acr": "Authentication context class. v1 Entra tokens: 1 (0 would mean below ISO/IEC 29115 level 1). B2C: the user flow that issued the token.",
        "amr": "Authentication methods used: pwd (password), mfa (multi-factor), …",
        "app_displayname": "The display name of the client application (v1 access tokens).",
        "appid": "The client id of the application that asked for the token (v1 access tokens).",
        "appidacr": "How the client authenticated (v1): 0 public client, 1 client secret, 2 certificate.",
        "azp": "Authorized party: the client id of the application that asked for the token (v2 access tokens).",
        "azpacr": "How the client authenticated (v2): 0 public client, 1 client secret, 2 certificate.",
        "auth_time": "When the user last entered credentials.",
        "c_hash": "Code hash: lets the client check the authorization code that came with this id token.",
        "at_hash": "Access token hash: lets the client check the access token that came with this id token.",
        "ctry": "The user's country or region.",
        "email": "The user's email address, when the profile has one (not verified: do not use it to identify a user).",
        "emails": "B2C: the account's email addresses.",
        "family_name": "The user's surname.",
        "given_name": "The user's first name.",
        "groups": "Object ids of the groups the user belongs to, when the app asks for the groups claim.",
        "idp": "The identity provider that authenticated the subject, when it is not the issuer (live.com for personal accounts).",
        "idtyp": "Whether the token is for a user (user) or for an app acting as itself (app).",
        "ipaddr": "The IP address the user authenticated from.",
        "login_hint": "An opaque, reliable hint for this account: pass it as login_hint to skip the account picker.",
        "name": "The user's display name, for display only.",
        "nonce": "The nonce the client sent in the authorization request; the client checks it to prevent token replay.",
        "oid": "Object id: the user's (or service principal's) immutable id in the tenant. Use it with tid to identify a user.",
        "preferred_username": "The user's sign-in name (UPN or email). For display: it can change and is not unique across tenants.",
        "rh": "An opaque value Entra ID uses to revalidate tokens; do not rely on it.",
        "roles": "App roles granted: to the app (app-only tokens) or assigned to the user.",
        "scp": "Delegated permissions (scopes) the user and admin consented to, separated by spaces.",
        "sid": "Session id: the user's sign-in session, used for front-channel sign-out.",
        "sub": "Subject: a pairwise id, unique for this user and this application; never the same for two apps.",
        "tid": "Tenant id: the directory the user signed in to (9188040d-… for personal Microsoft accounts).",
        "tfp": "B2C: the user flow or custom policy that issued the token (older claim name).",
        "unique_name": "A human-readable name for the subject (v1 tokens); not guaranteed unique or stable.",
        "upn": "User principal name (v1 tokens): the user's sign-in name.",
        "uti": "Token identifier: unique per token, used by Entra ID to revoke it.",
        "ver": "Token format version: 1.0 or 2.0.",
        "wids": "Directory role template ids assigned to the user.",
        "xms_cc": "Client capabilities the app declared (cp1: it can handle claims challenges).",
        "xms_st": "On-behalf-of: the subject (sub) of the token the middle tier was given, beside its own sub.",
        "onprem_sid": "The user's security identifier in on-premises Active Directory.",
        "hasgroups": "The user is in too many groups for the groups claim; ask Graph.",
        "newUser": "B2C: true when the account was created during this sign-in.",
    ]
}
