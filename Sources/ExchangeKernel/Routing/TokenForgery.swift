/// What is wrong with a token on purpose: the faults a token's recipient must catch (OpenID Connect Core
/// §3.1.3.7 for an id token; a web API's validation for an access token). A scenario forges the tokens of an
/// answer with them (`forgeTokens`); the mint forges one (`fakeentra token --forge`).
package enum TokenForgery: String, Sendable, CaseIterable, Equatable {
    /// Signed by the published key, then one bit of the signature flipped.
    case badSignature
    /// `alg: none` and no signature (the unsecured JWS of RFC 7515 §A.5).
    case algNone
    /// Signed by a key the JWKS does not publish, named by its own `kid`.
    case unknownKeyId
    /// `nbf` an hour ahead: not valid yet.
    case futureNotBefore
    /// `exp` an hour ago (`iat` and `nbf` an hour before that).
    case expired
    /// `aud` another API's.
    case wrongAudience
    /// `iss` a host that is not the authority's.
    case wrongIssuer
    /// `tid` (and the `iss` naming it) another tenant's.
    case wrongTenant

    /// The names, for messages that list what is accepted.
    package static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
