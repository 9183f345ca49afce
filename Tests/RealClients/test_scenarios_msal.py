"""Shipped scenarios driven by real clients (MSAL for Python, msgraph-sdk's transport via azure-identity):
each test binds one scenario to its own client id on a shared server, as parallel CI tests would, and
checks the client ends where the scenario's description says a correct MSAL client ends."""
import uuid

import msal
import pytest
import requests

from real_servers import RunningServer, bind_scenario, binding_rules

from test_msal_public_client import ADELE, ALEX, PASSWORD, public_app, sign_in_with_auth_code


@pytest.fixture(scope="module")
def scenario_server(certs_dir):
    """This module's own server: one test revokes Alex's tokens, which must not reach other modules' tests."""
    s = RunningServer([], certs_dir)
    yield s
    s.stop()


def test_refresh_token_expired_then_interactive_sign_in_recovers(scenario_server):
    client_id = str(uuid.uuid4())
    bind_scenario(scenario_server, "refresh-token-expired", clientId=client_id)
    app = public_app(scenario_server, client_id=client_id)
    sign_in_with_auth_code(scenario_server, app, ["User.Read"])
    account = app.get_accounts()[0]
    failed = app.acquire_token_silent_with_error(["User.Read"], account=account, force_refresh=True)
    assert failed["error"] == "invalid_grant" and 700082 in failed["error_codes"], failed
    # The rule fires once: after signing in again, silent refresh works.
    sign_in_with_auth_code(scenario_server, app, ["User.Read"], login_hint=ADELE)
    refreshed = app.acquire_token_silent(["User.Read"], account=app.get_accounts()[0], force_refresh=True)
    assert refreshed and "access_token" in refreshed, refreshed


def test_throttled_token_endpoint_answers_429_with_retry_after(scenario_server):
    client_id = str(uuid.uuid4())
    binding = bind_scenario(scenario_server, "throttled-token-endpoint", clientId=client_id)
    app = msal.ConfidentialClientApplication(client_id, client_credential="s", authority=f"{scenario_server.url}/contoso.onmicrosoft.com", instance_discovery=False)
    first = app.acquire_token_for_client(["https://graph.microsoft.com/.default"])
    assert "access_token" not in first, first
    # MSAL for Python throttles an identical request itself for Retry-After: the server saw one call.
    second = app.acquire_token_for_client(["https://graph.microsoft.com/.default"])
    assert "access_token" not in second
    raw = requests.post(f"{scenario_server.url}/contoso.onmicrosoft.com/oauth2/v2.0/token", verify=scenario_server.ca, timeout=30,
                        data={"client_id": client_id, "client_secret": "s", "grant_type": "client_credentials", "scope": "https://graph.microsoft.com/.default"})
    assert raw.status_code == 429 and raw.headers["Retry-After"] == "5", (raw.status_code, raw.headers)
    # Both scripted 429s are spent; the next request succeeds.
    ok = requests.post(f"{scenario_server.url}/contoso.onmicrosoft.com/oauth2/v2.0/token", verify=scenario_server.ca, timeout=30,
                       data={"client_id": client_id, "client_secret": "s", "grant_type": "client_credentials", "scope": "https://graph.microsoft.com/.default"})
    assert ok.status_code == 200, ok.text
    assert binding_rules(scenario_server, binding)


def test_declined_scopes_are_missing_from_the_granted_scope(scenario_server):
    client_id = str(uuid.uuid4())
    bind_scenario(scenario_server, "declined-scopes", clientId=client_id)
    app = public_app(scenario_server, client_id=client_id)
    result = sign_in_with_auth_code(scenario_server, app, ["User.Read", "Calendars.Read"])
    assert "access_token" in result, result
    granted = {s.lower().rsplit("/", 1)[-1] for s in result["scope"].split()}
    assert "user.read" in granted and "calendars.read" not in granted, result["scope"]


def test_grant_revoked_by_password_change(scenario_server):
    client_id = str(uuid.uuid4())
    app = public_app(scenario_server, client_id=client_id)
    sign_in_with_auth_code(scenario_server, app, ["User.Read"], user=ALEX)
    revoke = scenario_server.control("POST", f"/_fakeentra/users/{ALEX}/revoke")
    assert revoke.status_code in (200, 204), revoke.text
    result = app.acquire_token_silent_with_error(["User.Read"], account=app.get_accounts()[0], force_refresh=True)
    assert result and 50173 in result.get("error_codes", []), result


def test_two_clients_in_two_scenarios_do_not_see_each_other(scenario_server):
    expired_client, happy_client = str(uuid.uuid4()), str(uuid.uuid4())
    bind_scenario(scenario_server, "refresh-token-expired", clientId=expired_client)
    expired_app = public_app(scenario_server, client_id=expired_client)
    happy_app = public_app(scenario_server, client_id=happy_client)
    sign_in_with_auth_code(scenario_server, expired_app, ["User.Read"])
    sign_in_with_auth_code(scenario_server, happy_app, ["User.Read"])
    happy = happy_app.acquire_token_silent(["User.Read"], account=happy_app.get_accounts()[0], force_refresh=True)
    assert happy and "access_token" in happy, happy
    expired = expired_app.acquire_token_silent_with_error(["User.Read"], account=expired_app.get_accounts()[0], force_refresh=True)
    assert 700082 in expired["error_codes"], expired


def test_a_server_wide_scenario_from_the_command_line(make_server):
    server = make_server("--scenario", "conditional-access-blocked")
    app = msal.PublicClientApplication(str(uuid.uuid4()), authority=f"{server.url}/contoso.onmicrosoft.com", instance_discovery=False)
    flow = app.initiate_device_flow(scopes=["User.Read"])
    assert "user_code" in flow, flow
    raw = requests.post(f"{server.url}/contoso.onmicrosoft.com/oauth2/v2.0/token", verify=server.ca, timeout=30,
                        data={"client_id": str(uuid.uuid4()), "grant_type": "password", "username": ADELE, "password": PASSWORD, "scope": "User.Read"})
    assert raw.status_code == 400
    assert raw.json()["error_codes"] == [53003], raw.text


def test_bindings_from_the_config_file(make_server):
    client_id = str(uuid.uuid4())
    server = make_server(config={"bindings": [{"scenario": "refresh-token-expired", "clientId": client_id}]})
    app = public_app(server, client_id=client_id)
    sign_in_with_auth_code(server, app, ["User.Read"])
    failed = app.acquire_token_silent_with_error(["User.Read"], account=app.get_accounts()[0], force_refresh=True)
    assert 700082 in failed["error_codes"], failed


def test_an_unknown_scenario_in_the_config_stops_start_up_with_its_position(make_server):
    with pytest.raises(RuntimeError) as failure:
        make_server(config={"bindings": [{"scenario": "no-such-scenario", "user": ADELE}]})
    message = str(failure.value)
    assert "config.json:1:" in message and "no-such-scenario" in message, message
