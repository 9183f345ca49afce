"""External ID's sign-up and sign-in pages in headless Chromium, JavaScript off: a new customer's address
proven with the code the outbox holds, then the account, the app's redirect and the tokens; sign-in with a
one-time passcode; a forgotten password reset; a user flow's own attributes. Reload on each page that
shows no code."""
import uuid

import pytest

from chromium import AppRequest, chromium, chromium_session, claims, listener, on_page  # noqa: F401 (fixtures)

WOODGROVE = "woodgrove.onmicrosoft.com"
WOODGROVE_ID = "8b3f2a6e-1c4d-4f7a-9e25-6d0c1b7a4f93"
# A second external tenant whose user flow signs customers in with codes and asks for a postal code.
FABRIKAM = "fabrikamshop.onmicrosoft.com"
LOYALTY = "extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_loyaltyNumber"
CONFIG = {
    "tenants": [{
        "id": "3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1a", "displayName": "Fabrikam Shop", "domains": [FABRIKAM], "kind": "external",
        "userFlow": {"emailMethod": "emailOneTimePasscode", "attributes": [
            {"name": "displayName", "required": True},
            {"name": "postalCode", "required": True, "regex": "^[0-9]{5}$"},
            {"name": LOYALTY, "label": "Loyalty number", "type": "int"},
        ]},
    }],
    "users": [{"tenant": WOODGROVE, "userPrincipalName": "pat@woodgrove.onmicrosoft.com", "mail": "pat@woodgrove.example",
               "displayName": "Pat Forgetful", "password": "Old!passw0rd"}],
}


@pytest.fixture(scope="module")
def server(certs_dir, tmp_path_factory):
    """This module's own server: its pages create accounts and change passwords."""
    from real_servers import RunningServerWithConfig
    s = RunningServerWithConfig(CONFIG, certs_dir, tmp_path_factory.mktemp("external-id"))
    yield s
    s.stop()


def test_a_new_customer_signs_up_with_a_verified_email_then_signs_in(server, chromium, listener):
    base = f"{server.url}/{WOODGROVE}"
    address = f"chromium-{uuid.uuid4().hex[:8]}@woodgrove.example"
    app = AppRequest(server, listener, base, prompt="create")
    chromium.open(app.url)
    on_page(chromium, "MemberName", shot="external-id-sign-up", reload=False)
    chromium.fill({"MemberName": address, "DisplayName": "Chromium Customer", "PasswordInput": "Str0ng!pass"}, submit="idSIButton9")
    on_page(chromium, "VerificationCode", shot="external-id-verify-email", reload=False)
    assert address in chromium.text()
    code = server.outbox(address)[-1]["code"]
    chromium.fill({"VerificationCode": code}, submit="idSIButton9")
    tokens = app.redeem()
    id_token = claims(tokens["id_token"])
    assert id_token["preferred_username"] == address and id_token["name"] == "Chromium Customer"
    assert id_token["tid"] == WOODGROVE_ID and id_token["iss"] == f"{server.url}/{WOODGROVE_ID}/v2.0"
    # The customer signs in later with the email and password they chose.
    chromium.fresh()
    again = AppRequest(server, listener, base, prompt="login")
    chromium.open(again.url)
    on_page(chromium, "i0116", shot="external-id-sign-in")
    chromium.fill({"i0116": address, "i0118": "Str0ng!pass"}, submit="idSIButton9")
    assert claims(again.redeem()["id_token"])["preferred_username"] == address


def test_a_wrong_code_is_refused_on_the_page_and_the_right_one_still_works(server, chromium, listener):
    address = f"wrong-code-{uuid.uuid4().hex[:8]}@woodgrove.example"
    app = AppRequest(server, listener, f"{server.url}/{WOODGROVE}", prompt="create")
    chromium.open(app.url)
    on_page(chromium, "MemberName", reload=False)
    chromium.fill({"MemberName": address, "DisplayName": "Wrong Code", "PasswordInput": "Str0ng!pass"}, submit="idSIButton9")
    on_page(chromium, "VerificationCode", reload=False)
    chromium.fill({"VerificationCode": "00000000"}, submit="idSIButton9")
    chromium.wait_for("verificationError")
    assert "AADSTS50181" in chromium.text()
    chromium.fill({"VerificationCode": server.outbox(address)[-1]["code"]}, submit="idSIButton9")
    assert claims(app.redeem()["id_token"])["preferred_username"] == address


def test_a_forgotten_password_is_reset_with_a_mailed_code(server, chromium, listener):
    app = AppRequest(server, listener, f"{server.url}/{WOODGROVE}")
    chromium.open(app.url)
    on_page(chromium, "idA_PWD_ForgotPassword")
    chromium.type("i0116", "pat@woodgrove.example")
    chromium.click("idA_PWD_ForgotPassword")
    on_page(chromium, "ResetEmail", shot="external-id-reset-password")
    assert chromium.find("ResetEmail").get_attribute("value") == "pat@woodgrove.example"
    chromium.click("idSIButton9")
    on_page(chromium, "idTxtBx_OTC_Password", shot="external-id-reset-code", reload=False)
    chromium.fill({"idTxtBx_OTC_Password": server.outbox("pat@woodgrove.example")[-1]["code"]}, submit="idSIButton9")
    on_page(chromium, "newPassword", shot="external-id-new-password")
    chromium.fill({"newPassword": "password1", "confirmNewPassword": "password1"}, submit="idSIButton9")
    chromium.wait_for("newPasswordError")
    assert "too weak" in chromium.text()
    chromium.fill({"newPassword": "N3w!passw0rd", "confirmNewPassword": "N3w!passw0rd"}, submit="idSIButton9")
    assert claims(app.redeem()["id_token"])["preferred_username"] == "pat@woodgrove.example"
    # The new password signs in; the old one no longer does.
    chromium.fresh()
    again = AppRequest(server, listener, f"{server.url}/{WOODGROVE}", prompt="login")
    chromium.open(again.url)
    chromium.fill({"i0116": "pat@woodgrove.example", "i0118": "Old!passw0rd"}, submit="idSIButton9")
    chromium.wait_for("passwordError")
    chromium.fill({"i0118": "N3w!passw0rd"}, submit="idSIButton9")
    assert claims(again.redeem()["id_token"])["preferred_username"] == "pat@woodgrove.example"


def test_a_one_time_passcode_user_flow_signs_up_with_its_attributes_and_signs_in_with_a_code(server, chromium, listener):
    base = f"{server.url}/{FABRIKAM}"
    address = f"otp-{uuid.uuid4().hex[:8]}@fabrikam.example"
    app = AppRequest(server, listener, base, prompt="create")
    chromium.open(app.url)
    on_page(chromium, "postalCode", shot="external-id-sign-up-attributes", reload=False)
    assert not chromium.has("PasswordInput"), "a one-time-passcode user flow keeps no password"
    chromium.fill({"MemberName": address, "DisplayName": "Otto Passcode", "postalCode": "98O52"}, submit="idSIButton9")
    chromium.wait_for("signupError")
    assert "Please enter a valid Postal Code." in chromium.text()
    chromium.fill({"postalCode": "98052", LOYALTY: "1234"}, submit="idSIButton9")
    on_page(chromium, "VerificationCode", reload=False)
    chromium.fill({"VerificationCode": server.outbox(address)[-1]["code"]}, submit="idSIButton9")
    assert claims(app.redeem()["id_token"])["name"] == "Otto Passcode"
    customer = next(u for u in server.control("GET", "/_fakeentra/users").json()["users"] if u.get("mail") == address)
    assert customer["attributes"] == {"postalCode": "98052", LOYALTY: "1234"}, customer
    # Signing in again: the email, then the code mailed to it.
    chromium.fresh()
    again = AppRequest(server, listener, base, prompt="login")
    chromium.open(again.url)
    on_page(chromium, "i0116", shot="external-id-sign-in-otp")
    assert not chromium.has("i0118")
    chromium.fill({"i0116": address}, submit="idSIButton9")
    on_page(chromium, "idTxtBx_OTC_Password", shot="external-id-email-code", reload=False)
    chromium.fill({"idTxtBx_OTC_Password": server.outbox(address)[-1]["code"]}, submit="idSIButton9")
    assert claims(again.redeem()["id_token"])["preferred_username"] == address
