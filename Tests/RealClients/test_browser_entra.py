"""Every interactive Entra ID page in headless Chromium, with JavaScript off: real form posts, the
session cookie, redirects to a local listener; Reload on each page, Back where a person would use it."""
import threading
import urllib.parse
import uuid
import webbrowser

import msal
import pytest
import requests
from selenium.webdriver.support.ui import WebDriverWait

from chromium import AppRequest, chromium, chromium_session, claims, listener, on_page, server  # noqa: F401 (fixtures)

ADELE = "adele.vance@contoso.onmicrosoft.com"
ALEX = "alex.wilber@contoso.onmicrosoft.com"
NESTOR = "nestor.wilke@contoso.onmicrosoft.com"
PASSWORD = "Passw0rd!"
CONTOSO = "contoso.onmicrosoft.com"


def authority(server, tenant=CONTOSO):
    return f"{server.url}/{tenant}"


def sign_in(browser, login, password=PASSWORD, shot=None):
    on_page(browser, "i0116", shot=shot)
    browser.fill({"i0116": login, "i0118": password}, submit="idSIButton9")


def test_sign_in_then_consent_with_an_unticked_scope(server, chromium, listener):
    app = AppRequest(server, listener, authority(server), scope="openid profile offline_access User.Read Calendars.Read")
    chromium.open(app.url)
    sign_in(chromium, ADELE, shot="entra-sign-in")
    # Reload of the consent page repeats the credentials' post: the same consent page again.
    on_page(chromium, "consent", shot="entra-consent")
    calendars = chromium.driver.find_element("css selector", "li[data-scope*='Calendars.Read'] input[type=checkbox]")
    assert calendars.is_selected()
    calendars.click()
    chromium.click("idBtn_Accept")
    tokens = app.redeem()
    granted = tokens["scope"].lower()
    assert "user.read" in granted and "calendars.read" not in granted, tokens["scope"]
    assert "Calendars.Read" not in claims(tokens["access_token"])["scp"]
    assert claims(tokens["id_token"])["preferred_username"] == ADELE
    # The next sign-in, answered from the session cookie, asks again for the declined permission only.
    chromium.open(AppRequest(server, listener, authority(server), client_id=app.client_id, scope=app.scope).url)
    on_page(chromium, "consent", reload=False)
    offered = [e.get_attribute("data-scope") for e in chromium.driver.find_elements("css selector", "#permissions li")]
    assert any("Calendars.Read" in s for s in offered) and not any("User.Read" in s for s in offered), offered


def test_account_picker_after_two_sign_ins(server, chromium, listener):
    for login in (ADELE, ALEX):
        app = AppRequest(server, listener, authority(server), prompt="login")
        chromium.open(app.url)
        sign_in(chromium, login, shot=None)
    app = AppRequest(server, listener, authority(server), prompt="select_account")
    chromium.open(app.url)
    on_page(chromium, "picker", shot="entra-account-picker")
    tiles = {e.get_attribute("data-upn"): e.get_attribute("id") for e in chromium.driver.find_elements("css selector", "#accounts button[data-upn]")}
    assert set(tiles) == {ADELE, ALEX}, tiles
    chromium.click(tiles[ALEX])
    tokens = app.redeem()
    assert claims(tokens["id_token"])["preferred_username"] == ALEX


def scenario_app(server, listener, scenario):
    """A request of a fresh client id bound to `scenario` (the binding lasts as long as this module's server)."""
    client_id = str(uuid.uuid4())
    server.bind(scenario, client_id=client_id)
    return AppRequest(server, listener, authority(server), client_id=client_id)


def test_mfa_page(server, chromium, listener):
    app = scenario_app(server, listener, "mfa-required")
    chromium.open(app.url)
    sign_in(chromium, ADELE)
    on_page(chromium, "mfa", shot="entra-mfa")
    chromium.type("idTxtBx_SAOTCC_OTC", "12ab")
    chromium.click("idSubmit_SAOTCC_Continue")
    assert chromium.has("idSpan_SAOTCC_Error_OTC") and "AADSTS" in chromium.text()
    chromium.type("idTxtBx_SAOTCC_OTC", "123456")
    chromium.click("idSubmit_SAOTCC_Continue")
    tokens = app.redeem()
    assert "mfa" in claims(tokens["id_token"]).get("amr", []) or "mfa" in claims(tokens["access_token"]).get("amr", [])


def test_expired_password_page(server, chromium, listener):
    app = scenario_app(server, listener, "password-expired")
    chromium.open(app.url)
    sign_in(chromium, NESTOR)
    on_page(chromium, "passwordchange", shot="entra-expired-password")
    chromium.fill({"currentPassword": PASSWORD, "newPassword": "N3w-Passw0rd!", "confirmNewPassword": "N3w-Passw0rd!"}, submit="idSIButton9")
    tokens = app.redeem()
    assert claims(tokens["id_token"])["preferred_username"] == NESTOR


def test_create_account_page(server, chromium, listener):
    email = f"new-{uuid.uuid4().hex[:8]}@outlook.com"
    app = AppRequest(server, listener, authority(server, "consumers"), prompt="create")
    chromium.open(app.url)
    on_page(chromium, "MemberName", shot="entra-create-account")
    chromium.fill({"MemberName": email, "DisplayName": "New Person", "PasswordInput": "Create-Passw0rd"}, submit="idSIButton9")
    tokens = app.redeem()
    assert claims(tokens["id_token"])["preferred_username"] == email


def test_device_login_pages(server, chromium):
    client_id = str(uuid.uuid4())
    start = requests.post(f"{authority(server)}/oauth2/v2.0/devicecode", verify=server.ca, timeout=30,
                          data={"client_id": client_id, "scope": "openid profile offline_access"}).json()
    chromium.open(start["verification_uri"])
    on_page(chromium, "otc", shot="entra-device-code")
    chromium.type("otc", start["user_code"])
    chromium.click("idSIButton9")
    on_page(chromium, "deviceconfirm", shot="entra-device-confirm")
    chromium.click("idSIButton9")
    sign_in(chromium, ADELE)
    chromium.wait_for("deviceSuccess")
    chromium.shot("entra-device-signed-in")
    token = requests.post(f"{authority(server)}/oauth2/v2.0/token", verify=server.ca, timeout=30, data={
        "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "client_id": client_id, "device_code": start["device_code"]})
    assert token.status_code == 200, token.text
    assert claims(token.json()["id_token"])["preferred_username"] == ADELE


def test_logout_ends_the_session(server, chromium, listener):
    app = AppRequest(server, listener, authority(server))
    chromium.open(app.url)
    sign_in(chromium, ADELE)
    assert "code" in app.reply()["fields"]
    chromium.open(f"{authority(server)}/oauth2/v2.0/logout?" + urllib.parse.urlencode({"post_logout_redirect_uri": listener.redirect_uri}))
    assert listener.wait(lambda hit: "code" not in hit["fields"] and "error" not in hit["fields"])
    silent = AppRequest(server, listener, authority(server), prompt="none")
    chromium.open(silent.url)
    assert silent.reply()["fields"]["error"] == "login_required"
    chromium.open(f"{authority(server)}/oauth2/v2.0/logout")
    on_page(chromium, "signedOut", shot="entra-signed-out")


def test_form_post_submits_itself_with_script_and_by_button_without(server, chromium, listener):
    with chromium.with_scripts():
        app = AppRequest(server, listener, authority(server), response_mode="form_post")
        chromium.open(app.url)
        sign_in(chromium, ADELE)
        hit = app.reply()
        assert hit["method"] == "POST"
        app.redeem(hit)
    # Without script the same page shows its Continue button, which posts the same answer.
    app = AppRequest(server, listener, authority(server), response_mode="form_post", login_hint=ADELE)
    chromium.open(app.url)
    on_page(chromium, "idSubmit_Continue", reload=False)
    chromium.click("idSubmit_Continue")
    hit = app.reply()
    assert hit["method"] == "POST"
    app.redeem(hit)


def test_msal_acquire_token_interactive_with_chromium_as_the_browser(server, chromium, monkeypatch):
    """MSAL opens the system browser (here: this Chromium, through `webbrowser`) and listens on a
    localhost port; the person signs in on FakeEntra's pages and Chromium's form post reaches MSAL."""
    failures = []

    class SeleniumChromium(webbrowser.BaseBrowser):
        def open(self, url, new=0, autoraise=True):
            def person():
                try:
                    chromium.open(url)
                    sign_in(chromium, ALEX)
                    if chromium.has("consent"):
                        chromium.click("idBtn_Accept")
                except Exception as error:  # reported by the test below
                    failures.append(error)
            threading.Thread(target=person, daemon=True).start()
            return True

    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    monkeypatch.delenv("BROWSER", raising=False)
    webbrowser.register("fakeentra-chromium", None, SeleniumChromium("fakeentra-chromium"), preferred=True)
    app = msal.PublicClientApplication(str(uuid.uuid4()), authority=authority(server), instance_discovery=False)
    # MSAL asks for response_mode=form_post: a browser with script posts it on its own.
    with chromium.with_scripts():
        try:
            result = app.acquire_token_interactive(["User.Read"], login_hint=ALEX, timeout=30)
        finally:
            assert not failures, failures
    assert "access_token" in result, result
    assert result["id_token_claims"]["preferred_username"] == ALEX


def test_console_journal_shows_the_sign_in_with_decoded_claims(server, chromium, listener):
    """The web console (/_fakeentra/console) lists the sign-in in its journal; opening the entry shows
    the token's claims decoded. Skipped only while this build has no console (404)."""
    console = f"{server.url}/_fakeentra/console"
    if requests.get(console, verify=server.ca, timeout=30).status_code == 404:
        pytest.skip("this build has no web console (/_fakeentra/console answers 404)")
    app = AppRequest(server, listener, authority(server))
    chromium.open(app.url)
    sign_in(chromium, ADELE)
    app.redeem()
    # As a person would: the console's home, then its Journal tab, filtered by the app's client id.
    chromium.open(console)
    chromium.wait_for("tab-journal")
    chromium.click("tab-journal")
    chromium.wait_for("f-client").send_keys(app.client_id)
    # The filter is a form: wait for the filtered page, not the journal of the page being left.
    chromium.click("applyFilters")
    journal = chromium.wait_for("journal")
    entries = journal.find_elements("css selector", "[data-entry-id]")
    ours = [e for e in entries if app.client_id in e.text and "token" in e.text.lower()] or \
           [e for e in entries if "token" in e.text.lower()]
    assert ours, journal.text
    entry = ours[0]
    # The entry opens (a link to its page, or a disclosure in place) to the decoded token.
    opener = entry if entry.tag_name in ("a", "summary") else entry.find_element("css selector", "a, summary")
    opener.click()
    WebDriverWait(chromium.driver, 10).until(lambda d: d.find_elements("css selector", '[data-claim="preferred_username"]'))
    claims_shown = [e.text for e in chromium.driver.find_elements("css selector", '[data-claim="preferred_username"]')]
    assert any(ADELE in text for text in claims_shown), claims_shown
