"""Shipped scenarios about sign-in and refresh errors, driven by MSAL for Python: each test binds its
scenario to its own client id (or user) on one shared server and checks that the client ends where the
scenario's description says a correct MSAL client ends."""
import base64
import json
import urllib.parse
import uuid

import pytest
import requests

from browser_driver import drive
from real_servers import bind_scenario, binding_rules, bound_app
from test_msal_public_client import ADELE, PASSWORD, REDIRECT, public_app, sign_in_with_auth_code

NESTOR = "nestor.wilke@contoso.onmicrosoft.com"


@pytest.fixture
def server(shared_scenario_server):
    return shared_scenario_server


def interactive(server, app, scopes, user=ADELE, consent="accept", visited=None, new_password=None, **flow_kwargs):
    """An interactive request: the driver plays the user in the browser; returns MSAL's result."""
    flow = app.initiate_auth_code_flow(scopes, redirect_uri=REDIRECT, **flow_kwargs)
    final, fields, _ = drive(flow["auth_uri"], user, PASSWORD, REDIRECT, verify=server.ca, consent=consent,
                            visited=visited, new_password=new_password)
    response = fields if fields is not None else dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query))
    return app.acquire_token_by_auth_code_flow(flow, response)


def silent_refresh(app, scopes=("User.Read",)):
    return app.acquire_token_silent_with_error(list(scopes), account=app.get_accounts()[0], force_refresh=True)


def test_happy_path_signs_in_once_then_everything_is_silent(server):
    app, binding = bound_app(server, "happy-path")
    signed_in = sign_in_with_auth_code(server, app, ["User.Read"])
    assert {"access_token", "refresh_token", "id_token", "client_info"} <= signed_in.keys(), signed_in.keys()
    for _ in range(2):
        assert "access_token" in silent_refresh(app)
    assert binding_rules(server, binding) == []


def test_grant_revoked_password_change_then_interactive_sign_in(server):
    app, _ = bound_app(server, "grant-revoked-password-change")
    sign_in_with_auth_code(server, app, ["User.Read"])
    failed = silent_refresh(app)
    assert failed["error"] == "invalid_grant" and failed["error_codes"] == [50173], failed
    assert "revoked" in failed["error_description"]
    assert "access_token" in interactive(server, app, ["User.Read"], login_hint=ADELE)
    assert "access_token" in silent_refresh(app)


def test_bad_token_suberror_then_interactive_sign_in(server):
    app, binding = bound_app(server, "bad-token")
    sign_in_with_auth_code(server, app, ["User.Read"])
    failed = silent_refresh(app)
    assert failed["error"] == "invalid_grant" and failed["suberror"] == "bad_token", failed
    assert failed["error_codes"] == [50034], failed
    assert binding_rules(server, binding)[0]["fired"] == 1
    assert "access_token" in interactive(server, app, ["User.Read"], login_hint=ADELE)
    assert "access_token" in silent_refresh(app)


def test_incremental_consent_required_then_consent_page(server):
    app, binding = bound_app(server, "incremental-consent-required")
    sign_in_with_auth_code(server, app, ["User.Read"])
    failed = app.acquire_token_silent_with_error(["Calendars.Read"], account=app.get_accounts()[0])
    assert failed["error"] == "invalid_grant" and failed["suberror"] == "consent_required", failed
    assert failed["error_codes"] == [65001]
    pages = []
    granted = interactive(server, app, ["Calendars.Read"], login_hint=ADELE, visited=pages)
    assert any("Calendars.Read" in p and "Accept" in p for p in pages), "the consent page asks for Calendars.Read"
    assert "calendars.read" in granted["scope"].lower(), granted
    assert [r["fired"] for r in binding_rules(server, binding)] == [1, 1]


def test_admin_consent_required_token_error_and_page(server):
    app, _ = bound_app(server, "admin-consent-required")
    sign_in_with_auth_code(server, app, ["User.Read"])
    failed = app.acquire_token_silent_with_error(["User.Read.All"], account=app.get_accounts()[0])
    assert failed["error"] == "invalid_grant" and failed["suberror"] == "consent_required", failed
    assert failed["error_codes"] == [90094] and "admin" in failed["error_description"]
    flow = app.initiate_auth_code_flow(["User.Read.All"], redirect_uri=REDIRECT, login_hint=ADELE)
    page = requests.get(flow["auth_uri"], verify=server.ca, allow_redirects=False, timeout=30)
    # A page, not a redirect back: the app never gets a code, and does not loop.
    assert page.status_code < 300 or page.status_code >= 400, page.headers.get("Location")
    assert "AADSTS90094" in page.text and "admin" in page.text.lower()


def test_user_declines_consent_is_access_denied_65004(server):
    app, _ = bound_app(server, "user-declines-consent")
    declined = interactive(server, app, ["User.Read"], consent="cancel")
    assert declined["error"] == "access_denied", declined
    assert declined["error_description"].startswith("AADSTS65004"), declined
    assert app.get_accounts() == []
    assert "access_token" in interactive(server, app, ["User.Read"])


def test_user_cancels_sign_in_is_access_denied_cancel(server):
    app, _ = bound_app(server, "user-cancels-sign-in")
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=REDIRECT)
    redirect = requests.get(flow["auth_uri"], verify=server.ca, allow_redirects=False, timeout=30)
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(redirect.headers["Location"]).query))
    assert params["error"] == "access_denied" and params["error_subcode"] == "cancel", params
    cancelled = app.acquire_token_by_auth_code_flow(flow, params)
    assert cancelled["error"] == "access_denied", cancelled
    assert app.get_accounts() == [], "nothing cached"
    assert "access_token" in interactive(server, app, ["User.Read"])


def access_claims(result):
    payload = result["access_token"].split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_mfa_required_refresh_fails_with_50076(server):
    app, _ = bound_app(server, "mfa-required")
    sign_in_with_auth_code(server, app, ["User.Read"])
    failed = silent_refresh(app)
    assert failed["error"] == "invalid_grant" and failed["suberror"] == "basic_action", failed
    assert failed["error_codes"] == [50076]


def test_mfa_required_step_up_shows_the_verification_page(server):
    app, _ = bound_app(server, "mfa-required")
    sign_in_with_auth_code(server, app, ["User.Read"])
    assert silent_refresh(app)["error_codes"] == [50076]
    pages = []
    stepped_up = interactive(server, app, ["User.Read"], login_hint=ADELE, visited=pages)
    assert any('name="otc"' in p for p in pages), "the verification-code page"
    assert "mfa" in access_claims(stepped_up)["amr"], access_claims(stepped_up)


def test_password_expired_then_password_change_page(server):
    app, binding = bound_app(server, "password-expired")
    pages = []
    signed_in = interactive(server, app, ["User.Read"], user=NESTOR, visited=pages, new_password="N3w-Passw0rd!")
    assert "access_token" in signed_in, signed_in
    assert any('data-aadsts="50055"' in p and 'name="newPassword"' in p for p in pages), "the sign-in asks for a new password"
    failed = silent_refresh(app)
    assert failed["error"] == "invalid_grant" and failed["suberror"] == "user_password_expired", failed
    assert failed["error_codes"] == [50055]
    assert binding_rules(server, binding)[0]["fired"] == 1


def test_prompt_none_without_session_is_login_required(server):
    app, _ = bound_app(server, "prompt-none-no-session")
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=REDIRECT, prompt="none", login_hint=ADELE)
    redirect = requests.get(flow["auth_uri"], verify=server.ca, allow_redirects=False, timeout=30)
    assert redirect.status_code in (302, 303), redirect.status_code
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(redirect.headers["Location"]).query))
    result = app.acquire_token_by_auth_code_flow(flow, params)
    assert result["error"] == "login_required", result
    assert result["error_description"].startswith("AADSTS50058"), result
    # A correct client then signs in interactively.
    assert "access_token" in interactive(server, app, ["User.Read"])


def test_protection_policy_required_is_unauthorized_client(server):
    app, _ = bound_app(server, "protection-policy-required")
    refused = interactive(server, app, ["User.Read"])
    assert refused["error"] == "unauthorized_client", refused
    assert refused["suberror"] == "protection_policy_required" and refused["error_codes"] == [53005], refused
    assert "Intune" in refused["error_description"]
