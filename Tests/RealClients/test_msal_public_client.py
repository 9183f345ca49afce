"""MSAL for Python (PyPI `msal`) as a public client against FakeEntra's Entra ID v2.0 endpoints."""
import os
import time
import sys
import threading
import time
import urllib.parse
import uuid

import msal
import pytest
import requests

from browser_driver import drive, drive_response, parse_forms

ADELE = "adele.vance@contoso.onmicrosoft.com"
ALEX = "alex.wilber@contoso.onmicrosoft.com"
MEGAN = "megan@outlook.com"
PASSWORD = "Passw0rd!"
REDIRECT = "http://localhost:8400/callback"


def public_app(server, tenant="contoso.onmicrosoft.com", client_id=None, **kwargs):
    return msal.PublicClientApplication(
        client_id or str(uuid.uuid4()), authority=f"{server.url}/{tenant}", instance_discovery=False, **kwargs)


def sign_in_with_auth_code(server, app, scopes, user=ADELE, **flow_kwargs):
    flow = app.initiate_auth_code_flow(scopes, redirect_uri=REDIRECT, **flow_kwargs)
    final, fields, _ = drive(flow["auth_uri"], user, PASSWORD, REDIRECT, verify=server.ca)
    response = fields if fields is not None else dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query))
    return app.acquire_token_by_auth_code_flow(flow, response)


def test_auth_code_flow_with_pkce_pages_driven_by_form_posts(server):
    app = public_app(server)
    result = sign_in_with_auth_code(server, app, ["User.Read"])
    assert "access_token" in result, result
    claims = result["id_token_claims"]
    assert claims["preferred_username"] == ADELE
    assert claims["ver"] == "2.0"
    assert claims["tid"] == "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"
    # MSAL checked the nonce it sent against the id_token; the account is keyed by client_info.
    account = app.get_accounts()[0]
    assert account["username"] == ADELE
    assert account["home_account_id"] == f"{claims['oid']}.{claims['tid']}"
    granted = {s.lower() for s in result["scope"].split()}
    assert "https://graph.microsoft.com/user.read" in granted or "user.read" in granted


def test_silent_refresh_uses_the_refresh_token(server):
    app = public_app(server)
    first = sign_in_with_auth_code(server, app, ["User.Read"])
    account = app.get_accounts()[0]
    cached = app.acquire_token_silent(["User.Read"], account=account)
    assert cached["access_token"] == first["access_token"]
    refreshed = app.acquire_token_silent(["User.Read"], account=account, force_refresh=True)
    assert refreshed and "access_token" in refreshed, refreshed
    assert refreshed["access_token"] != first["access_token"]


def test_incremental_consent_then_silent_request_for_a_new_scope_needs_interaction(server):
    app = public_app(server)
    sign_in_with_auth_code(server, app, ["User.Read"])
    account = app.get_accounts()[0]
    result = app.acquire_token_silent_with_error(["Calendars.Read"], account=account)
    assert result is not None and result.get("error") in ("invalid_grant", "interaction_required"), result
    assert 65001 in result.get("error_codes", []), result
    # Interactive again: the consent page asks for the new scope only, then silent works.
    granted = sign_in_with_auth_code(server, app, ["Calendars.Read"], login_hint=ADELE)
    assert "access_token" in granted, granted


def test_personal_account_through_consumers(server):
    app = public_app(server, tenant="consumers")
    result = sign_in_with_auth_code(server, app, ["User.Read"], user=MEGAN)
    assert "access_token" in result, result
    assert result["id_token_claims"]["tid"] == "9188040d-6c67-4c5b-b112-36a304b66dad"


def test_wrong_password_is_shown_on_the_page(server):
    app = public_app(server)
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=REDIRECT)
    session = requests.Session()
    session.verify = server.ca
    with pytest.raises(Exception) as failure:
        drive(flow["auth_uri"], ADELE, "wrong", REDIRECT, session=session, max_steps=4)
    assert "AADSTS50126" in str(getattr(failure.value, "page", "")) or "50126" in str(failure.value)


def use_browser(monkeypatch, environment):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    import webbrowser
    webbrowser._browsers.clear()
    webbrowser._tryorder = None


def test_interactive_sign_in_through_the_browser_variable(server, monkeypatch, tmp_path):
    log = tmp_path / "browse.log"
    use_browser(monkeypatch, server.browser_environment(ALEX, PASSWORD, log=log))
    app = public_app(server)
    result = app.acquire_token_interactive(["User.Read"], login_hint=ALEX, timeout=60)
    assert "access_token" in result, (result, log.read_text() if log.exists() else "")
    assert result["id_token_claims"]["preferred_username"] == ALEX


def test_a_sign_in_that_cannot_finish_ends_at_once_with_the_reason(server, monkeypatch, tmp_path):
    # Every missing piece named in one answer, which reaches MSAL's listener at once: no 60 s wait.
    environment = server.browser_environment(ALEX, PASSWORD)
    del environment["FAKEENTRA_USERNAME"], environment["FAKEENTRA_PASSWORD"]
    monkeypatch.delenv("FAKEENTRA_USERNAME", raising=False)
    monkeypatch.delenv("FAKEENTRA_PASSWORD", raising=False)
    use_browser(monkeypatch, environment)
    started = time.monotonic()
    result = public_app(server).acquire_token_interactive(["User.Read"], timeout=60)
    assert time.monotonic() - started < 15, result
    assert result.get("error") == "access_denied", result
    assert "no user" in result["error_description"] and "no password" in result["error_description"], result
    # A wrong password: the pages are walked, the sign-in page comes back, and the app is told why.
    use_browser(monkeypatch, server.browser_environment(ALEX, "not-the-password"))
    started = time.monotonic()
    result = public_app(server).acquire_token_interactive(["User.Read"], login_hint=ALEX, timeout=60)
    assert time.monotonic() - started < 30, result
    assert result.get("error") == "access_denied" and "AADSTS50126: Error validating credentials" in result["error_description"], result


def test_device_code_flow(server):
    app = public_app(server)
    flow = app.initiate_device_flow(scopes=["User.Read"])
    assert "user_code" in flow, flow
    assert flow["verification_uri"].startswith(server.url)
    # One poll before anyone signed in: the service says to keep waiting.
    polled_at = time.monotonic()
    pending = app.client.obtain_token_by_device_flow(flow, exit_condition=lambda flow: True)
    assert pending.get("error") == "authorization_pending", pending
    # The person on the other device: the code on /devicelogin, then the ordinary sign-in pages.
    server.complete_device_login(flow, ADELE, PASSWORD)
    # The next poll keeps the interval the service asked for, as MSAL's own polling loop does.
    time.sleep(max(0.0, polled_at + flow["interval"] - time.monotonic()))
    result = app.acquire_token_by_device_flow(flow)
    assert "access_token" in result, result
    assert result["id_token_claims"]["preferred_username"] == ADELE
    assert "scope" in result
