"""Native authentication V2 (preview) as the MSAL clients drive it: the request sequences of msal-browser's
V2 integration specs (SignInV2.spec.ts, SignUpV2.spec.ts, ResetPasswordV2.spec.ts) and MSAL for iOS's V2
controllers, sent to FakeEntra as they send them (form to the authorization challenge and the token
endpoint, JSON to the linked steps, PUT for the new password), following the links FakeEntra answers, and
each answer checked with what those clients require of it (the rules of MSAL for iOS's V2 response
validator and msal-browser's V2 handlers)."""
import base64
import json
import urllib.parse
import uuid

import pytest
import requests

WOODGROVE = "8b3f2a6e-1c4d-4f7a-9e25-6d0c1b7a4f93"
JORDAN, JORDAN_UPN, PASSWORD = "jordan@woodgrove.example", "4a7c9e21-3b5d-4f8a-b6c0-2e1d9f8a7b63@woodgrove.onmicrosoft.com", "Passw0rd!"
CLIENT = str(uuid.uuid4())


class Client:
    """What every V2 client does with the wire: links resolved against the authority as MSAL for iOS's
    HrefURLResolver does (everything before `/api/` or `/oauth2/` replaced by the authority's path)."""

    def __init__(self, server):
        self.server, self.authority = server, f"{server.url}/{WOODGROVE}"
        self.session = requests.Session()
        self.requests = 0

    def resolve(self, href):
        assert not href.startswith("http"), "relative links: MSAL Android refuses absolute ones to another host"
        path = href[href.index("/api/"):] if "/api/" in href else href[href.index("/oauth2/"):]
        return self.authority + path

    def form(self, path, **form):
        self.requests += 1
        return self.session.post(self.authority + path, data=form, headers={"client-request-id": str(uuid.uuid4())})

    def step(self, href, method="POST", **body):
        self.requests += 1
        answer = self.session.request(method, self.resolve(href), json=body, headers={"Accept": "application/json"})
        data = answer.json()
        if answer.status_code == 200:
            validate(data)
        return answer.status_code, data

    def entry(self, journey, **extra):
        answer = self.form("/oauth2/v2.0/authorize-challenge", client_id=CLIENT, **extra)
        assert answer.status_code == 401, answer.text
        body = answer.json()
        assert body["error"] == "InsufficientAuthorization" and body["continuation_token"] and body[journey].startswith(f"/{WOODGROVE}/api/")
        assert "code" not in body
        return body["continuation_token"], body[journey]

    def finish(self, token, scope="User.Read openid profile offline_access"):
        answer = self.form("/oauth2/v2.0/authorize-challenge", continuation_token=token)
        assert answer.status_code == 200, answer.text
        code = answer.json()["code"]
        tokens = self.form("/oauth2/v2.0/token", grant_type="authorization_code", code=code, client_id=CLIENT, client_info="true", scope=scope)
        assert tokens.status_code == 200, tokens.text
        return tokens.json()


def validate(data):
    """MSAL for iOS's V2 validator (MSALNativeAuthV2ResponseValidator.validateInteraction) and what
    msal-browser's V2 handlers require, on a successful step."""
    assert data.get("continuationToken"), "Missing continuation token in interaction response"
    assert "code" not in data, "a top-level code makes MSAL for iOS read an authorization code"
    links = data.get("_links", {})
    action, state = data.get("action"), data.get("state")
    if state == "continue":
        return
    assert state in ("interactionRequired", "webFallbackRequired")
    if state == "webFallbackRequired":
        return
    if action == "challenge":
        factor = data["challengeContext"]["authenticationFactor"]
        assert factor in ("singleFactor", "multiFactor")
        methods = data["_embedded"]["methods"]
        assert methods and all(m["id"] and m["_links"]["challenge"]["href"] for m in methods)
    elif action == "verify":
        assert links["verify"]["href"]
        if data["type"] == "password":
            assert "hint" not in data and "codeLength" not in data, "MSAL for iOS reads a hint or a length as a code"
        else:
            assert isinstance(data["codeLength"], int) and data["codeLength"] > 0 and data["hint"] and links["resend"]["href"]
    elif action in ("register", "enroll"):
        # MSAL for iOS's V2 branch: the top-level link of the action's name, the methods with their own.
        assert links[action]["href"] and all(m["_links"] for m in data["_embedded"]["methods"])
    elif action == "activate":
        assert links["activate"]["href"] and data["hint"] and isinstance(data["codeLength"], int) and data["type"]
    elif action == "riskverify":
        # msal-browser: "missing 'riskverify' link"; the next answer must be an SMS verify.
        assert links["riskverify"]["href"]
    elif action == "update":
        assert links["update"]["href"]
    elif action == "poll":
        assert links["poll"]["href"]
    elif action == "collectAttributes":
        assert links["submitAttributes"]["href"] and all(a["attributeId"] for a in data["attributes"])
    else:
        raise AssertionError(f"Unexpected action '{action}'")


def nested_error(status, data, inner=None, aadsts=None):
    error = data["error"]
    assert isinstance(error, dict) and error["correlationId"] and error["correlation_id"] == error["correlationId"] and error["traceId"]
    if inner:
        assert error["innerError"]["code"] == inner
    if aadsts:
        assert error["message"].startswith(f"AADSTS{aadsts}:")
    return status


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


@pytest.fixture
def server(make_server):
    """A server of this test's own: the journeys create customers and change passwords."""
    return make_server()


def test_sign_in_with_a_password_in_six_requests(server):
    client = Client(server)
    token, sign_in = client.entry("sign_in")
    status, start = client.step(sign_in, username=JORDAN, continuationToken=token)
    assert start["action"] == "challenge" and start["challengeContext"]["authenticationFactor"] == "singleFactor"
    password_method = start["_embedded"]["methods"][0]
    assert password_method["type"] == "password", "the password first: an earlier MSAL for iOS challenges the first method"
    status, challenge = client.step(password_method["_links"]["challenge"]["href"], continuationToken=start["continuationToken"])
    assert challenge["action"] == "verify" and challenge["type"] == "password"
    status, wrong = client.step(challenge["_links"]["verify"]["href"], continuationToken=challenge["continuationToken"], password="nope")
    assert nested_error(status, wrong, "invalidUserNameOrPassword", 50126) == 400
    status, verified = client.step(challenge["_links"]["verify"]["href"], continuationToken=challenge["continuationToken"], password=PASSWORD)
    assert verified["state"] == "continue"
    tokens = client.finish(verified["continuationToken"])
    assert client.requests == 7, "six requests, and the wrong password"
    id_token = claims(tokens["id_token"])
    assert id_token["preferred_username"] == JORDAN and id_token["tid"] == WOODGROVE and tokens["client_info"] and tokens["refresh_token"]
    assert claims(tokens["access_token"])["scp"] == "User.Read"
    # The finished journey's token is spent with the code.
    assert client.form("/oauth2/v2.0/authorize-challenge", continuation_token=verified["continuationToken"]).status_code == 400


def test_sign_in_with_a_mailed_code_resent_once(server):
    client = Client(server)
    token, sign_in = client.entry("sign_in")
    _, start = client.step(sign_in, username=JORDAN, continuationToken=token)
    email = next(m for m in start["_embedded"]["methods"] if m["type"] == "email")
    _, sent = client.step(email["_links"]["challenge"]["href"], continuationToken=start["continuationToken"])
    first = server.outbox(JORDAN)[-1]["code"]
    _, resent = client.step(sent["_links"]["resend"]["href"], continuationToken=sent["continuationToken"])
    second = server.outbox(JORDAN)[-1]["code"]
    assert first != second and len(second) == resent["codeLength"]
    status, refused = client.step(resent["_links"]["verify"]["href"], continuationToken=resent["continuationToken"], otp=first)
    assert nested_error(status, refused, "invalidOneTimeCode", 50181) == 400, "the code resent replaces the first"
    _, verified = client.step(resent["_links"]["verify"]["href"], continuationToken=resent["continuationToken"], otp=second)
    assert claims(client.finish(verified["continuationToken"])["id_token"])["preferred_username"] == JORDAN


def test_a_second_factor_after_the_password(server):
    server.control("PATCH", f"/_fakeentra/users/{JORDAN_UPN}", json={"mfaRequired": True, "mfaRegistered": True})
    client = Client(server)
    token, sign_in = client.entry("sign_in")
    _, start = client.step(sign_in, username=JORDAN, continuationToken=token)
    _, challenge = client.step(start["_embedded"]["methods"][0]["_links"]["challenge"]["href"], continuationToken=start["continuationToken"])
    _, mfa = client.step(challenge["_links"]["verify"]["href"], continuationToken=challenge["continuationToken"], password=PASSWORD)
    assert mfa["action"] == "challenge" and mfa["challengeContext"]["authenticationFactor"] == "multiFactor"
    _, sent = client.step(mfa["_embedded"]["methods"][0]["_links"]["challenge"]["href"], continuationToken=mfa["continuationToken"])
    _, verified = client.step(sent["_links"]["verify"]["href"], continuationToken=sent["continuationToken"], otp=server.outbox(JORDAN)[-1]["code"])
    assert verified["state"] == "continue"
    assert claims(client.finish(verified["continuationToken"])["access_token"])["amr"] == ["pwd", "mfa"]



def sms_second_factor(server, phone):
    """A password sign-in of a user with a second factor and `phone`, up to the text-message method: the
    client, the method, and the answer that lists it."""
    server.control("PATCH", f"/_fakeentra/users/{JORDAN_UPN}", json={"mfaRequired": True, "mfaRegistered": True, "mobilePhone": phone})
    client = Client(server)
    token, sign_in = client.entry("sign_in")
    _, start = client.step(sign_in, username=JORDAN, continuationToken=token)
    _, challenge = client.step(start["_embedded"]["methods"][0]["_links"]["challenge"]["href"], continuationToken=start["continuationToken"])
    _, mfa = client.step(challenge["_links"]["verify"]["href"], continuationToken=challenge["continuationToken"], password=PASSWORD)
    sms = next(m for m in mfa["_embedded"]["methods"] if m["type"] == "sms")
    return client, sms, mfa


def test_the_phone_check_sends_no_text_to_a_number_that_changed_meanwhile(server):
    """Between the method's challenge and the phone check the number becomes one no text can reach: the
    check refuses the method, and nothing is sent."""
    client, sms, mfa = sms_second_factor(server, "+1 425 555 0114")
    _, risk = client.step(sms["_links"]["challenge"]["href"], continuationToken=mfa["continuationToken"])
    assert risk["action"] == "riskverify"
    server.control("PATCH", f"/_fakeentra/users/{JORDAN_UPN}", json={"mobilePhone": "12"})
    status, refused = client.step(risk["_links"]["riskverify"]["href"], continuationToken=risk["continuationToken"])
    assert nested_error(status, refused, aadsts=90100) == 400, refused
    assert not server.outbox("12") and not server.outbox("+1 425 555 0114")


def test_a_second_factor_by_text_message_after_the_phone_check(server):
    """msal-browser's SMS MFA: the method's challenge answers riskverify, the check sends the code, a resend
    sends at once (a second riskverify in a row is an error to MSAL for iOS), the code verifies."""
    client, sms, mfa = sms_second_factor(server, "+1 425 555 0111")
    assert sms["id"] == "sms-mfa" and sms["hint"] == "+* *** *** **11", sms
    _, risk = client.step(sms["_links"]["challenge"]["href"], continuationToken=mfa["continuationToken"])
    assert risk["action"] == "riskverify" and not server.outbox("+1 425 555 0111"), "no text before the phone check"
    _, sent = client.step(risk["_links"]["riskverify"]["href"], continuationToken=risk["continuationToken"])
    assert sent["action"] == "verify" and sent["type"] == "sms" and sent["payload"]["codeLength"] == sent["codeLength"] == 8, sent
    _, resent = client.step(sent["_links"]["resend"]["href"], continuationToken=sent["continuationToken"])
    assert resent["action"] == "verify" and resent["type"] == "sms"
    texts = server.outbox("+1 425 555 0111")
    assert len(texts) == 2
    status, old = client.step(resent["_links"]["verify"]["href"], continuationToken=resent["continuationToken"], otp=texts[0]["code"])
    assert status == 400, "the resend replaced the first code"
    _, verified = client.step(resent["_links"]["verify"]["href"], continuationToken=resent["continuationToken"], otp=texts[-1]["code"])
    assert verified["state"] == "continue"
    assert claims(client.finish(verified["continuationToken"])["access_token"])["amr"] == ["pwd", "mfa"]


def register_after_the_password(server, client):
    server.control("PATCH", f"/_fakeentra/users/{JORDAN_UPN}", json={"mfaRequired": True, "mfaRegistered": False})
    token, sign_in = client.entry("sign_in")
    _, start = client.step(sign_in, username=JORDAN, continuationToken=token)
    _, challenge = client.step(start["_embedded"]["methods"][0]["_links"]["challenge"]["href"], continuationToken=start["continuationToken"])
    _, register = client.step(challenge["_links"]["verify"]["href"], continuationToken=challenge["continuationToken"], password=PASSWORD)
    assert register["action"] == "register" and register["challengeContext"]["authenticationFactor"] == "multiFactor", register
    return {m["type"]: m for m in register["_embedded"]["methods"]}, register["continuationToken"]


def test_registering_the_proven_email_as_a_second_factor(server):
    """MSAL for iOS's V2 registration: register with the contact as `target`, then `activate` with `code`."""
    client = Client(server)
    methods, token = register_after_the_password(server, client)
    status, refused = client.step(methods["email"]["_links"]["register"]["href"], continuationToken=token, target="someone@else.example")
    assert status == 400 and refused["error_codes"] == [901001], refused
    _, sent = client.step(methods["email"]["_links"]["register"]["href"], continuationToken=token, target=JORDAN)
    assert sent["action"] == "activate" and sent["type"] == "email" and sent["hint"] == "j*****@w********.e******", sent
    status, wrong = client.step(sent["_links"]["activate"]["href"], continuationToken=sent["continuationToken"], code="00000000")
    assert nested_error(status, wrong, "invalidOneTimeCode", 50181) == 400
    _, done = client.step(sent["_links"]["activate"]["href"], continuationToken=sent["continuationToken"], code=server.outbox(JORDAN)[-1]["code"])
    assert done["state"] == "continue"
    assert claims(client.finish(done["continuationToken"])["access_token"])["amr"] == ["pwd", "mfa"]
    user = next(u for u in server.control("GET", "/_fakeentra/users").json()["users"] if u["userPrincipalName"] == JORDAN_UPN)
    assert user["mfaRegistered"] is True


def test_registering_a_phone_number_makes_it_the_users(server):
    client = Client(server)
    methods, token = register_after_the_password(server, client)
    status, refused = client.step(methods["sms"]["_links"]["register"]["href"], continuationToken=token, target="call me")
    assert status == 400 and refused["error_codes"] == [901001], refused
    _, first = client.step(methods["sms"]["_links"]["register"]["href"], continuationToken=token, target="+1 425 555 0199")
    _, sent = client.step(methods["sms"]["_links"]["register"]["href"], continuationToken=first["continuationToken"], target="+1 425 555 0199")
    assert sent["action"] == "activate" and sent["type"] == "sms" and sent["hint"] == "+* *** *** **99"
    email_link = sent["_links"]["activate"]["href"].replace("/sms/sms-register/", "/email/email-register/")
    status, _ = client.step(email_link, continuationToken=sent["continuationToken"], code=server.outbox("+1 425 555 0199")[-1]["code"])
    assert status == 400, "a phone is activated at its own link only"
    status, _ = client.step(sent["_links"]["activate"]["href"], continuationToken=sent["continuationToken"], code=server.outbox("+1 425 555 0199")[0]["code"])
    assert status == 400, "registering again replaced the first code"
    _, done = client.step(sent["_links"]["activate"]["href"], continuationToken=sent["continuationToken"], code=server.outbox("+1 425 555 0199")[-1]["code"])
    assert done["state"] == "continue"
    user = next(u for u in server.control("GET", "/_fakeentra/users").json()["users"] if u["userPrincipalName"] == JORDAN_UPN)
    assert user["mfaRegistered"] is True and user["mobilePhone"] == "+1 425 555 0199"


def test_a_password_reset_by_text_message(server):
    """msal-browser's ResetPasswordV2.spec.ts: SMS as the reset's first factor, the phone checked first."""
    server.control("PATCH", f"/_fakeentra/users/{JORDAN_UPN}", json={"mobilePhone": "+1 425 555 0112"})
    client = Client(server)
    token, reset = client.entry("reset_password")
    _, start = client.step(reset, username=JORDAN, continuationToken=token)
    assert [m["type"] for m in start["_embedded"]["methods"]] == ["email", "sms"]
    # The customer asks for the email code first, then changes their mind.
    _, mailed = client.step(start["_embedded"]["methods"][0]["_links"]["challenge"]["href"], continuationToken=start["continuationToken"])
    _, risk = client.step(start["_embedded"]["methods"][1]["_links"]["challenge"]["href"], continuationToken=mailed["continuationToken"])
    _, sent = client.step(risk["_links"]["riskverify"]["href"], continuationToken=risk["continuationToken"])
    assert sent["scenario"] == "recovery" and sent["id"] == "sms"
    _, verified = client.step(sent["_links"]["verify"]["href"], continuationToken=sent["continuationToken"], otp=server.outbox("+1 425 555 0112")[-1]["code"])
    assert verified["action"] == "update"
    _, updated = client.step(verified["_links"]["update"]["href"], method="PUT", continuationToken=verified["continuationToken"], newPassword="N3w!passw0rd-sms")
    _, done = client.step(updated["_links"]["poll"]["href"], continuationToken=updated["continuationToken"])
    assert done["state"] == "continue"


def test_a_sign_in_cannot_start_with_a_text_message(server):
    """MSAL for iOS's isSupportedForSignIn is email or password: no sms among a sign-in's first methods."""
    server.control("PATCH", f"/_fakeentra/users/{JORDAN_UPN}", json={"mobilePhone": "+1 425 555 0113"})
    client = Client(server)
    token, sign_in = client.entry("sign_in")
    _, start = client.step(sign_in, username=JORDAN, continuationToken=token)
    assert "sms" not in [m["type"] for m in start["_embedded"]["methods"]]


def test_password_reset_then_sign_in_with_the_new_password(server):
    client = Client(server)
    token, reset = client.entry("reset_password")
    _, start = client.step(reset, username=JORDAN, continuationToken=token)
    assert start["challengeContext"]["authenticationFactor"] == "singleFactor" and start["_embedded"]["methods"][0]["type"] == "email"
    _, sent = client.step(start["_embedded"]["methods"][0]["_links"]["challenge"]["href"], continuationToken=start["continuationToken"])
    _, verified = client.step(sent["_links"]["verify"]["href"], continuationToken=sent["continuationToken"], otp=server.outbox(JORDAN)[-1]["code"])
    assert verified["action"] == "update"
    status, weak = client.step(verified["_links"]["update"]["href"], method="PUT", continuationToken=verified["continuationToken"], newPassword="short")
    assert nested_error(status, weak, "passwordTooWeak", 120002) == 400
    # The change is V1's: the password the customer has now is refused.
    status, same = client.step(verified["_links"]["update"]["href"], method="PUT", continuationToken=verified["continuationToken"], newPassword=PASSWORD)
    assert nested_error(status, same, "password_recently_used", 399246) == 400, same
    _, updated = client.step(verified["_links"]["update"]["href"], method="PUT", continuationToken=verified["continuationToken"], newPassword="N3w!passw0rd-v2")
    assert updated["action"] == "poll"
    _, done = client.step(updated["_links"]["poll"]["href"], continuationToken=updated["continuationToken"])
    assert done["state"] == "continue"
    assert claims(client.finish(done["continuationToken"])["id_token"])["preferred_username"] == JORDAN
    # The new password signs in.
    again = Client(server)
    token, sign_in = again.entry("sign_in")
    _, start = again.step(sign_in, username=JORDAN, continuationToken=token)
    _, challenge = again.step(start["_embedded"]["methods"][0]["_links"]["challenge"]["href"], continuationToken=start["continuationToken"])
    _, ok = again.step(challenge["_links"]["verify"]["href"], continuationToken=challenge["continuationToken"], password="N3w!passw0rd-v2")
    assert ok["state"] == "continue"


def test_sign_up_with_the_attributes_first_then_the_mailed_code(server):
    client = Client(server)
    address = f"v2-{uuid.uuid4().hex[:8]}@woodgrove.example"
    token, sign_up = client.entry("sign_up", scope="openid User.Read")
    _, start = client.step(sign_up, continuationToken=token)
    assert start["action"] == "collectAttributes" and "email" in [a["attributeId"] for a in start["attributes"]]
    href = start["_links"]["submitAttributes"]["href"]
    status, exists = client.step(href, continuationToken=start["continuationToken"], attributes={"email": JORDAN, "password": "P@ssword1!-x", "displayName": "J"})
    assert nested_error(status, exists, aadsts=1003037) == 400 and exists["error"]["innerError"]["details"][0]["code"] == "userAlreadyExists"
    _, sent = client.step(href, continuationToken=start["continuationToken"], attributes={"email": address, "password": "P@ssword1!-x", "displayName": "Test User"})
    assert sent["action"] == "verify" and sent["type"] == "email"
    _, done = client.step(sent["_links"]["verify"]["href"], continuationToken=sent["continuationToken"], otp=server.outbox(address)[-1]["code"])
    assert done["state"] == "continue"
    id_token = claims(client.finish(done["continuationToken"])["id_token"])
    assert id_token["preferred_username"] == address and id_token["name"] == "Test User"


def test_refusals_are_the_nested_errors_the_clients_map(server):
    client = Client(server)
    token, sign_in = client.entry("sign_in")
    status, unknown = client.step(sign_in, username="nobody@woodgrove.example", continuationToken=token)
    assert nested_error(status, unknown, aadsts=50034) == 400, "MSAL maps AADSTS50034 in the message to user not found"
    status, forged = client.step(sign_in, username=JORDAN, continuationToken="forged")
    assert nested_error(status, forged, "invalidContinuationToken") == 400
    # A V2 journey's token is nothing to the V1 endpoints, and a workforce tenant has no V2.
    v1 = client.session.post(f"{client.authority}/oauth2/v2.0/challenge", data={"client_id": CLIENT, "continuation_token": token, "challenge_type": "password oob redirect"})
    assert v1.status_code == 400
    assert client.session.post(f"{server.url}/contoso.onmicrosoft.com/oauth2/v2.0/authorize-challenge", data={"client_id": CLIENT}).status_code == 404


def test_a_step_whose_body_is_not_json_is_refused_in_the_steps_shape(server):
    """A body no JSON parser reads gets the step's nested refusal, AADSTS90100 naming the body."""
    client = Client(server)
    _, sign_in = client.entry("sign_in")
    answer = client.session.post(client.resolve(sign_in), data=b"{not json", headers={"Content-Type": "application/json"})
    assert nested_error(answer.status_code, answer.json(), aadsts=90100) == 400, answer.text
    assert answer.json()["error"]["message"] == "AADSTS90100: request body is empty or not valid.", answer.text
