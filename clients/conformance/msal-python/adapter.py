#!/usr/bin/env python3
"""FakeEntra conformance adapter (protocol 1.2) for MSAL for Python: a public client app written the way
Microsoft's sample apps use MSAL (the iOS/macOS tutorial's `acquireTokenSilent` then
`acquireToken` when interaction is required, `cp1` declared, claims challenges answered, B2C's
password reset started on AADB2C90118).

The conformance suite starts it once per case and sends one JSON step per line on stdin; each step gets
exactly one JSON reply line on stdout. See docs/conformance.md, "Adapters".

The behaviours a client can get wrong are methods and class attributes of `MsalApp`, so that the
deliberately broken adapters of Tests/Conformance change one of them each and nothing else."""
import os
import shlex
import subprocess
import sys
import time

import msal
import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from adapter_protocol import (  # noqa: E402
    AdapterApp, StepFailure, app_scopes, classify, decode_claims_challenge, serve, translated)

# OAuth errors after which the sample apps go interactive (MSAL iOS: MSALErrorInteractionRequired).
INTERACTIVE_ERRORS = {"interaction_required", "invalid_grant", "consent_required", "login_required"}


class MsalApp(AdapterApp):
    """One app process: a PublicClientApplication per authority, one token cache, the protocol's steps."""

    # What a correct app does; Tests/Conformance/broken_adapter.py turns these off one at a time.
    goes_interactive = True
    honours_graph_retry_after = True
    answers_claims_challenge = True
    reports_granted_scopes = True
    starts_password_reset = True
    capabilities = ["cp1"]

    def __init__(self, env):
        super().__init__(env)
        # The user the app's last token belongs to: what replies name as `account`.
        self.signed_in = None
        self.cache = msal.TokenCache()
        self.apps = {}
        self.http = requests.Session()
        if env.ca:
            self.http.verify = env.ca

    # MARK: MSAL applications

    def app(self, authority=None):
        authority = authority or self.env.authority
        if authority not in self.apps:
            self.apps[authority] = msal.PublicClientApplication(
                self.env.client_id, token_cache=self.cache, client_capabilities=self.capabilities, timeout=self.env.timeout,
                verify=self.env.ca or True, **self.authority_settings(authority))
        return self.apps[authority]

    def authority_settings(self, authority):
        """How the app names its authority: `authority=` as the samples do (MSAL then does not compare
        discovery's issuer with it; it does for `oidc_authority=`)."""
        return {"authority": authority, "instance_discovery": False}

    def b2c_authority(self, policy):
        base = self.env.b2c_authority
        if not base:
            raise StepFailure("unsupported", "a B2C step without FAKEENTRA_B2C_AUTHORITY")
        head, _, current = base.rstrip("/").rpartition("/")
        return base if current.lower() == policy.lower() else f"{head}/{policy}"

    def account(self, app):
        accounts = app.get_accounts()
        return accounts[0] if accounts else None

    # MARK: token acquisition

    def interactive(self, app, scopes, deadline, prompt=None, claims=None, login_hint=None):
        result = self.browser_sign_in(app, scopes, deadline, prompt=prompt, claims=claims, login_hint=login_hint)
        if result and result.get("claims") and not claims and self.answers_claims_challenge and self.needs_interaction(result):
            # Conditional Access at the token endpoint: sign in again, passing the policy's claims.
            result = self.browser_sign_in(app, scopes, deadline, prompt=prompt, claims=result["claims"], login_hint=login_hint)
        return self.signed_in_by(result, scopes)

    def signed_in_by(self, result, scopes):
        """A sign-in's answer as the step's outcome; its account becomes the app's signed-in user."""
        result, granted = self.outcome(result, scopes)
        self.signed_in = (result.get("id_token_claims") or {}).get("preferred_username") or self.signed_in
        return result, granted

    def browser_sign_in(self, app, scopes, deadline, prompt=None, claims=None, login_hint=None):
        """The browser sign-in, MSAL's answer as is: `FAKEENTRA_BROWSER` through Python's webbrowser, MSAL's
        loopback listener."""
        with translated():
            return app.acquire_token_interactive(app_scopes(scopes), prompt=prompt, claims_challenge=claims, login_hint=login_hint,
                                                 timeout=max(1, int(deadline - time.monotonic() - 1)))

    def silent(self, app, scopes, claims=None):
        """None when the cache has no account; else MSAL's answer (a token or an error dict)."""
        account = self.account(app)
        if account is None:
            return None
        self.signed_in = account.get("username")
        with translated():
            return self.using_credential(
                app, lambda current: current.acquire_token_silent_with_error(app_scopes(scopes), account=account, claims_challenge=claims))

    def using_credential(self, app, call):
        """`call(app)`: a public client has no credential; a confidential one may retry with it loaded again."""
        return call(app)

    def token(self, scopes, deadline, claims=None):
        """What the sample apps do: silent first; interactive once when MSAL says interaction is required."""
        app = self.app()
        result = self.silent(app, scopes, claims=claims)
        if result is not None and "error" not in result:
            return self.outcome(result, scopes)
        if result is None or self.needs_interaction(result):
            if not self.goes_interactive:
                raise classify(result) if result else StepFailure("interaction_required", "no account in the cache")
            # The account the silent call was for signs in again (None after a sign-out).
            return self.interactive(app, scopes, deadline, claims=claims, login_hint=self.signed_in)
        raise classify(result)

    def needs_interaction(self, result):
        return result.get("error") in INTERACTIVE_ERRORS

    def outcome(self, result, requested):
        if not result:
            raise StepFailure("other", "MSAL returned nothing")
        if "error" in result:
            raise classify(result)
        return result, self.granted_scopes(result, requested)

    def granted_scopes(self, result, requested):
        """What the token is for: the token response's `scope`, else the cached entry's target."""
        if not self.reports_granted_scopes:
            return list(requested)
        if result.get("scope"):
            return result["scope"].split()
        for entry in self.cache.search(msal.TokenCache.CredentialType.ACCESS_TOKEN, target=list(requested)):
            if entry.get("secret") == result.get("access_token"):
                return entry.get("target", "").split()
        return list(requested)

    # MARK: steps

    def sign_in(self, step, deadline):
        policy = step.get("policy")
        if policy:
            return self.b2c_sign_in(step, policy, deadline)
        scopes = step.get("scopes") or self.env.scopes
        app = self.app()
        try:
            _, granted = self.interactive(app, scopes, deadline, prompt=step.get("prompt"), login_hint=step.get("user"))
        except StepFailure as failure:
            if failure.error == "rejected_token":
                self.forget_accounts(app)
            raise
        return {"scopes": granted, "account": self.signed_in}

    def sign_in_silently(self, step, deadline):
        """MSAL.js's `ssoSilent`, then its interactive sign-in: the browser asked with prompt=none, and the
        sign-in shown only when the service answers that it needs the user."""
        scopes = step.get("scopes") or self.env.scopes
        app = self.app()
        result = self.browser_sign_in(app, scopes, deadline, prompt="none")
        if result and "error" in result and self.needs_interaction(result):
            result = self.browser_sign_in(app, scopes, deadline)
        _, granted = self.signed_in_by(result, scopes)
        return {"scopes": granted, "account": self.signed_in}

    def sign_in_device(self, step, deadline):
        """The device code flow: show the user code (here: hand it to FAKEENTRA_BROWSER, who plays the user
        on the verification page), then poll as MSAL does until the user approved."""
        scopes = step.get("scopes") or self.env.scopes
        app = self.app()
        with translated(requests.RequestException):
            flow = app.initiate_device_flow(scopes=app_scopes(scopes))
        if "user_code" not in flow:
            raise classify(flow)
        self.enter_user_code(flow["verification_uri"], flow["user_code"])
        # MSAL polls until the flow expires: stop before the step's deadline instead.
        flow["expires_at"] = min(flow["expires_at"], time.time() + max(1.0, deadline - time.monotonic() - 1))
        with translated(requests.RequestException):
            result = self.poll_device_flow(app, flow)
        _, granted = self.outcome(result, scopes)
        return {"scopes": granted}

    def enter_user_code(self, verification_uri, user_code):
        """The person at another device: `$FAKEENTRA_BROWSER --user-code CODE URI` (it returns at once)."""
        if not self.env.browser:
            raise StepFailure("unsupported", "no FAKEENTRA_BROWSER to enter the user code with")
        command = f"{self.env.browser} --user-code {shlex.quote(user_code)} {shlex.quote(verification_uri)}"
        finished = subprocess.run(command, shell=True, stdout=sys.stderr, timeout=10)
        if finished.returncode != 0:
            raise StepFailure("other", f"FAKEENTRA_BROWSER exited with {finished.returncode}")

    def poll_device_flow(self, app, flow):
        """MSAL's own polling: every `interval` seconds, 5 more after each slow_down (RFC 8628 §3.5)."""
        return app.acquire_token_by_device_flow(flow)

    def forget_accounts(self, app):
        """Signing out, or refusing a sign-in: MSAL caches the tokens of a redemption before it checks the
        id_token's nonce, so an app that refuses the sign-in must also drop what it left in the cache, or
        the next silent call uses it."""
        for account in app.get_accounts():
            app.remove_account(account)

    def b2c_sign_in(self, step, policy, deadline):
        # A B2C app asks for its own API's scopes (full URIs); Graph-style names mean nothing to B2C.
        scopes = self.env.b2c_scopes or [s for s in step.get("scopes") or [] if "/" in s]
        app = self.app(self.b2c_authority(policy))
        try:
            _, granted = self.interactive(app, scopes, deadline, prompt=step.get("prompt"))
            return {"scopes": granted}
        except StepFailure as failure:
            if failure.error != "password_reset_requested" or not self.starts_password_reset or not self.env.b2c_reset_authority:
                raise
        # AADB2C90118: the user chose "Forgot your password?"; the app runs the reset policy's flow.
        _, granted = self.interactive(self.app(self.env.b2c_reset_authority), scopes, deadline)
        return {"scopes": granted, "detail": "password reset through the reset policy, then signed in"}

    def get_token(self, step, deadline):
        _, granted = self.token(step.get("scopes") or self.env.scopes, deadline)
        return {"scopes": granted, "account": self.signed_in}

    def call_graph(self, step, deadline):
        response, granted = self.graph_answer(step.get("path", "/v1.0/me"), step, deadline)
        reply = {"scopes": granted, "status": response.status_code}
        if response.headers.get("Content-Type", "").startswith("application/json"):
            reply["account"] = response.json().get("userPrincipalName")   # whom Graph answered about
        return reply

    def list_graph(self, step, deadline):
        """A collection read to its end: each page's `@odata.nextLink` requested as given (an opaque URL)
        until a page has none."""
        target, count = step["path"], 0
        while target:
            response, granted = self.graph_answer(target, step, deadline)
            page = response.json()
            count += len(page.get("value", []))
            target = self.next_page(page)
        return {"scopes": granted, "status": response.status_code, "count": count}

    def next_page(self, page):
        return page.get("@odata.nextLink")

    def graph_answer(self, target, step, deadline):
        """GET a Graph path (or an absolute link Graph gave) as the app does: a claims challenge answered
        once, throttling and unavailability waited out; the successful response, or StepFailure."""
        if not self.env.graph:
            raise StepFailure("unsupported", "no FAKEENTRA_GRAPH")
        scopes = step.get("scopes") or self.env.scopes
        result, granted = self.token(scopes, deadline)
        url = target if target.startswith("https://") else self.env.graph + target
        challenged = False
        for _attempt in range(4):
            response = self.graph_get(url, result["access_token"])
            if response.status_code < 300:
                return response, granted
            claims = decode_claims_challenge(response.headers.get("WWW-Authenticate"))
            if response.status_code == 401 and claims and not challenged and self.answers_claims_challenge:
                challenged = True
                result, granted = self.token(scopes, deadline, claims=claims)
                continue
            wait = self.retry_wait(response)
            if wait is not None and time.monotonic() + wait < deadline - 1:
                time.sleep(wait)
                continue
            break
        error = "throttled" if response.status_code == 429 else "graph_error"
        raise StepFailure(error, f"Graph {response.status_code}: {response.text[:500]}", status=response.status_code)

    def graph_get(self, url, access_token):
        with translated(requests.RequestException):
            return self.http.get(url, headers={"Authorization": f"Bearer {access_token}"}, timeout=self.env.timeout)

    def retry_wait(self, response):
        """Seconds to wait before retrying a throttled or unavailable Graph call; None: do not retry."""
        if response.status_code not in (429, 503, 504):
            return None
        if not self.honours_graph_retry_after:
            return 0
        value = response.headers.get("Retry-After", "")
        return float(value) if value.strip().isdigit() else (5.0 if response.status_code != 429 else None)

    def sign_out(self, step, deadline):
        for app in list(self.apps.values()) or [self.app()]:
            self.forget_accounts(app)
        self.signed_in = None
        return {}


if __name__ == "__main__":
    serve(MsalApp)
