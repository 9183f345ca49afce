"""Shipped scenarios about the transport, the clock, signing keys, family refresh tokens and the
ADAL-to-MSAL migration, driven by MSAL for Python, requests and joserfc. Each test binds its scenario to
its own client id or tenant alias on one shared server."""
import base64
import json
import time
import urllib.parse
import uuid

import msal
import pytest
import requests
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from browser_driver import drive
from real_servers import bind_scenario, binding_rules
from test_msal_public_client import ADELE, PASSWORD, REDIRECT, public_app, sign_in_with_auth_code

CONTOSO = "contoso.onmicrosoft.com"
GRAPH_DEFAULT = ["https://graph.microsoft.com/.default"]


@pytest.fixture
def server(shared_scenario_server):
    return shared_scenario_server


def daemon_app(server, client_id):
    # A confidential client with client credentials: FakeEntra accepts any secret of an unregistered app.
    return msal.ConfidentialClientApplication(client_id, client_credential="s", authority=f"{server.url}/{CONTOSO}",
                                              instance_discovery=False)


def claims_of(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_transient_503_then_success(server):
    client_id = str(uuid.uuid4())
    binding = bind_scenario(server, "transient-503-then-success", clientId=client_id)
    # MSAL for Python does not retry a 5xx itself: the app sees the outage…
    with pytest.raises(msal.exceptions.MsalServiceError, match="503"):
        daemon_app(server, client_id).acquire_token_for_client(GRAPH_DEFAULT)
    # …and its next attempt (a new app instance: MSAL would otherwise honour Retry-After itself) succeeds.
    second = daemon_app(server, client_id).acquire_token_for_client(GRAPH_DEFAULT)
    assert "access_token" in second, second
    assert binding_rules(server, binding)[0]["fired"] == 1


def test_transient_503_carries_retry_after(server):
    client_id = str(uuid.uuid4())
    bind_scenario(server, "transient-503-then-success", clientId=client_id)
    raw = requests.post(f"{server.url}/{CONTOSO}/oauth2/v2.0/token", timeout=30, data={
        "client_id": client_id, "client_secret": "s", "grant_type": "client_credentials", "scope": GRAPH_DEFAULT[0]})
    assert raw.status_code == 503 and raw.headers["Retry-After"] == "1", (raw.status_code, raw.headers)
    assert raw.json()["error"] == "temporarily_unavailable"


def test_network_drop_then_success(server):
    client_id = str(uuid.uuid4())
    binding = bind_scenario(server, "network-drop-then-success", clientId=client_id)
    app = daemon_app(server, client_id)
    with pytest.raises(requests.exceptions.ConnectionError):
        app.acquire_token_for_client(GRAPH_DEFAULT)
    # The failure is a transport error the app can retry, not an OAuth answer; the retry succeeds.
    assert "access_token" in app.acquire_token_for_client(GRAPH_DEFAULT)
    assert binding_rules(server, binding)[0]["fired"] == 1


def test_slow_token_endpoint_still_ends_with_tokens(server):
    client_id = str(uuid.uuid4())
    binding = bind_scenario(server, "slow-token-endpoint", clientId=client_id)
    result = daemon_app(server, client_id).acquire_token_for_client(GRAPH_DEFAULT)
    assert "access_token" in result, result
    # The delay directive fired for the one token request (timing itself is not asserted).
    assert binding_rules(server, binding)[0] == {"matched": 1, "fired": 1, "times": "always"}


def test_clock_skew_tokens_are_issued_in_the_devices_future(server):
    client_id = str(uuid.uuid4())
    binding = bind_scenario(server, "clock-skew", clientId=client_id)
    clock = server.control("GET", f"/_fakeentra/clock?binding={binding}").json()
    assert clock["offsetSeconds"] == pytest.approx(900, abs=1), clock
    app = public_app(server, client_id=client_id)
    result = sign_in_with_auth_code(server, app, ["User.Read"])
    issued = claims_of(result["access_token"])
    # 15 minutes ahead of this machine (generous bounds: the test does not depend on its own speed).
    assert 600 < issued["iat"] - time.time() < 1200, issued["iat"] - time.time()
    assert issued["nbf"] > time.time()
    assert 600 < result["id_token_claims"]["iat"] - time.time() < 1200
    # MSAL computes expiry from expires_in, so the token is cached and used as is.
    cached = app.acquire_token_silent(["User.Read"], account=app.get_accounts()[0])
    assert cached["access_token"] == result["access_token"]


def jwks(server, alias):
    meta = requests.get(f"{server.url}/{alias}/v2.0/.well-known/openid-configuration", timeout=30).json()
    return meta, KeySet.import_key_set(requests.get(meta["jwks_uri"], timeout=30).json())


def test_signing_key_rollover(server):
    alias = "rollover-" + uuid.uuid4().hex[:8]
    bind_scenario(server, "signing-key-rollover", tenantAlias=alias, tenant=CONTOSO)
    client_id = str(uuid.uuid4())
    app = public_app(server, tenant=alias, client_id=client_id)
    first = sign_in_with_auth_code(server, app, ["User.Read"])   # token request 1
    meta, keys_before = jwks(server, alias)
    assert meta["jwks_uri"].startswith(f"{server.url}/{alias}/")
    jwt.decode(first["id_token"], keys_before, algorithms=["RS256"])
    # Token request 2 rolls the key; MSAL keeps working (it never checks signatures).
    second = app.acquire_token_silent(["User.Read"], account=app.get_accounts()[0], force_refresh=True)
    assert second and "id_token" in second, second
    old_kid = jwt.decode(first["id_token"], keys_before, algorithms=["RS256"]).header["kid"]
    _, keys_after = jwks(server, alias)
    decoded = jwt.decode(second["id_token"], keys_after, algorithms=["RS256"])
    assert decoded.header["kid"] != old_kid
    assert [k.kid for k in keys_after] == [decoded.header["kid"]], "only the new key is published"
    with pytest.raises((JoseError, ValueError)):
        jwt.decode(first["id_token"], keys_after, algorithms=["RS256"])


MAIL, CALENDAR = "9c2f4f0e-6a1d-4f7b-8e21-3b5d7c9a1e40", "d4b7e2a9-3c6f-4e8d-9a1b-5f2c8e7d6b30"


def test_family_refresh_token_client_mismatch_then_one_interactive_sign_in(server):
    alias = "foci-" + uuid.uuid4().hex[:8]
    binding = bind_scenario(server, "family-refresh-token", tenantAlias=alias, tenant=CONTOSO)
    cache = msal.TokenCache()   # one device: both apps of the family share MSAL's cache
    mail = public_app(server, tenant=alias, client_id=MAIL, token_cache=cache)
    calendar = public_app(server, tenant=alias, client_id=CALENDAR, token_cache=cache)

    def sign_in(app, redirect):
        flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=redirect)
        final, _, _ = drive(flow["auth_uri"], ADELE, PASSWORD, redirect, verify=server.ca)
        return app.acquire_token_by_auth_code_flow(flow, dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query)))

    signed_in = sign_in(mail, "msauth.com.contoso.mail://auth")
    assert signed_in.get("foci") == "1", "the family refresh token"
    account = calendar.get_accounts()[0]
    # The calendar app tries the family refresh token: refused with client_mismatch, no own token yet.
    assert calendar.acquire_token_silent(["User.Read"], account=account) is None
    assert binding_rules(server, binding)[0]["fired"] == 1
    assert "access_token" in sign_in(calendar, "msauth.com.contoso.calendar://auth")
    # Both apps now get tokens silently.
    for app in (mail, calendar):
        refreshed = app.acquire_token_silent(["User.Read"], account=app.get_accounts()[0], force_refresh=True)
        assert refreshed and "access_token" in refreshed, refreshed


FIELD_APP, LEGACY_API = "e1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607", "https://api.contoso.com/"


def adal_then_msal_tokens(server):
    """The access tokens of the ADAL era (v1 endpoints, resource=) and of MSAL ('<resource>/.default')."""
    alias = "adal-" + uuid.uuid4().hex[:8]
    bind_scenario(server, "adal-v1-resource-migration", tenantAlias=alias, tenant=CONTOSO)
    redirect = "x-msauth-contoso-field://com.contoso.field"
    authorize = f"{server.url}/{alias}/oauth2/authorize?" + urllib.parse.urlencode({
        "client_id": FIELD_APP, "response_type": "code", "redirect_uri": redirect, "resource": LEGACY_API})
    final, _, _ = drive(authorize, ADELE, PASSWORD, redirect, verify=server.ca)
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query))["code"]
    adal = requests.post(f"{server.url}/{alias}/oauth2/token", timeout=30, data={
        "client_id": FIELD_APP, "grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "resource": LEGACY_API})
    assert adal.status_code == 200, adal.text

    app = public_app(server, tenant=alias, client_id=FIELD_APP)
    flow = app.initiate_auth_code_flow([LEGACY_API + "/.default"], redirect_uri=redirect)   # double slash
    final, _, _ = drive(flow["auth_uri"], ADELE, PASSWORD, redirect, verify=server.ca)
    result = app.acquire_token_by_auth_code_flow(flow, dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query)))
    assert "access_token" in result, result
    return app, claims_of(adal.json()["access_token"]), claims_of(result["access_token"])


def test_adal_v1_resource_then_msal_double_slash_default(server):
    app, adal, msal_token = adal_then_msal_tokens(server)
    for token in (adal, msal_token):
        assert token["ver"] == "1.0" and token["aud"].rstrip("/") == LEGACY_API.rstrip("/"), token
    # The single-slash form fails as the real service fails.
    wrong = app.acquire_token_silent_with_error(["https://api.contoso.com/.default"], account=app.get_accounts()[0])
    assert wrong["error"] == "invalid_resource" and wrong["error_codes"] == [500011], wrong


def test_adal_v1_resource_aud_is_the_app_id_uri_as_registered(server):
    _, adal, msal_token = adal_then_msal_tokens(server)
    assert adal["aud"] == LEGACY_API
    assert msal_token["aud"] == LEGACY_API
