"""Every Azure AD B2C user-flow page in headless Chromium, with JavaScript off: sign-up or sign-in,
sign-up (whose Reload used to answer AADB2C90046), forgotten password and the reset policy, edit
profile, cancel; Reload on each page and Back where a person would use it."""
import time
import uuid


from chromium import AppRequest, chromium, chromium_session, claims, listener, on_page, server  # noqa: F401 (fixtures)

TENANT = "fabrikamb2c.onmicrosoft.com"
SCOPE = "https://fabrikamb2c.onmicrosoft.com/helloapi/demo.read openid offline_access"
BEN = "ben@fabrikam.test"
PASSWORD = "Passw0rd!"


def policy_request(server, listener, policy, **parameters):
    return AppRequest(server, listener, f"{server.url}/tfp/{TENANT}/{policy}", scope=SCOPE, **parameters)


def sign_in(browser, email, password=PASSWORD, shot=None):
    on_page(browser, "localAccountForm", shot=shot)
    browser.fill({"email": email, "password": password}, submit="next")


def test_sign_up_or_sign_in(server, chromium, listener):
    app = policy_request(server, listener, "B2C_1_susi")
    chromium.open(app.url)
    sign_in(chromium, BEN, shot="b2c-sign-in")
    tokens = app.redeem()
    assert claims(tokens["id_token"])["emails"] == [BEN]
    assert claims(tokens["id_token"])["tfp"] == "B2C_1_susi"


def test_sign_up_page_survives_reload_and_back(server, chromium, listener):
    app = policy_request(server, listener, "B2C_1_susi")
    chromium.open(app.url)
    on_page(chromium, "localAccountForm")
    chromium.click("createAccount")
    # The sign-up page is a GET of …/authorize?ctx=…&action=showSignUp: Reload repeats it.
    on_page(chromium, "attributeVerification", shot="b2c-sign-up")
    # Back to the sign-in page and forward again: both pages still work.
    chromium.back()
    on_page(chromium, "localAccountForm")
    chromium.click("createAccount")
    on_page(chromium, "attributeVerification", reload=False)
    email = f"new-{uuid.uuid4().hex[:8]}@fabrikam.test"
    chromium.fill({"email": email, "newPassword": "Secr3t!pass", "reenterPassword": "Secr3t!pass", "givenName": "Ada", "surname": "Lovelace"}, submit="continue")
    tokens = app.redeem()
    assert claims(tokens["id_token"])["newUser"] is True
    assert claims(tokens["id_token"])["emails"] == [email]


def test_forgot_password_then_the_reset_policy(server, chromium, listener):
    app = policy_request(server, listener, "B2C_1_susi")
    chromium.open(app.url)
    on_page(chromium, "localAccountForm")
    chromium.click("forgotPassword")
    assert app.reply()["fields"]["error_description"].startswith("AADB2C90118")
    # The app then starts the password reset policy: email, code, new password — Reload on each page.
    reset = policy_request(server, listener, "B2C_1_reset")
    chromium.open(reset.url)
    on_page(chromium, "attributeVerification", shot="b2c-reset-email")
    sent = len(server.outbox(BEN))
    chromium.fill({"email": BEN}, submit="email_ver_but_send")
    on_page(chromium, "email_ver_input", shot="b2c-reset-code")
    # The code was mailed, and Reload (which repeats the post) mailed a new one: the newest is the one.
    for _ in range(50):
        if len(server.outbox(BEN)) >= sent + 2:
            break
        time.sleep(0.1)
    chromium.fill({"email_ver_input": server.outbox(BEN)[-1]["code"]}, submit="email_ver_but_verify")
    on_page(chromium, "reenterPassword", shot="b2c-reset-new-password")
    chromium.fill({"newPassword": "N3w!password", "reenterPassword": "N3w!password"}, submit="continue")
    assert claims(reset.redeem()["id_token"])["tfp"] == "B2C_1_reset"
    # The new password signs in from a browser without the session.
    chromium.fresh()
    again = policy_request(server, listener, "B2C_1_susi")
    chromium.open(again.url)
    sign_in(chromium, BEN, password="N3w!password")
    assert "code" in again.reply()["fields"]


def test_edit_profile_after_sign_in(server, chromium, listener):
    first = policy_request(server, listener, "B2C_1_susi")
    chromium.open(first.url)
    # A fresh account: the profile change stays out of the other tests.
    chromium.click("createAccount")
    email = f"edit-{uuid.uuid4().hex[:8]}@fabrikam.test"
    chromium.fill({"email": email, "newPassword": "Secr3t!pass", "reenterPassword": "Secr3t!pass"}, submit="continue")
    first.redeem()
    # The B2C session cookie signs the edit-profile policy in: straight to the profile page.
    edit = policy_request(server, listener, "B2C_1_edit_profile")
    chromium.open(edit.url)
    on_page(chromium, "displayName", shot="b2c-edit-profile")
    chromium.fill({"displayName": "Grace H", "givenName": "Grace"}, submit="continue")
    id_token = claims(edit.redeem()["id_token"])
    assert id_token["name"] == "Grace H" and id_token["given_name"] == "Grace"


def test_cancel_returns_to_the_app(server, chromium, listener):
    app = policy_request(server, listener, "B2C_1_susi")
    chromium.open(app.url)
    on_page(chromium, "localAccountForm")
    chromium.click("createAccount")
    on_page(chromium, "attributeVerification", reload=False)
    chromium.click("cancel")
    reply = app.reply()["fields"]
    assert reply["error"] == "access_denied" and reply["error_description"].startswith("AADB2C90091"), reply
