"""Custom authentication extensions (OnTokenIssuanceStart), with MSAL for Python as the app and a real
HTTP endpoint as the developer's API: what the service sends it (the documented callout, a bearer token
for the API app that validates against FakeEntra's keys), where the claims it provides land (the client's
id token, the resource's access token, through the claims mapping), and a failing endpoint failing the
sign-in with AADSTS1100001 while the journal keeps the 1003xxx cause."""
import uuid

from fakeentra.extensions import Answer, provide_claims
from test_msal_confidential_client import confidential_app, decode_claims
from test_msal_public_client import ADELE, public_app, sign_in_with_auth_code

CONTOSO_ID = "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"
CALLER = "99045fe1-7639-4a75-9d4a-577b6ca3810f"


def configured(make_server, endpoint, client_id, api_id, extension_app_id, **extension):
    return make_server(config={
        "tenants": [{"id": CONTOSO_ID, "displayName": "Contoso", "domains": ["contoso.onmicrosoft.com", "contoso.com"],
                     "customAuthenticationExtensions": [{
                         "displayName": "Loyalty claims", "event": "tokenIssuanceStart", "targetUrl": endpoint.url,
                         "resourceId": endpoint.resource_id(extension_app_id), **extension}]}],
        "apps": [
            {"clientId": api_id, "displayName": "Orders API", "tenant": "contoso.onmicrosoft.com", "publicClient": False,
             "secrets": [{"value": "api-secret"}], "identifierUris": [f"api://{api_id}"], "exposedScopes": ["access_as_user"],
             "appRoles": ["Orders.Read.All"]},
            {"clientId": client_id, "displayName": "Orders app", "tenant": "contoso.onmicrosoft.com",
             "redirectUris": ["http://localhost:8400/callback"]},
        ],
        "consents": [{"clientId": client_id, "resource": f"api://{api_id}", "scopes": ["access_as_user"], "tenant": "contoso.onmicrosoft.com"}]})


def test_claims_from_the_endpoint_reach_the_id_token_and_the_access_token(make_server, fakeentra_extension_endpoint):
    client_id, api_id, extension_app = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    endpoint = fakeentra_extension_endpoint(lambda call: provide_claims(loyaltyTier="gold", regions=["emea", "apac"], iss="evil"))
    server = configured(make_server, endpoint, client_id, api_id, extension_app, applications=[client_id, api_id],
                        claimsMapping=[{"id": "loyaltyTier", "jwtClaimType": "loyalty_tier"}, {"id": "regions"}, {"id": "iss"}])
    endpoint.verify_with(server, audience=extension_app)

    result = sign_in_with_auth_code(server, public_app(server, client_id=client_id), [f"api://{api_id}/access_as_user"])
    assert "access_token" in result, result
    id_claims, access_claims = result["id_token_claims"], decode_claims(result["access_token"])
    for claims in (id_claims, access_claims):
        assert claims["loyalty_tier"] == "gold" and claims["regions"] == ["emea", "apac"]
        assert "loyaltyTier" not in claims and claims["iss"] != "evil", "mapped names only; restricted claims are never set"

    call = endpoint.calls[0]
    assert len(endpoint.calls) == 1, "one callout serves both tokens of one issuance"
    assert call.body["type"] == "microsoft.graph.authenticationEvent.tokenIssuanceStart"
    assert call.body["source"] == f"/tenants/{CONTOSO_ID}/applications/{client_id}"
    assert call.data["@odata.type"] == "microsoft.graph.onTokenIssuanceStartCalloutData" and call.data["tenantId"] == CONTOSO_ID
    assert call.context["protocol"] == "OAUTH2.0" and call.context["clientServicePrincipal"]["appId"] == client_id
    assert call.context["resourceServicePrincipal"]["appId"] == api_id
    assert call.context["user"]["userPrincipalName"] == ADELE and call.context["user"]["userType"] == "Member"
    # The bearer token: from the tenant, for the extension's API app, issued to the service's caller app,
    # signed with the keys the JWKS publishes (verify_with would have answered 401 otherwise).
    assert call.token_claims["aud"] == extension_app and call.token_claims["azp"] == CALLER
    assert call.token_claims["iss"].endswith(f"/{CONTOSO_ID}/v2.0") and call.token_claims["idtyp"] == "app"
    # Minted as any app-only token: the service authenticates with a certificate, each token has its own id.
    assert call.token_claims["azpacr"] == "2" and call.token_claims["ver"] == "2.0" and call.token_claims["uti"], call.token_claims

    # Refreshing issues tokens again: the endpoint is called again.
    app = public_app(server, client_id=client_id)
    refreshed = app.acquire_token_by_refresh_token(result["refresh_token"], [f"api://{api_id}/access_as_user"])
    assert decode_claims(refreshed["access_token"])["loyalty_tier"] == "gold" and len(endpoint.calls) == 2


def test_an_app_only_token_for_a_listed_api_gets_the_claims(make_server, fakeentra_extension_endpoint):
    client_id, api_id, extension_app = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    endpoint = fakeentra_extension_endpoint(lambda call: provide_claims(tier="service"))
    server = configured(make_server, endpoint, client_id, api_id, extension_app, applications=[api_id])
    result = confidential_app(server, api_id, "api-secret").acquire_token_for_client([f"api://{api_id}/.default"])
    assert "access_token" in result, result
    assert decode_claims(result["access_token"])["tier"] == "service"
    assert "user" not in endpoint.calls[0].context and endpoint.calls[0].context["clientServicePrincipal"]["appId"] == api_id


def test_a_failing_endpoint_fails_the_sign_in_and_the_journal_says_why(make_server, fakeentra_extension_endpoint):
    client_id, api_id, extension_app = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    endpoint = fakeentra_extension_endpoint(lambda call: Answer(503, b'{"error":"down"}'))
    server = configured(make_server, endpoint, client_id, api_id, extension_app, applications=[client_id], maximumRetries=1)
    result = sign_in_with_auth_code(server, public_app(server, client_id=client_id), ["User.Read"])
    assert result.get("error") == "invalid_request" and 1100001 in result["error_codes"], result
    assert "AADSTS1100001: Non-retryable error has occurred." in result["error_description"]
    assert len(endpoint.calls) == 2, "a 5xx is tried once more (maximumRetries 1)"
    redemption = next(e for e in server.journal()["entries"] if (e.get("receipt") or {}).get("extensionCalls"))
    call = redemption["receipt"]["extensionCalls"][0]
    assert call["attempts"] == 2 and call["httpStatus"] == 503 and call["failure"].startswith("1003002 CustomExtensionInvalidHTTPStatus")


def test_an_endpoint_slower_than_its_timeout_is_cut_off(make_server, fakeentra_extension_endpoint):
    client_id, api_id, extension_app = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    endpoint = fakeentra_extension_endpoint(lambda call: Answer(200, b'{}', delay=1.5))
    server = configured(make_server, endpoint, client_id, api_id, extension_app, applications=[client_id],
                        timeoutInMilliseconds=300, maximumRetries=0)
    result = sign_in_with_auth_code(server, public_app(server, client_id=client_id), ["User.Read"])
    assert 1100001 in result.get("error_codes", []), result
    entry = next(e for e in server.journal()["entries"] if (e.get("receipt") or {}).get("extensionCalls"))
    call = entry["receipt"]["extensionCalls"][0]
    assert call["failure"].startswith("1003005 CustomExtensionTimedOut") and call["attempts"] == 1
    assert 250 <= call["milliseconds"] < 1200, call
