"""External ID's sign-up and sign-in pages in headless Chromium, JavaScript off: a new customer's address
proven with the code the outbox holds, then the account, the app's redirect and the tokens; Reload on each page."""
import uuid

from chromium import AppRequest, chromium, chromium_session, claims, listener, on_page, server  # noqa: F401 (fixtures)

WOODGROVE = "woodgrove.onmicrosoft.com"
WOODGROVE_ID = "8b3f2a6e-1c4d-4f7a-9e25-6d0c1b7a4f93"


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
    chromium.fill({"MemberName": address, "PasswordInput": "Str0ng!pass"}, submit="idSIButton9")
    on_page(chromium, "VerificationCode", reload=False)
    chromium.fill({"VerificationCode": "00000000"}, submit="idSIButton9")
    chromium.wait_for("verificationError")
    assert "AADSTS50181" in chromium.text()
    chromium.fill({"VerificationCode": server.outbox(address)[-1]["code"]}, submit="idSIButton9")
    assert claims(app.redeem()["id_token"])["preferred_username"] == address
