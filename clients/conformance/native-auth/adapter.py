#!/usr/bin/env python3
"""FakeEntra conformance adapter (protocol 1.3) for an app on Microsoft Entra External ID that signs its
customers in on its own screens: MSAL for iOS/macOS's native authentication, its request sequences
replayed (MSALNativeAuthSignInController, ResetPasswordController, the MFA and JIT controllers: the form
bodies, the `challenge_type` list with `redirect` last, `capabilities`, `client_info=true`, its headers),
beside MSAL for the browser (here MSAL for Python, sharing one token cache, as an iOS app's
MSALNativeAuthPublicClientApplication shares MSAL's).

`signInNative` plays both the app and the customer: the customer types their password, or reads the code
mailed to them from `FAKEENTRA_OUTBOX` as an XCUITest reads it through the control API. A refused code
makes the customer ask for a new one; the app keeps its flow throughout, as MSAL keeps its state.

The behaviours an app can get wrong are methods and class attributes of `NativeAuthApp`, so that the
deliberately broken adapters of Tests/Conformance change one of them each and nothing else."""
import os
import pathlib
import sys
import time
import urllib.parse
import uuid

import requests

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "msal-python"))
from adapter import MsalApp  # noqa: E402
from adapter_protocol import Environment, StepFailure, app_scopes, serve, translated  # noqa: E402

# The first code a customer mistypes: eight digits never sent.
MISTYPED = "00000000"


class NativeEnvironment(Environment):
    def __init__(self, env):
        super().__init__(env)
        self.username = env.get("FAKEENTRA_USERNAME", "")
        self.password = env.get("FAKEENTRA_PASSWORD", "")
        self.outbox = env.get("FAKEENTRA_OUTBOX")
        self.control_secret = env.get("FAKEENTRA_CONTROL_SECRET")


class NativeFailure(StepFailure):
    """An answer of the native API that ends the flow: its body kept for the app's decision."""

    def __init__(self, error, detail, body):
        super().__init__(error, detail, body.get("suberror"))
        self.body = body


class NativeAuthApp(MsalApp):
    """One app: MSAL's native authentication for its own screens, MSAL for the browser fallback."""

    environment_class = NativeEnvironment
    # The app's configuration (MSALNativeAuthPublicClientApplication's challengeTypes and capabilities);
    # MSAL always appends `redirect` to the challenge types.
    challenge_types = ("oob", "password")
    native_capabilities = ("mfa_required", "registration_required")
    # What a correct app does; Tests/Conformance/broken_native_adapter.py turns these off one at a time.
    keeps_flow_after_refused_code = True
    falls_back_to_browser = True
    resets_password_when_required = True
    waits_after_throttled_resend = True

    def __init__(self, env):
        super().__init__(env)
        self.native = requests.Session()
        if env.ca:
            self.native.verify = env.ca
        self.sent_codes = 0

    # MARK: where the native API is

    @property
    def tenant_base(self):
        """`https://{subdomain}.ciamlogin.com/{subdomain}.onmicrosoft.com`, as MSAL builds it from the tenant subdomain."""
        host = urllib.parse.urlsplit(self.env.authority).hostname or ""
        subdomain = host.split(".")[0]
        return f"https://{host}/{subdomain}.onmicrosoft.com"

    @property
    def challenge_type(self):
        return " ".join(list(self.challenge_types) + ["redirect"])

    def post(self, path, **form):
        """A form POST as MSAL for iOS sends it (MSALNativeAuthRequestConfigurator, its telemetry headers)."""
        headers = {"Accept": "application/json", "return-client-request-id": "true", "client-request-id": str(uuid.uuid4()),
                   "x-client-SKU": "MSAL.iOS", "x-client-Ver": "2.0.0", "x-client-OS": "17.0"}
        with translated(requests.RequestException):
            response = self.native.post(f"{self.tenant_base}/{path}", data={"client_id": self.env.client_id, **form},
                                        headers=headers, timeout=self.env.timeout)
        try:
            body = response.json()
        except ValueError:
            body = {}
        if response.status_code == 429:
            raise NativeFailure("throttled", f"{path}: 429 Retry-After {response.headers.get('Retry-After')}", body)
        if response.status_code >= 500:
            raise NativeFailure("server_error", f"{path}: {response.status_code}", body)
        if response.status_code >= 400:
            detail = f"{path}: {body.get('error')} {body.get('suberror') or ''} {body.get('error_description', '')[:300]}"
            raise NativeFailure(body.get("error") or "other", detail, body)
        return body

    # MARK: the customer's inputs

    def newest_code(self, deadline):
        """The newest code in the customer's mailbox (FAKEENTRA_OUTBOX), waiting for one newer than those read."""
        if not self.env.outbox:
            raise StepFailure("unsupported", "no FAKEENTRA_OUTBOX to read the customer's codes from")
        headers = {"Authorization": f"Bearer {self.env.control_secret}"} if self.env.control_secret else {}
        while True:
            answer = self.native.get(self.env.outbox, params={"to": self.env.username}, headers=headers, timeout=self.env.timeout)
            messages = answer.json().get("messages", []) if answer.status_code == 200 else []
            if messages:
                return messages[-1]["code"]
            if time.monotonic() > deadline - 2:
                raise StepFailure("timeout", "no code reached the customer's mailbox")
            time.sleep(0.2)

    # MARK: the steps

    def sign_in_native(self, step, deadline):
        scopes = step.get("scopes") or self.env.scopes
        try:
            tokens = self.native_sign_in(step, scopes, deadline)
        except NativeFailure as failure:
            if failure.body.get("challenge_type") == "redirect" or failure.error == "redirect":
                return self.browser_fallback(scopes, deadline)
            raise
        return self.signed_in_natively(tokens, scopes)

    def native_sign_in(self, step, scopes, deadline):
        started = self.post("oauth2/v2.0/initiate", username=self.env.username, challenge_type=self.challenge_type,
                            capabilities=" ".join(self.native_capabilities))
        if started.get("challenge_type") == "redirect":
            raise NativeFailure("redirect", "initiate: the service asks for the browser", started)
        challenged = self.post("oauth2/v2.0/challenge", continuation_token=started["continuation_token"], challenge_type=self.challenge_type)
        kind = challenged.get("challenge_type")
        if kind == "redirect":
            raise NativeFailure("redirect", "challenge: the service asks for the browser", challenged)
        if kind == "password":
            return self.submit_password(challenged["continuation_token"], scopes, deadline)
        return self.enter_code(challenged["continuation_token"], step.get("firstCode"), scopes, deadline)

    def submit_password(self, continuation_token, scopes, deadline):
        try:
            return self.native_token("password", continuation_token, scopes, username=self.env.username, password=self.env.password,
                              challenge_type=self.challenge_type)
        except NativeFailure as failure:
            if 50142 in failure.body.get("error_codes", []) and self.resets_password_when_required:
                return self.reset_password_then_sign_in(scopes, deadline)
            if failure.suberror in ("mfa_required", "registration_required"):
                return self.second_factor(failure.suberror, failure.body["continuation_token"], scopes, deadline)
            raise

    def enter_code(self, continuation_token, first_code, scopes, deadline):
        """The code-required state: the customer types a code; a refused one makes them ask for another
        (MSAL keeps the state and its continuation token either way)."""
        if first_code == "resent":
            continuation_token = self.resend_code(continuation_token)
        typed = MISTYPED if first_code == "mistyped" else self.newest_code(deadline)
        for _attempt in range(3):
            try:
                return self.native_token("oob", continuation_token, scopes, oob=typed)
            except NativeFailure as failure:
                if failure.suberror != "invalid_oob_value":
                    raise
                if not self.keeps_flow_after_refused_code:
                    return self.native_sign_in({"firstCode": None}, scopes, deadline)
                continuation_token = self.resend_code(continuation_token)
                typed = self.newest_code(deadline)
        raise StepFailure("invalid_grant", "three codes refused")

    def resend_code(self, continuation_token):
        """"Resend code": the challenge endpoint again with the flow's continuation token. When the service
        refuses (429: too many requests) the app says so and keeps its state and the code already sent."""
        for _attempt in range(1 if self.waits_after_throttled_resend else 3):
            try:
                answer = self.post("oauth2/v2.0/challenge", continuation_token=continuation_token, challenge_type=self.challenge_type)
                return answer["continuation_token"]
            except NativeFailure as failure:
                if failure.error != "throttled":
                    raise
        return continuation_token

    def native_token(self, grant_type, continuation_token, scopes, **form):
        return self.post("oauth2/v2.0/token", grant_type=grant_type, continuation_token=continuation_token,
                         scope=" ".join(["openid", "profile", "offline_access"] + app_scopes(scopes)), client_info="true", **form)

    def second_factor(self, demand, continuation_token, scopes, deadline):
        if demand == "mfa_required":
            # MFA: the methods, a code to the first one, the code submitted.
            listed = self.post("oauth2/v2.0/introspect", continuation_token=continuation_token)
            method = listed["methods"][0]
            sent = self.post("oauth2/v2.0/challenge", continuation_token=listed["continuation_token"], challenge_type=self.challenge_type,
                             id=method["id"])
            return self.native_token("mfa_oob", sent["continuation_token"], scopes, oob=self.newest_code(deadline))
        # Just-in-time registration: the customer's proven email registered as their method, then signed in.
        listed = self.post("register/v1.0/introspect", continuation_token=continuation_token)
        method = listed["methods"][0]
        challenged = self.post("register/v1.0/challenge", continuation_token=listed["continuation_token"], challenge_type=method["challenge_type"],
                               challenge_target=self.env.username, challenge_channel=method.get("challenge_channel", "email"))
        if challenged.get("challenge_type") == "preverified":
            registered = self.post("register/v1.0/continue", continuation_token=challenged["continuation_token"], grant_type="continuation_token")
        else:
            registered = self.post("register/v1.0/continue", continuation_token=challenged["continuation_token"], grant_type="oob",
                                   oob=self.newest_code(deadline))
        return self.native_token("continuation_token", registered["continuation_token"], scopes)

    def reset_password_then_sign_in(self, scopes, deadline):
        """Self-service password reset (MSALNativeAuthResetPasswordController), then the sign-in with the
        continuation token it ends with (ResetPasswordCompletedState.signIn)."""
        started = self.post("resetpassword/v1.0/start", username=self.env.username, challenge_type=self.challenge_type)
        challenged = self.post("resetpassword/v1.0/challenge", continuation_token=started["continuation_token"], challenge_type=self.challenge_type)
        verified = self.post("resetpassword/v1.0/continue", continuation_token=challenged["continuation_token"], grant_type="oob",
                             oob=self.newest_code(deadline))
        self.env.password = f"N3w!{uuid.uuid4().hex[:12]}"
        submitted = self.post("resetpassword/v1.0/submit", continuation_token=verified["continuation_token"], new_password=self.env.password)
        polled = {"status": "in_progress", "continuation_token": submitted["continuation_token"]}
        while polled.get("status") != "succeeded":
            time.sleep(float(submitted.get("poll_interval", 1)) if polled is not submitted else 0)
            polled = self.post("resetpassword/v1.0/poll_completion", continuation_token=polled["continuation_token"])
            if polled.get("status") == "failed" or time.monotonic() > deadline - 2:
                raise StepFailure("other", f"the password reset did not complete: {polled}")
        return self.native_token("continuation_token", polled["continuation_token"], scopes)

    def browser_fallback(self, scopes, deadline):
        """browserRequired: the app signs the customer in through the browser with MSAL, at the same authority."""
        if not self.falls_back_to_browser:
            raise StepFailure("other", "browserRequired: the app cannot sign this customer in")
        _, granted = self.interactive(self.app(), scopes, deadline, login_hint=self.env.username)
        return {"scopes": granted, "account": self.signed_in, "detail": "signed in through the browser"}

    def signed_in_natively(self, tokens, scopes):
        """The native sign-in's tokens go into MSAL's cache (MSALNativeAuthTokenCacher), where getToken finds them."""
        endpoint = f"{self.tenant_base}/oauth2/v2.0/token"
        self.cache.add({"client_id": self.env.client_id, "scope": tokens.get("scope", "").split(), "token_endpoint": endpoint,
                        "response": tokens, "params": {}, "data": {}, "grant_type": "native"})
        self.signed_in = self.env.username
        return {"scopes": tokens.get("scope", "").split(), "account": self.signed_in}


if __name__ == "__main__":
    serve(NativeAuthApp)
