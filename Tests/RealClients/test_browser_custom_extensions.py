"""External ID's sign-up pages in headless Chromium with custom authentication extensions listening: the
attribute page prefilled by OnAttributeCollectionStart, the submitted attributes refused, changed or the
sign-up blocked by OnAttributeCollectionSubmit, each call carrying the documented payload; and its sign-in
page with OnPasswordSubmit, a legacy password blocked or accepted but to be changed."""
import uuid

import pytest

from chromium import AppRequest, chromium, chromium_session, claims, listener, on_page  # noqa: F401 (fixtures)
from fakeentra.extensions import (ExtensionEndpoint, block_sign_in, continue_with_default_behavior, encryption_certificate,
                                  modify_attribute_values, set_prefill_values, show_block_page, show_validation_error, update_password)

SHOP = "contososhop.onmicrosoft.com"
SHOP_ID = "5d7f9b1c-3e5a-4c7e-9a1b-4f6a8c0e2d3b"
LOYALTY = "extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_loyaltyNumber"
MIGRATING = "extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_toBeMigrated"
LEGACY_PASSWORD = "Legacy-Secret-1"
ENCRYPTION_CERTIFICATE, ENCRYPTION_KEY = encryption_certificate()


def answer(call):
    """The developer's API: prefill the postal code; refuse 00000; block the 'blocked' addresses; otherwise
    store the name as the shop writes it. At sign-in: the legacy system locked blocked@ and knows a weak
    password for weak@."""
    if call.event == "passwordSubmit":
        context = call.password_context(ENCRYPTION_KEY)
        if context["username"].startswith("blocked@"):
            return block_sign_in(context["nonce"], title="Sign-in blocked", message="Your old account is locked. Please call us.")
        return update_password(context["nonce"])
    if call.event == "attributeCollectionStart":
        return set_prefill_values(postalCode="98052", ignoredAttribute="x")
    email = call.data["userSignUpInfo"]["identities"][0]["issuerAssignedId"]
    if email.startswith("blocked-"):
        return show_block_page("attributeCollectionSubmit", "Sign-ups from this address are closed.")
    if call.attributes.get("postalCode") == "00000":
        return show_validation_error("Please fix the below errors to proceed.", postalCode="We do not deliver to 00000.")
    if call.attributes.get("displayName", "").islower():
        return modify_attribute_values(displayName=call.attributes["displayName"].title())
    return continue_with_default_behavior("attributeCollectionSubmit")


@pytest.fixture(scope="module")
def endpoint():
    with ExtensionEndpoint(answer) as e:
        yield e


@pytest.fixture(scope="module")
def server(certs_dir, tmp_path_factory, endpoint):
    from real_servers import RunningServerWithConfig
    extension = {"targetUrl": endpoint.url, "resourceId": endpoint.resource_id(str(uuid.uuid4()))}
    config = {"tenants": [{
        "id": SHOP_ID, "displayName": "Contoso Shop", "domains": [SHOP], "kind": "external",
        "userFlow": {"attributes": [{"name": "displayName", "required": True}, {"name": "postalCode", "required": True},
                                    {"name": LOYALTY, "label": "Loyalty number", "type": "int"}]},
        "customAuthenticationExtensions": [{"displayName": "Prefill", "event": "attributeCollectionStart", **extension},
                                           {"displayName": "Validate", "event": "attributeCollectionSubmit", **extension},
                                           {"displayName": "Migrate", "event": "passwordSubmit", "migrationPropertyId": MIGRATING,
                                            "encryptionCertificate": ENCRYPTION_CERTIFICATE, **extension}],
    }], "users": [{"userPrincipalName": f"{name}-legacy@{SHOP}", "tenant": SHOP, "displayName": name, "mail": f"{name}@shop.example",
                   "password": "Unguessable-Temp-9f8e7d", "attributes": {MIGRATING: True}} for name in ("blocked", "weak")]}
    s = RunningServerWithConfig(config, certs_dir, tmp_path_factory.mktemp("custom-extensions"))
    yield s
    s.stop()


def test_the_page_is_prefilled_and_the_submitted_attributes_are_checked_and_changed(server, endpoint, chromium, listener):
    address = f"ada-{uuid.uuid4().hex[:8]}@contoso.example"
    app = AppRequest(server, listener, f"{server.url}/{SHOP}", prompt="create")
    before = len(endpoint.calls)
    chromium.open(app.url)
    on_page(chromium, "postalCode", shot="external-id-sign-up-extension-prefilled", reload=False)
    assert chromium.driver.find_element("id", "postalCode").get_attribute("value") == "98052"
    start = endpoint.calls[before]
    assert start.body["type"] == "microsoft.graph.authenticationEvent.attributeCollectionStart"
    assert start.data["@odata.type"] == "microsoft.graph.onAttributeCollectionStartCalloutData" and start.data["tenantId"] == SHOP_ID

    chromium.fill({"MemberName": address, "DisplayName": "ada lovelace", "postalCode": "00000", "PasswordInput": "Str0ng!pass"}, submit="idSIButton9")
    chromium.wait_for("signupError")
    chromium.shot("external-id-sign-up-extension-validation-error")
    assert "Please fix the below errors to proceed. Postal Code: We do not deliver to 00000." in chromium.text()
    submitted = endpoint.calls[-1]
    assert submitted.data["@odata.type"] == "microsoft.graph.onAttributeCollectionSubmitCalloutData"
    assert submitted.data["userSignUpInfo"]["attributes"]["postalCode"] == {
        "@odata.type": "microsoft.graph.stringDirectoryAttributeValue", "value": "00000", "attributeType": "builtIn"}
    assert "user" not in submitted.context, "the customer does not exist yet"

    chromium.fill({"postalCode": "98052", LOYALTY: "1234", "PasswordInput": "Str0ng!pass"}, submit="idSIButton9")
    assert endpoint.calls[-1].data["userSignUpInfo"]["attributes"][LOYALTY] == {
        "@odata.type": "microsoft.graph.int64DirectoryAttributeValue", "value": 1234, "attributeType": "directorySchemaExtension"}
    on_page(chromium, "VerificationCode", reload=False)
    chromium.fill({"VerificationCode": server.outbox(address)[-1]["code"]}, submit="idSIButton9")
    assert claims(app.redeem()["id_token"])["name"] == "Ada Lovelace", "the name the extension stored"


def test_a_blocked_sign_up_ends_on_the_extensions_message(server, endpoint, chromium, listener):
    address = f"blocked-{uuid.uuid4().hex[:8]}@contoso.example"
    app = AppRequest(server, listener, f"{server.url}/{SHOP}", prompt="create")
    chromium.open(app.url)
    on_page(chromium, "postalCode", reload=False)
    chromium.fill({"MemberName": address, "DisplayName": "Blocked Person", "PasswordInput": "Str0ng!pass"}, submit="idSIButton9")
    chromium.wait_for("blockMessage")
    chromium.shot("external-id-sign-up-extension-blocked")
    assert "Sign-ups from this address are closed." in chromium.text()
    assert not server.outbox(address), "no code is mailed to a blocked sign-up"
    assert not [u for u in server.control("GET", "/_fakeentra/users").json()["users"] if u.get("mail") == address]


def test_a_legacy_account_locked_there_ends_on_the_extensions_block_page(server, endpoint, chromium, listener):
    app = AppRequest(server, listener, f"{server.url}/{SHOP}")
    chromium.open(app.url)
    chromium.fill({"i0116": "blocked@shop.example", "i0118": LEGACY_PASSWORD}, submit="idSIButton9")
    chromium.wait_for("blockMessage")
    chromium.shot("external-id-sign-in-migration-blocked")
    assert "Sign-in blocked" in chromium.text() and "Your old account is locked. Please call us." in chromium.text()
    assert endpoint.calls[-1].data["@odata.type"] == "microsoft.graph.onPasswordSubmitCalloutData"


def test_a_weak_legacy_password_is_kept_and_must_be_changed_at_once(server, endpoint, chromium, listener):
    app = AppRequest(server, listener, f"{server.url}/{SHOP}")
    chromium.open(app.url)
    chromium.fill({"i0116": "weak@shop.example", "i0118": LEGACY_PASSWORD}, submit="idSIButton9")
    on_page(chromium, "currentPassword", shot="external-id-sign-in-migration-update-password", reload=False)
    assert endpoint.calls[-1].password_context(ENCRYPTION_KEY)["user-password"] == LEGACY_PASSWORD
    calls = len(endpoint.calls)
    chromium.fill({"currentPassword": LEGACY_PASSWORD, "newPassword": "N3w-Str0ng!pass", "confirmNewPassword": "N3w-Str0ng!pass"},
                  submit="idSIButton9")
    assert claims(app.redeem()["id_token"])["preferred_username"] == "weak@shop.example"
    assert len(endpoint.calls) == calls, "the legacy password was the account's once migrated: no second call"
