"""The native authentication API's request sequences as MSAL for iOS/macOS's controllers send them (its
MSALNativeAuthSignIn/SignUp/ResetPassword controllers and request-parameter tests: form bodies, the
`challenge_type` lists it builds, `client_info=true`, its headers), every answer checked by the rules MSAL's
response validators and error handler apply before they accept it. Each flow and each error branch MSAL's
integration tests cover that FakeEntra produces by itself is walked here."""
import uuid

import pytest
import requests

TENANT = "woodgrove.onmicrosoft.com"
JORDAN = "jordan@woodgrove.example"
PASSWORD = "Passw0rd!"
SCOPES = "openid profile offline_access"


class MSALRules:
    """What MSAL for iOS/macOS requires of an answer before it moves its state machine."""

    @staticmethod
    def error(response, error, code=None, suberror=None):
        # MSIDAADRequestErrorHandler reads an error body only for 400 and 401, and it must hold an `error` string.
        assert response.status_code in (400, 401), (response.status_code, response.text)
        body = response.json()
        assert isinstance(body.get("error"), str), body
        assert body["error"] == error, body
        if code is not None:
            assert body["error_codes"][0] == code, body    # the first code decides (invalid credentials, user not found)
        if suberror is not None:
            assert body.get("suberror") == suberror, body
        return body

    @staticmethod
    def success(response):
        assert response.status_code == 200, (response.status_code, response.text)
        assert response.headers["Content-Type"].startswith("application/json"), response.headers
        return response.json()

    @classmethod
    def continuation(cls, response):
        body = cls.success(response)
        assert isinstance(body.get("continuation_token"), str) and body["continuation_token"], body
        return body

    @classmethod
    def redirect(cls, response):
        body = cls.success(response)
        assert body.get("challenge_type") == "redirect", body
        return body

    @classmethod
    def challenge(cls, response):
        body = cls.success(response)
        # MSALNativeAuthInternalChallengeType: oob | password | redirect, anything else fails decoding.
        assert body.get("challenge_type") in ("oob", "password", "redirect"), body
        if body["challenge_type"] == "oob":
            for field in ("continuation_token", "challenge_target_label", "challenge_channel", "code_length"):
                assert field in body, (field, body)
            # MSALNativeAuthChannelType: isEmailType or isSMSType.
            assert isinstance(body["code_length"], int) and body["challenge_channel"] in ("email", "sms"), body
        if body["challenge_type"] == "password":
            assert body.get("continuation_token"), body
        return body

    @classmethod
    def tokens(cls, response):
        body = cls.success(response)
        # TokenSuccess in MSAL's integration tests, plus client_info that MSIDAADV2Oauth2Factory requires.
        for field in ("token_type", "scope", "expires_in", "ext_expires_in", "access_token", "id_token", "refresh_token", "client_info"):
            assert field in body, (field, body)
        assert body["token_type"] == "Bearer" and body["expires_in"] > 0, body
        return body


@pytest.fixture(scope="module")
def native(certs_dir):
    """A server of this module's own: its flows sign customers up and reset their passwords."""
    from real_servers import RunningServer
    server = RunningServer([], certs_dir)
    yield server
    server.stop()


class NativeClient:
    """The requests MSAL for iOS/macOS builds: form-encoded bodies, its headers, `redirect` always last."""

    def __init__(self, server, challenge_types=("oob", "password"), tenant=TENANT):
        self.server = server
        self.tenant = tenant
        self.client_id = str(uuid.uuid4())
        self.challenge_type = " ".join([t for t in ("oob", "password") if t in challenge_types] + ["redirect"])
        self.session = server.http_session()

    def post(self, path, **form):
        request_id = str(uuid.uuid4())
        headers = {"Accept": "application/json", "return-client-request-id": "true", "client-request-id": request_id,
                   "x-client-SKU": "MSAL.iOS", "x-client-Ver": "2.0.0", "x-client-OS": "17.0", "x-ms-PkeyAuth+": "1.0"}
        response = self.session.post(f"{self.server.url}/{self.tenant}/{path}", data={"client_id": self.client_id, **form}, headers=headers, timeout=30)
        # MSAL adopts the server's correlation id from this header.
        assert response.headers.get("client-request-id") == request_id, response.headers
        return response

    def initiate(self, username):
        return self.post("oauth2/v2.0/initiate", username=username, challenge_type=self.challenge_type)

    def challenge(self, token, flow="oauth2/v2.0"):
        return self.post(f"{flow}/challenge", continuation_token=token, challenge_type=self.challenge_type)

    def token(self, grant_type, token, **form):
        extra = {"challenge_type": self.challenge_type} if grant_type in ("password", "continuation_token") else {}
        return self.post("oauth2/v2.0/token", grant_type=grant_type, continuation_token=token, scope=SCOPES, client_info="true", **extra, **form)


def new_address():
    return f"replay-{uuid.uuid4().hex[:10]}@woodgrove.example"


def code(server, address):
    return server.outbox(address)[-1]["code"]


def sign_up_with_code(server, client, address, **start):
    started = MSALRules.continuation(client.post("signup/v1.0/start", username=address, challenge_type=client.challenge_type, **start))
    challenged = MSALRules.challenge(client.challenge(started["continuation_token"], "signup/v1.0"))
    assert challenged["challenge_type"] == "oob"
    return client.post("signup/v1.0/continue", continuation_token=challenged["continuation_token"], grant_type="oob", oob=code(server, address))


# MARK: sign-in

def test_sign_in_with_a_password_and_its_error_branches(native):
    client = NativeClient(native)
    MSALRules.error(client.initiate("nobody@woodgrove.example"), "user_not_found", 50034)
    started = MSALRules.continuation(client.initiate(JORDAN))
    challenged = MSALRules.challenge(client.challenge(started["continuation_token"]))
    assert challenged["challenge_type"] == "password"
    MSALRules.error(client.token("password", challenged["continuation_token"], username=JORDAN, password="wrong"), "invalid_grant", 50126)
    MSALRules.tokens(client.token("password", challenged["continuation_token"], username=JORDAN, password=PASSWORD))


def test_a_password_customer_in_an_app_that_only_shows_codes_goes_to_the_browser(native):
    client = NativeClient(native, challenge_types=("oob",))
    started = MSALRules.continuation(client.initiate(JORDAN))
    MSALRules.redirect(client.challenge(started["continuation_token"]))


def test_a_challenge_type_list_without_redirect_is_refused(native):
    client = NativeClient(native)
    MSALRules.error(client.post("oauth2/v2.0/initiate", username=JORDAN, challenge_type="oob password"), "invalid_request", 901007)


def test_sign_in_with_a_code_a_wrong_code_and_a_resend(native):
    address = new_address()
    MSALRules.continuation(sign_up_with_code(native, NativeClient(native, challenge_types=("oob",)), address,
                                             attributes='{"displayName": "Replay"}'))
    client = NativeClient(native, challenge_types=("oob",))
    started = MSALRules.continuation(client.initiate(address))
    first = MSALRules.challenge(client.challenge(started["continuation_token"]))
    assert first["challenge_type"] == "oob"
    first_code = code(native, address)
    MSALRules.error(client.token("oob", first["continuation_token"], oob="00000000"), "invalid_grant", 50181, "invalid_oob_value")
    resent = MSALRules.challenge(client.challenge(first["continuation_token"]))
    second_code = code(native, address)
    if second_code != first_code:
        MSALRules.error(client.token("oob", resent["continuation_token"], oob=first_code), "invalid_grant", 50181, "invalid_oob_value")
    MSALRules.tokens(client.token("oob", resent["continuation_token"], oob=second_code))


def test_an_expired_continuation_token(native):
    client = NativeClient(native)
    started = MSALRules.continuation(client.initiate(JORDAN))
    native.advance_clock(601)
    MSALRules.error(client.challenge(started["continuation_token"]), "expired_token", 55112)


# MARK: sign-up

def test_sign_up_with_a_password_and_attributes_up_front(native):
    client = NativeClient(native)
    address = new_address()
    MSALRules.error(client.post("signup/v1.0/start", username=address, password="short", challenge_type=client.challenge_type),
                    "invalid_grant", suberror="password_too_short")
    MSALRules.error(client.post("signup/v1.0/start", username="invalid", challenge_type=client.challenge_type), "invalid_request", 90100)
    done = MSALRules.continuation(sign_up_with_code(native, client, address, password="Str0ng!pass", attributes='{"displayName": "Up Front"}'))
    MSALRules.tokens(client.token("continuation_token", done["continuation_token"], username=address))
    MSALRules.error(client.post("signup/v1.0/start", username=address, challenge_type=client.challenge_type), "user_already_exists", 1003037)


def test_sign_up_with_the_code_first_then_the_password_then_the_attributes(native):
    client = NativeClient(native)
    address = new_address()
    verified = MSALRules.error(sign_up_with_code(native, client, address), "credential_required", 55103)
    password_step = MSALRules.challenge(client.challenge(verified["continuation_token"], "signup/v1.0"))
    assert password_step["challenge_type"] == "password"
    attributes = MSALRules.error(client.post("signup/v1.0/continue", continuation_token=password_step["continuation_token"],
                                             grant_type="password", password="Str0ng!pass"), "attributes_required", 55106)
    assert attributes["continuation_token"] and all({"name", "type", "required"} <= set(a) for a in attributes["required_attributes"]), attributes
    done = MSALRules.continuation(client.post("signup/v1.0/continue", continuation_token=attributes["continuation_token"],
                                              grant_type="attributes", attributes='{"displayName": "Later"}'))
    tokens = MSALRules.tokens(client.token("continuation_token", done["continuation_token"], username=address))
    assert tokens["scope"]


# MARK: password reset

def test_password_reset_and_its_error_branches(native):
    client = NativeClient(native)
    MSALRules.error(client.post("resetpassword/v1.0/start", username="nobody@woodgrove.example", challenge_type=client.challenge_type),
                    "user_not_found", 50034)
    address = new_address()
    done = MSALRules.continuation(sign_up_with_code(native, client, address, password="Str0ng!pass", attributes='{"displayName": "Reset"}'))
    MSALRules.tokens(client.token("continuation_token", done["continuation_token"], username=address))
    started = MSALRules.continuation(client.post("resetpassword/v1.0/start", username=address, challenge_type=client.challenge_type))
    challenged = MSALRules.challenge(client.challenge(started["continuation_token"], "resetpassword/v1.0"))
    assert challenged["challenge_type"] == "oob"
    MSALRules.error(client.post("resetpassword/v1.0/continue", continuation_token=challenged["continuation_token"], grant_type="oob", oob="00000000"),
                    "invalid_grant", 50181, "invalid_oob_value")
    verified = MSALRules.continuation(client.post("resetpassword/v1.0/continue", continuation_token=challenged["continuation_token"],
                                                  grant_type="oob", oob=code(native, address)))
    assert 0 < verified["expires_in"] <= 600, verified
    MSALRules.error(client.post("resetpassword/v1.0/submit", continuation_token=verified["continuation_token"], new_password="weakweakweak"),
                    "invalid_grant", suberror="password_too_weak")
    submitted = MSALRules.continuation(client.post("resetpassword/v1.0/submit", continuation_token=verified["continuation_token"], new_password="N3w!password"))
    assert isinstance(submitted["poll_interval"], int), submitted
    polled = MSALRules.continuation(client.post("resetpassword/v1.0/poll_completion", continuation_token=submitted["continuation_token"]))
    assert polled["status"] == "succeeded"
    MSALRules.tokens(client.token("continuation_token", polled["continuation_token"], username=address))
    # The new password signs in; the old one no longer does.
    again = MSALRules.challenge(client.challenge(MSALRules.continuation(client.initiate(address))["continuation_token"]))
    MSALRules.error(client.token("password", again["continuation_token"], username=address, password="Str0ng!pass"), "invalid_grant", 50126)
    MSALRules.tokens(client.token("password", again["continuation_token"], username=address, password="N3w!password"))


def test_password_reset_of_a_customer_who_signs_in_with_codes(native):
    client = NativeClient(native, challenge_types=("oob",))
    address = new_address()
    MSALRules.continuation(sign_up_with_code(native, client, address, attributes='{"displayName": "Codes Only"}'))
    body = MSALRules.error(client.post("resetpassword/v1.0/start", username=address, challenge_type=client.challenge_type), "invalid_request", 500222)
    assert "does not support native credential recovery" in body["error_description"]


# MARK: a second factor

JORDAN_UPN = "4a7c9e21-3b5d-4f8a-b6c0-2e1d9f8a7b63@woodgrove.onmicrosoft.com"


def require_mfa(server, registered):
    response = server.control("PATCH", f"/_fakeentra/users/{JORDAN_UPN}", json={"mfaRequired": True, "mfaRegistered": registered})
    assert response.status_code == 200, response.text


def first_factor(client, capabilities):
    started = MSALRules.continuation(client.post("oauth2/v2.0/initiate", username=JORDAN, challenge_type=client.challenge_type,
                                                 **({"capabilities": capabilities} if capabilities else {})))
    challenged = MSALRules.challenge(client.challenge(started["continuation_token"]))
    return client.token("password", challenged["continuation_token"], username=JORDAN, password=PASSWORD)


def test_multifactor_authentication_and_just_in_time_registration(native):
    client = NativeClient(native)
    try:
        # Not registered: registration first, the proven email preverified.
        require_mfa(native, registered=False)
        MSALRules.redirect(first_factor(client, None))
        demanded = MSALRules.error(first_factor(client, "mfa_required registration_required"), "invalid_grant", 50076, "registration_required")
        listed = MSALRules.continuation(client.post("register/v1.0/introspect", continuation_token=demanded["continuation_token"]))
        assert listed["methods"] and all({"id", "challenge_type", "challenge_channel"} <= set(m) for m in listed["methods"]), listed
        preverified = MSALRules.continuation(client.post("register/v1.0/challenge", continuation_token=listed["continuation_token"], challenge_type="oob",
                                                         challenge_target=JORDAN, challenge_channel="email"))
        assert preverified["challenge_type"] == "preverified", preverified
        registered = MSALRules.continuation(client.post("register/v1.0/continue", continuation_token=preverified["continuation_token"],
                                                        grant_type="continuation_token"))
        MSALRules.tokens(client.token("continuation_token", registered["continuation_token"]))
        # Registered: the second factor itself, through introspect and a mailed code.
        demanded = MSALRules.error(first_factor(client, "mfa_required registration_required"), "invalid_grant", 50076, "mfa_required")
        methods = MSALRules.continuation(client.post("oauth2/v2.0/introspect", continuation_token=demanded["continuation_token"]))
        method = methods["methods"][0]
        assert {"id", "challenge_type", "challenge_channel"} <= set(method) and method["challenge_type"] in ("oob", "password", "redirect"), method
        sent = MSALRules.challenge(client.post("oauth2/v2.0/challenge", continuation_token=methods["continuation_token"], id=method["id"],
                                               challenge_type=client.challenge_type))
        assert sent["challenge_type"] == "oob"
        MSALRules.error(client.post("oauth2/v2.0/token", grant_type="mfa_oob", continuation_token=sent["continuation_token"], oob="00000000",
                                    scope=SCOPES, client_info="true"), "invalid_grant", 50181, "invalid_oob_value")
        MSALRules.tokens(client.post("oauth2/v2.0/token", grant_type="mfa_oob", continuation_token=sent["continuation_token"],
                                     oob=code(native, JORDAN), scope=SCOPES, client_info="true"))
        # With a mobile phone: a second method, texted.
        response = native.control("PATCH", f"/_fakeentra/users/{JORDAN_UPN}", json={"mobilePhone": "+1 425 555 0142"})
        assert response.status_code == 200, response.text
        demanded = MSALRules.error(first_factor(client, "mfa_required registration_required"), "invalid_grant", 50076, "mfa_required")
        methods = MSALRules.continuation(client.post("oauth2/v2.0/introspect", continuation_token=demanded["continuation_token"]))
        sms = next(m for m in methods["methods"] if m["challenge_channel"] == "sms")
        assert sms["login_hint"] == "+* *** *** **42" and sms["id"] != methods["methods"][0]["id"], methods
        texted = MSALRules.challenge(client.post("oauth2/v2.0/challenge", continuation_token=methods["continuation_token"], id=sms["id"],
                                                 challenge_type=client.challenge_type))
        assert texted["challenge_channel"] == "sms" and texted["challenge_target_label"] == "+* *** *** **42", texted
        MSALRules.tokens(client.post("oauth2/v2.0/token", grant_type="mfa_oob", continuation_token=texted["continuation_token"],
                                     oob=code(native, "+1 425 555 0142"), scope=SCOPES, client_info="true"))
    finally:
        response = native.control("PATCH", f"/_fakeentra/users/{JORDAN_UPN}", json={"mfaRequired": False, "mobilePhone": None})
        assert response.status_code == 200, response.text


# MARK: a user flow of the tenant's own

FABRIKAM = "fabrikamshop.onmicrosoft.com"
USER_FLOW_CONFIG = {"tenants": [{
    "id": "3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1a", "displayName": "Fabrikam Shop", "domains": [FABRIKAM], "kind": "external",
    "userFlow": {"emailMethod": "emailOneTimePasscode", "attributes": [
        {"name": "displayName", "required": True}, {"name": "postalCode", "required": True, "regex": "^[0-9]{5}$"}]},
}]}


@pytest.fixture(scope="module")
def fabrikam(certs_dir, tmp_path_factory):
    from real_servers import RunningServerWithConfig
    server = RunningServerWithConfig(USER_FLOW_CONFIG, certs_dir, tmp_path_factory.mktemp("user-flow"))
    yield server
    server.stop()


def test_a_one_time_passcode_user_flow_and_its_attribute_rules(fabrikam):
    client = NativeClient(fabrikam, tenant=FABRIKAM)
    address = f"replay-{uuid.uuid4().hex[:10]}@fabrikam.example"
    # MSAL's sign-up start errors: unsupported_auth_method for a password this user flow does not keep...
    MSALRules.error(client.post("signup/v1.0/start", username=address, password="Str0ng!pass", challenge_type=client.challenge_type),
                    "unsupported_auth_method")
    # ...and attribute_validation_failed, which MSALNativeAuthSignUpResponseValidator accepts only with names.
    refused = MSALRules.error(client.post("signup/v1.0/start", username=address, challenge_type=client.challenge_type,
                                          attributes='{"displayName": "Otto", "postalCode": "98O52"}'),
                              "invalid_grant", suberror="attribute_validation_failed")
    assert [a["name"] for a in refused["invalid_attributes"]] == ["postalCode"], refused
    # The code proves the address; no password is asked; the rule travels in required_attributes.
    missing = MSALRules.error(sign_up_with_code(fabrikam, client, address, attributes='{"displayName": "Otto"}'), "attributes_required", 55106)
    assert missing["required_attributes"] == [{"name": "postalCode", "type": "string", "required": True, "options": {"regex": "^[0-9]{5}$"}}], missing
    done = MSALRules.continuation(client.post("signup/v1.0/continue", continuation_token=missing["continuation_token"],
                                              grant_type="attributes", attributes='{"postalCode": "98052"}'))
    MSALRules.tokens(client.token("continuation_token", done["continuation_token"], username=address))
    # Signing in again is with a code: the challenge says oob even to an app that can show a password.
    started = MSALRules.continuation(client.initiate(address))
    assert MSALRules.challenge(client.challenge(started["continuation_token"]))["challenge_type"] == "oob"
