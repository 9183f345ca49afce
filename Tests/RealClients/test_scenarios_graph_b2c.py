"""Shipped scenarios about Microsoft Graph and Azure AD B2C, driven by MSAL for Python (tokens) and
requests or msgraph-sdk (Graph calls). Each test binds its scenario to its own client id on one shared server."""
import base64
import json
import urllib.parse
import uuid

import pytest
import requests

from real_servers import bind_scenario, binding_rules, bound_app
from test_b2c_msal import b2c_app, finish, parse_forms, redirect_params, start
from test_msal_public_client import ADELE, public_app, sign_in_with_auth_code


@pytest.fixture
def server(shared_scenario_server):
    return shared_scenario_server


def graph_get(server, path, token):
    return requests.get(f"{server.url}/v1.0/{path}", headers={"Authorization": f"Bearer {token}"}, timeout=30)


def silent(app, scopes=("User.Read",), **kwargs):
    return app.acquire_token_silent(list(scopes), account=app.get_accounts()[0], **kwargs)


def test_access_token_expiry_expired_token_refused_then_silent_refresh(server):
    app, binding = bound_app(server, "access-token-expiry")
    first = sign_in_with_auth_code(server, app, ["User.Read"])
    assert first["expires_in"] <= 240, first["expires_in"]
    graph_get(server, "me", first["access_token"])
    # The first Graph call moved the world's clock 10 minutes on: the first token is now expired.
    assert server.control("GET", f"/_fakeentra/clock?binding={binding}").json()["elapsedSeconds"] >= 600
    expired = graph_get(server, "me", first["access_token"])
    assert expired.status_code == 401 and expired.json()["error"]["code"] == "InvalidAuthenticationToken", expired.text
    # MSAL treats a token expiring within 5 minutes as expired: acquire_token_silent refreshes, no UI.
    fresh = silent(app)
    assert fresh["access_token"] != first["access_token"]
    assert graph_get(server, "me", fresh["access_token"]).status_code == 200
    # Advancing the binding's clock through the control API expires that token as well.
    moved = server.control("POST", "/_fakeentra/clock/advance", json={"binding": binding, "seconds": 3600})
    assert moved.status_code == 200, moved.text
    assert graph_get(server, "me", fresh["access_token"]).status_code == 401
    assert graph_get(server, "me", silent(app)["access_token"]).status_code == 200


def test_access_token_expiry_a_correct_client_never_sends_an_expired_token(server):
    app, _ = bound_app(server, "access-token-expiry")
    sign_in_with_auth_code(server, app, ["User.Read"])
    for _ in range(3):
        # acquire_token_silent before each call, as the description says a correct client does.
        assert graph_get(server, "me", silent(app)["access_token"]).status_code == 200


def test_graph_cae_claims_challenge_then_silent_with_claims(server):
    app, binding = bound_app(server, "graph-cae-claims-challenge", client_capabilities=["cp1"])
    token = sign_in_with_auth_code(server, app, ["User.Read"])["access_token"]
    challenged = graph_get(server, "me", token)
    assert challenged.status_code == 401
    header = challenged.headers["WWW-Authenticate"]
    assert 'error="insufficient_claims"' in header, header
    encoded = header.split('claims="', 1)[1].split('"', 1)[0]
    claims = base64.b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    assert "nbf" in json.loads(claims)["access_token"], claims
    # MSAL skips its cache when given the claims, and sends them with the refresh token.
    renewed = silent(app, claims_challenge=claims)
    assert renewed and renewed["access_token"] != token, renewed
    assert [r["fired"] for r in binding_rules(server, binding)] == [1, 1], "the token request carried the claims"
    retried = graph_get(server, "me", renewed["access_token"])
    assert retried.status_code == 200 and retried.json()["userPrincipalName"] == ADELE


def test_graph_cae_challenge_spares_tokens_without_cp1(server):
    app, _ = bound_app(server, "graph-cae-claims-challenge")
    token = sign_in_with_auth_code(server, app, ["User.Read"])["access_token"]
    assert graph_get(server, "me", token).status_code == 200


def test_graph_throttling_429_with_retry_after_then_success(server):
    app, binding = bound_app(server, "graph-throttling")
    token = sign_in_with_auth_code(server, app, ["User.Read"])["access_token"]
    for _ in range(2):
        throttled = graph_get(server, "me", token)
        assert throttled.status_code == 429 and throttled.headers["Retry-After"] == "2", throttled.headers
        assert throttled.json()["error"]["code"] == "TooManyRequests"
    # The test does not wait the two seconds: the rule is spent, the next call gets the data.
    assert graph_get(server, "me", token).json()["userPrincipalName"] == ADELE
    assert binding_rules(server, binding)[0]["fired"] == 2


def test_graph_missing_scope_403_then_incremental_consent(server):
    app, _ = bound_app(server, "graph-missing-scope-403")
    token = sign_in_with_auth_code(server, app, ["User.Read"])["access_token"]
    assert graph_get(server, "me", token).status_code == 200, "other resources are not refused"
    denied = graph_get(server, "me/events", token)
    assert denied.status_code == 403, denied.text
    assert denied.json()["error"] == {**denied.json()["error"], "code": "ErrorAccessDenied",
                                      "message": "Access is denied. Check credentials and try again."}
    calendar = sign_in_with_auth_code(server, app, ["Calendars.Read"], login_hint=ADELE)
    assert "calendars.read" in calendar["scope"].lower(), calendar
    assert graph_get(server, "me/events", calendar["access_token"]).status_code == 200


@pytest.fixture(scope="module")
def b2c_server(certs_dir):
    """The B2C scenarios name the default B2C tenant's user flows (B2C_1_susi, B2C_1_edit_profile, B2C_1_reset)."""
    from real_servers import RunningServer
    s = RunningServer([], certs_dir)
    yield s
    s.stop()


def bound_b2c(server, scenario, policy):
    client_id = str(uuid.uuid4())
    binding = bind_scenario(server, scenario, clientId=client_id)
    return client_id, binding, b2c_app(server, policy, client_id=client_id)


def test_b2c_forgot_password_then_password_reset_policy(b2c_server):
    server = b2c_server
    client_id, binding, susi = bound_b2c(server, "b2c-forgot-password", "B2C_1_susi")
    flow, session, redirect = start(server, susi)
    error = susi.acquire_token_by_auth_code_flow(flow, redirect_params(redirect.headers["Location"]))
    assert error["error"] == "access_denied", error
    assert error["error_description"].startswith("AADB2C90118: The user has forgotten their password."), error
    reset = b2c_app(server, "B2C_1_reset", client_id=client_id)
    flow, session, page = start(server, reset, session)
    result = finish(reset, flow, page, session)
    assert "access_token" in result, result
    assert result["id_token_claims"]["tfp"] == "B2C_1_reset"
    fired = [r["fired"] for r in binding_rules(server, binding)]
    assert fired[0] == 1 and fired[1] >= 1, fired


def test_b2c_cancel_on_profile_editing_keeps_the_account(b2c_server):
    server = b2c_server
    client_id, _, susi = bound_b2c(server, "b2c-cancel", "B2C_1_susi")
    flow, session, page = start(server, susi)
    assert "access_token" in finish(susi, flow, page, session)
    edit = b2c_app(server, "B2C_1_edit_profile", client_id=client_id)
    flow, session, redirect = start(server, edit, session)
    cancelled = edit.acquire_token_by_auth_code_flow(flow, redirect_params(redirect.headers["Location"]))
    assert cancelled["error"] == "access_denied", cancelled
    assert cancelled["error_description"].startswith("AADB2C90091: The user has cancelled entering self-asserted information."), cancelled
    assert len(susi.get_accounts()) == 1
    assert susi.acquire_token_silent([r for r in flow["scope"] if "fabrikamb2c" in r], account=susi.get_accounts()[0],
                                     force_refresh=True)


def test_b2c_edit_profile_changes_the_name_for_that_policy(b2c_server):
    server = b2c_server
    client_id, _, susi = bound_b2c(server, "b2c-edit-profile", "B2C_1_susi")
    flow, session, page = start(server, susi)
    signed_in = finish(susi, flow, page, session)
    assert "access_token" in signed_in, signed_in
    edit = b2c_app(server, "B2C_1_edit_profile", client_id=client_id)
    flow, session, page = start(server, edit, session)
    form = parse_forms(page.text)[0]
    fields = {i["name"]: i["value"] for i in form["inputs"] if i.get("name")}
    fields.update(displayName="Patti F.", action="saveProfile")
    saved = session.post(urllib.parse.urljoin(server.url, form["action"]), data=fields, allow_redirects=False)
    edited = edit.acquire_token_by_auth_code_flow(flow, redirect_params(saved.headers["Location"]))
    assert edited["id_token_claims"]["name"] == "Patti F." and edited["id_token_claims"]["tfp"] == "B2C_1_edit_profile", edited
    # MSAL keys B2C accounts per policy: the sign-in policy's account and tokens are kept.
    homes = {a["home_account_id"].split(".")[0].rsplit("-", 1)[1] for a in susi.get_accounts()}
    assert homes == {"b2c_1_susi"} and signed_in["id_token_claims"]["tfp"] == "B2C_1_susi"


def test_graph_missing_scope_403_through_msgraph_sdk(server):
    import asyncio

    from azure.identity import DeviceCodeCredential
    from kiota_abstractions.api_error import APIError

    from test_graph_sdk import CONTOSO, approve_device_code, graph_client

    client_id = str(uuid.uuid4())
    bind_scenario(server, "graph-missing-scope-403", clientId=client_id)
    credential = DeviceCodeCredential(client_id=client_id, tenant_id=CONTOSO, authority=server.host,
                                      disable_instance_discovery=True, prompt_callback=approve_device_code(server, ADELE))

    async def scenario():
        profile_only = graph_client(server, credential, ["User.Read"])
        assert (await profile_only.me.get()).user_principal_name == ADELE
        with pytest.raises(APIError) as denied:
            await profile_only.me.events.get()
        # The app asks for Calendars.Read (the user consents on the device-code pages) and retries.
        with_calendar = graph_client(server, credential, ["Calendars.Read"])
        return denied.value, await with_calendar.me.events.get()

    denied, events = asyncio.run(scenario())
    assert denied.response_status_code == 403 and denied.error.code == "ErrorAccessDenied"
    assert events.value, "the demo user has events"
