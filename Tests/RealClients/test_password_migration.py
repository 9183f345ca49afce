"""Just-in-time password migration (OnPasswordSubmit) with MSAL for Python signing a customer in through
External ID's pages, and a developer's endpoint that opens the encrypted password context with joserfc's
JWE implementation (Authlib's; not FakeEntra's, nor the plugin's): the legacy password is judged by the "legacy
system", migrated once, and the flag read back through Graph; Retry and Block as the pages show them."""
import json
import urllib.parse
import uuid

import msal
import pytest
import requests
from joserfc import jwe
from joserfc.jwk import RSAKey

from browser_driver import drive
from fakeentra.extensions import block_sign_in, encryption_certificate, migrate_password, retry_password
from test_native_auth_v2 import Client

SHOP = "contososhop.onmicrosoft.com"
SHOP_ID = "5d7f9b1c-3e5a-4c7e-9a1b-4f6a8c0e2d3b"
FLAG = "extension_0c5a7f3e2d1b4e8a9f6c5b4a3c2d1e0f_toBeMigrated"
REDIRECT = "http://localhost:8400/callback"
LEGACY = {"ada@shop.example": "Legacy-Secret-1", "blocked@shop.example": "Legacy-Secret-2"}
TEMPORARY = "Unguessable-Temp-9f8e7d"


@pytest.fixture(scope="module")
def encryption_key():
    """The certificate the extension app's keyCredentials hold (usage Encrypt), and its private key."""
    return encryption_certificate()


def legacy_system(private_key):
    """The developer's function: open the context, judge the password as the legacy store would."""
    key = RSAKey.import_key(private_key)

    def answer(call):
        # RSA-OAEP is outside joserfc's recommended set: it must be named, as the service uses it.
        opened = jwe.decrypt_compact(call.data["encryptedPasswordContext"], key, algorithms=["RSA-OAEP", "A128CBC-HS256", "DEF"])
        assert opened.headers()["alg"] == "RSA-OAEP" and opened.headers()["zip"] == "DEF", opened.headers()
        context = json.loads(opened.plaintext)
        call.opened = context
        if context["username"].startswith("blocked@"):
            return block_sign_in(context["nonce"], title="Sign-in blocked", message="Your old account is locked. Call us.")
        if LEGACY.get(context["username"]) == context["user-password"]:
            return migrate_password(context["nonce"])
        return retry_password(context["nonce"])
    return answer


@pytest.fixture
def shop(make_server, fakeentra_extension_endpoint, encryption_key):
    certificate, private_key = encryption_key
    endpoint = fakeentra_extension_endpoint(legacy_system(private_key))
    client_id = str(uuid.uuid4())
    server = make_server(config={
        "tenants": [{"id": SHOP_ID, "displayName": "Contoso Shop", "domains": [SHOP], "kind": "external",
                     "customAuthenticationExtensions": [{
                         "displayName": "JIT migration", "event": "passwordSubmit", "targetUrl": endpoint.url,
                         "resourceId": endpoint.resource_id(str(uuid.uuid4())), "applications": [client_id],
                         "migrationPropertyId": FLAG, "encryptionCertificate": certificate}]}],
        "apps": [{"clientId": client_id, "displayName": "Shop app", "tenant": SHOP, "redirectUris": [REDIRECT],
                  "nativeAuthenticationApisEnabled": "all"}],
        "users": [{"userPrincipalName": f"{uuid.uuid4()}@{SHOP}", "tenant": SHOP, "displayName": name.split("@")[0],
                   "mail": name, "password": TEMPORARY, "attributes": {FLAG: True}} for name in LEGACY]})
    endpoint.verify_with(server)
    return server, endpoint, client_id


def sign_in(server, client_id, username, password, visited=None):
    app = msal.PublicClientApplication(client_id, authority=f"{server.url}/{SHOP}", instance_discovery=False, verify=server.ca)
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=REDIRECT)
    session = requests.Session()
    session.verify = server.ca
    final, fields, _ = drive(flow["auth_uri"], username, password, REDIRECT, session=session, visited=visited)
    response = fields if fields is not None else dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query))
    return app.acquire_token_by_auth_code_flow(flow, response)


def test_a_legacy_password_is_migrated_once_and_graph_shows_the_flag_cleared(shop):
    server, endpoint, client_id = shop
    result = sign_in(server, client_id, "ada@shop.example", LEGACY["ada@shop.example"])
    assert "access_token" in result, result
    assert len(endpoint.calls) == 1
    call = endpoint.calls[0]
    assert call.body["type"] == "microsoft.graph.authenticationEvent.passwordSubmit"
    assert call.data["@odata.type"] == "microsoft.graph.onPasswordSubmitCalloutData"
    assert call.context["user"]["mail"] == "ada@shop.example" and call.context["clientServicePrincipal"]["appId"] == client_id
    assert call.opened["user-password"] == LEGACY["ada@shop.example"] and call.opened["username"] == "ada@shop.example"

    me = requests.get(f"{server.url}/v1.0/me", params={"$select": f"id,{FLAG}"}, verify=server.ca,
                      headers={"Authorization": f"Bearer {result['access_token']}"}, timeout=30).json()
    assert me[FLAG] is False, me

    again = sign_in(server, client_id, "ada@shop.example", LEGACY["ada@shop.example"])
    assert "access_token" in again and len(endpoint.calls) == 1, "the password is the account's now: no call"


def test_the_control_api_sets_the_flag_and_keeps_it_through_other_changes(shop):
    server, endpoint, client_id = shop
    upn = next(u["userPrincipalName"] for u in server.control("GET", "/_fakeentra/users").json()["users"] if u.get("mail") == "ada@shop.example")
    assert server.control("PATCH", f"/_fakeentra/users/{upn}", json={"attributes": {FLAG: False}}).status_code == 200
    assert server.control("PATCH", f"/_fakeentra/users/{upn}", json={"displayName": "Ada L."}).status_code == 200
    user = next(u for u in server.control("GET", "/_fakeentra/users").json()["users"] if u["userPrincipalName"] == upn)
    assert user["attributes"] == {FLAG: "false"} and user["displayName"] == "Ada L.", user
    failed = None
    try:
        sign_in(server, client_id, "ada@shop.example", LEGACY["ada@shop.example"])
    except Exception as error:
        failed = error
    assert failed is not None and not endpoint.calls, "an unflagged user's wrong password is only wrong"


def test_a_wrong_legacy_password_is_refused_and_a_locked_legacy_account_blocked(shop):
    server, endpoint, client_id = shop
    visited = []
    with pytest.raises(Exception):
        sign_in(server, client_id, "ada@shop.example", "not-the-legacy-one", visited=visited)
    assert any("invalid username or password" in page for page in visited), visited[-1:]
    assert len(endpoint.calls) == 1 and endpoint.calls[0].opened["user-password"] == "not-the-legacy-one"

    visited = []
    with pytest.raises(Exception):
        sign_in(server, client_id, "blocked@shop.example", LEGACY["blocked@shop.example"], visited=visited)
    assert any("Sign-in blocked" in page and "Your old account is locked. Call us." in page for page in visited), visited[-1:]
    assert len(endpoint.calls) == 2


def test_native_authentication_v2_migrates_and_blocks_as_a_locked_account(shop):
    """MSAL's V2 requests (replayed as test_native_auth_v2 replays them) with a legacy password."""
    server, endpoint, client_id = shop

    def verify(username, password):
        client = Client(server)
        client.authority = f"{server.url}/{SHOP}"
        answer = client.form("/oauth2/v2.0/authorize-challenge", client_id=client_id)
        token, sign_in = answer.json()["continuation_token"], answer.json()["sign_in"]
        _, start = client.step(sign_in, username=username, continuationToken=token)
        method = start["_embedded"]["methods"][0]
        _, challenge = client.step(method["_links"]["challenge"]["href"], continuationToken=start["continuationToken"])
        return client.step(challenge["_links"]["verify"]["href"], continuationToken=challenge["continuationToken"], password=password)

    status, verified = verify("ada@shop.example", LEGACY["ada@shop.example"])
    assert status == 200 and verified["state"] == "continue", verified
    assert endpoint.calls[-1].opened["username"] == "ada@shop.example"
    status, blocked = verify("blocked@shop.example", LEGACY["blocked@shop.example"])
    assert status == 400 and blocked["error_codes"] == [50053], blocked
    assert len(endpoint.calls) == 2
