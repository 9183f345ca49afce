#!/usr/bin/env python3
"""Deliberately broken conformance adapters: the MSAL Python reference adapter with ONE behaviour broken,
chosen by the first argument (or FAKEENTRA_BROKEN). Each exists to prove that its conformance case can
fail; tests/test_broken_adapters.py runs them through `fakeentra conform`.

    broken_adapter.py no-pkce | accepts-bad-nonce | ignores-state | ignores-retry-after | dead-token-loop |
                      ignores-declined-scopes | never-interactive | drops-claims-challenge |
                      ignores-graph-retry-after | graph-503-no-backoff | graph-401-loop | no-password-reset |
                      cancel-as-error | ignores-slow-down | device-decline-as-error | stops-after-first-page |
                      login-required-as-error | polls-without-waiting | keeps-first-account | reset-cancel-as-error |
                      edit-profile-at-sign-in-authority | polls-after-the-end | graph-down-after-drop |
                      caches-signing-keys-forever | issuer-from-authority
    broken_adapter.py checks-issuer   (not broken: stricter than the reference, to show a PASSED)

The native-authentication app of native-auth/adapter.py, broken the same way:

    broken_adapter.py restarts-after-wrong-code | resubmits-refused-code | resend-loop | no-native-password-reset |
                      gives-up-on-mfa | gives-up-on-registration | no-browser-fallback | native-sign-in-per-token

The confidential web app of msal-python/web_adapter.py, broken the same way (run with --credential):

    broken_adapter.py no-certificate-reload | signs-in-again-on-invalid-client | new-app-per-call
"""
import contextlib
import functools
import importlib.util
import os
import pathlib
import sys
import time
import urllib.parse

import msal.oauth2cli.authcode as authcode
import msal.oauth2cli.oauth2 as oauth2
import msal.oauth2cli.oidc as oidc
import msal.throttled_http_client as throttling

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "clients" / "conformance" / "msal-python"))
import adapter as reference  # noqa: E402
import web_adapter as web  # noqa: E402
from adapter_protocol import StepFailure, serve  # noqa: E402


# MARK: patches of MSAL itself (what an app that rolled its own OAuth, or tuned MSAL badly, would do)

def without_pkce():
    """Authorization requests without code_challenge, redemptions without code_verifier."""
    original = oauth2.Client.initiate_auth_code_flow

    def initiate(self, *args, **kwargs):
        flow = original(self, *args, **kwargs)
        parts = urllib.parse.urlsplit(flow["auth_uri"])
        query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if not k.startswith("code_challenge")]
        flow["auth_uri"] = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
        flow["code_verifier"] = None  # requests leaves a None field out of the form
        return flow
    oauth2.Client.initiate_auth_code_flow = initiate


def without_nonce_check():
    """The OIDC layer's redemption skipped: the plain OAuth one has no nonce (nor max_age) check."""
    oidc.Client.obtain_token_by_auth_code_flow = (
        lambda self, flow, response, **kwargs: oauth2.Client.obtain_token_by_auth_code_flow(self, flow, response, **kwargs))


def without_state_check():
    """The loopback listener takes a redirect whatever its `state`, and the redemption believes it."""
    listen = authcode.AuthCodeReceiver.get_auth_response

    def get_auth_response(self, timeout=None, **kwargs):
        return listen(self, timeout=timeout, **dict(kwargs, state=None))
    authcode.AuthCodeReceiver.get_auth_response = get_auth_response
    redeem = oauth2.Client.obtain_token_by_auth_code_flow

    def obtain(self, flow, response, **kwargs):
        return redeem(self, dict(flow, state=response.get("state")), response, **kwargs)
    oauth2.Client.obtain_token_by_auth_code_flow = obtain


def without_throttling():
    """MSAL's HTTP client without its throttle caches (Retry-After, the 60 s cache of a 400): every call goes out."""
    def unthrottled(self, http_client, **ignored):  # default_throttle_time, http_cache
        throttling.ThrottledHttpClientBase.__init__(self, http_client)
    throttling.ThrottledHttpClient.__init__ = unthrottled


# MARK: broken apps

def still_pending(result):
    return result.get("error") in ("authorization_pending", "slow_down")


def poll_by_hand(app, flow, keep_polling, pause):
    """The device flow polled one request at a time: while `keep_polling(answer)` and the flow lasts, sleep
    `pause()` seconds and poll again."""
    while True:
        result = app.acquire_token_by_device_flow(flow, exit_condition=lambda _: True)  # one poll
        if not keep_polling(result) or time.time() > flow["expires_at"]:
            return result
        time.sleep(pause())


class RetriesAtOnce(reference.MsalApp):
    """Retries a failed silent call straight away, up to three times, with MSAL's throttling off."""
    retried_errors = ("throttled", "server_error", "other", "timeout", "network")

    def token(self, scopes, deadline, claims=None):
        for attempt in range(3):
            try:
                return super().token(scopes, deadline, claims=claims)
            except StepFailure as failure:
                if failure.error not in self.retried_errors or attempt == 2:
                    raise


class DeadTokenLoop(RetriesAtOnce):
    """Never signs in again after invalid_grant: presents the refused refresh token again and again."""
    goes_interactive = False
    retried_errors = ("invalid_grant", "interaction_required")


class IgnoresCache(reference.MsalApp):
    """Never asks the token cache: every call signs in interactively again."""

    def silent(self, app, scopes, claims=None):
        return None


class NeverInteractive(reference.MsalApp):
    goes_interactive = False


class IgnoresDeclinedScopes(reference.MsalApp):
    reports_granted_scopes = False


class DropsClaimsChallenge(reference.MsalApp):
    answers_claims_challenge = False


class IgnoresGraphRetryAfter(reference.MsalApp):
    honours_graph_retry_after = False


class Graph401Loop(reference.MsalApp):
    """Calls Graph again at once after a 401 (a token Graph refused will not become valid by retrying)."""

    def retry_wait(self, response):
        return 0 if response.status_code == 401 else super().retry_wait(response)


class NoPasswordReset(reference.MsalApp):
    starts_password_reset = False


class CancelAsError(reference.MsalApp):
    """Treats the user's cancellation (AADB2C90091, or Cancel on the device's page: authorization_declined) as
    a failure to show, not a cancellation."""

    def b2c_sign_in(self, step, policy, deadline):
        with cancellation_as_failure():
            return super().b2c_sign_in(step, policy, deadline)

    def sign_in_device(self, step, deadline):
        with cancellation_as_failure():
            return super().sign_in_device(step, deadline)


@contextlib.contextmanager
def cancellation_as_failure():
    try:
        yield
    except StepFailure as failure:
        if failure.error == "user_canceled":
            raise StepFailure("other", "sign-in failed: " + failure.detail) from failure
        raise


class IgnoresSlowDown(reference.MsalApp):
    """Polls the device flow at the interval it was first given, whatever slow_down says."""

    def poll_device_flow(self, app, flow):
        interval = flow["interval"]

        def pause():
            flow["interval"] = interval  # forget the 5 seconds MSAL added after a slow_down
            return interval
        return poll_by_hand(app, flow, keep_polling=still_pending, pause=pause)


class StopsAfterFirstPage(reference.MsalApp):
    """Reads the first page of a collection and takes it for the whole."""

    def next_page(self, page):
        return None


class LoginRequiredAsError(reference.MsalApp):
    """Reports login_required from a prompt=none sign-in as a failure instead of showing the sign-in."""

    def needs_interaction(self, result):
        return result.get("error") != "login_required" and super().needs_interaction(result)


class PollsWithoutWaiting(reference.MsalApp):
    """Polls the device flow again at once after authorization_pending, whatever the interval."""

    def poll_device_flow(self, app, flow):
        return poll_by_hand(app, flow, keep_polling=still_pending, pause=lambda: 0.1)


class KeepsFirstAccount(reference.MsalApp):
    """Signs out in its UI only, and keeps serving 'the user' it first signed in while MSAL still has them."""
    first_user = None

    def sign_out(self, step, deadline):
        self.signed_in = None
        return {}

    def account(self, app):
        accounts = app.get_accounts()
        if accounts and self.first_user is None:
            self.first_user = accounts[0]["username"]
        kept = [a for a in accounts if a["username"] == self.first_user]
        return (kept or accounts or [None])[0]


class EditProfileAtSignInAuthority(reference.MsalApp):
    """Runs every B2C user flow at its sign-in policy's authority (one authority for the whole app)."""

    def b2c_authority(self, policy):
        return self.env.b2c_authority


class PollsAfterTheEnd(reference.MsalApp):
    """Keeps polling the device flow after an error that ends it, until its own deadline."""

    def poll_device_flow(self, app, flow):
        return poll_by_hand(app, flow, keep_polling=lambda result: "access_token" not in result, pause=lambda: flow["interval"])


class GraphDownAfterDrop(reference.MsalApp):
    """After one dropped Graph connection, takes Graph for down and stops calling it."""
    graph_down = False

    def graph_get(self, url, access_token):
        if self.graph_down:
            raise StepFailure("network", "Graph was unreachable earlier; not trying again")
        try:
            return super().graph_get(url, access_token)
        except StepFailure:
            self.graph_down = True
            raise


class CachesSigningKeysForever(reference.MsalApp):
    """Validates each id_token's signature itself, against the JWKS it fetched once and never again, so a
    token signed by a key rolled in later is refused (OIDC Core 10.1.1 asks to refetch for an unknown kid)."""
    keys = None

    def outcome(self, result, requested):
        if result and result.get("id_token"):
            import jwt
            if self.keys is None:
                configuration = self.http.get(self.env.authority + "/v2.0/.well-known/openid-configuration", timeout=self.env.timeout).json()
                self.keys = {key["kid"]: key for key in self.http.get(configuration["jwks_uri"], timeout=self.env.timeout).json()["keys"]}
            kid = jwt.get_unverified_header(result["id_token"]).get("kid")
            if kid not in self.keys:
                raise StepFailure("rejected_token", f"id_token signed by an unknown key {kid}")
            jwt.decode(result["id_token"], jwt.PyJWK(self.keys[kid]).key, algorithms=["RS256"], options={"verify_aud": False, "verify_iss": False})
        return super().outcome(result, requested)


# MARK: broken web apps

class NoCertificateReload(web.WebApp):
    """Keeps the certificate it loaded at start, whatever the service says of it."""
    reloads_refused_certificate = False


class NewAppPerCall(web.WebApp):
    """A daemon that builds a new ConfidentialClientApplication, with a new token cache, for every call."""

    def get_app_token(self, step, deadline):
        self.apps.clear()
        self.cache = web.msal.TokenCache()
        return super().get_app_token(step, deadline)


class SignsInAgainOnInvalidClient(web.WebApp):
    """Sends the user to sign in again when its own credential is refused (invalid_client)."""

    def needs_interaction(self, result):
        return super().needs_interaction(result) or result.get("error") == "invalid_client"


class IssuerFromAuthority(reference.MsalApp):
    """Expects the ID token's issuer to be its authority's host and tenant plus /v2.0, as a hand-rolled
    validator does; right for a workforce tenant, wrong for External ID, whose issuer is
    https://{tenantid}.ciamlogin.com/{tenantid}/v2.0 whatever subdomain the authority names."""

    def signed_in_by(self, result, scopes):
        if result and "id_token_claims" in result:
            endpoint = self.app().authority.token_endpoint
            expected = endpoint.rsplit("/oauth2/", 1)[0] + "/v2.0"
            if result["id_token_claims"].get("iss") != expected:
                raise StepFailure("rejected_token", f"issuer {result['id_token_claims'].get('iss')} is not {expected}")
        return super().signed_in_by(result, scopes)


# MARK: the native-authentication app of clients/conformance/native-auth/adapter.py, broken one way each

@functools.cache
def native_adapter():
    """The native app's module, loaded under its own name (both adapters' files are called adapter.py)."""
    path = pathlib.Path(__file__).resolve().parents[2] / "clients" / "conformance" / "native-auth" / "adapter.py"
    spec = importlib.util.spec_from_file_location("native_adapter", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def native_variant(**changes):
    """A NativeAuthApp subclass with class attributes or methods replaced."""
    def build():
        return type("BrokenNativeApp", (native_adapter().NativeAuthApp,), changes)
    return build


def resubmits_refused_code(self, continuation_token, first_code, scopes, deadline):
    """A refused code typed again as is, in the same flow, without asking for a new one."""
    typed = native_adapter().MISTYPED if first_code == "mistyped" else self.newest_code(deadline)
    for _attempt in range(2):
        try:
            return self.native_token("oob", continuation_token, scopes, oob=typed)
        except Exception:  # noqa: BLE001
            continue
    raise StepFailure("invalid_grant", "the code was refused twice")


def gives_up_on(demand):
    def second_factor(self, asked, continuation_token, scopes, deadline):
        if asked == demand:
            raise StepFailure("other", f"the app does not handle {demand}")
        return native_adapter().NativeAuthApp.second_factor(self, asked, continuation_token, scopes, deadline)
    return second_factor


def signs_in_again_for_each_token(self, step, deadline):
    """getToken, for a customer signed in natively, as a new native sign-in instead of MSAL's silent refresh."""
    if not self.env.outbox:
        return native_adapter().NativeAuthApp.get_token(self, step, deadline)
    return self.sign_in_native({"scopes": step.get("scopes")}, deadline)


# MARK: a stricter app (proof that a case the reference only warns on can pass)

class ChecksIssuer(reference.MsalApp):
    """Names its authority as an OIDC authority, so MSAL refuses a discovery document with another issuer."""

    def authority_settings(self, authority):
        return {"oidc_authority": authority.rstrip("/") + "/v2.0"}


# variant → (MSAL patches, app class)
VARIANTS = {
    "no-pkce": ([without_pkce], reference.MsalApp),
    "accepts-bad-nonce": ([without_nonce_check], reference.MsalApp),
    "ignores-state": ([without_state_check], reference.MsalApp),
    "ignores-retry-after": ([without_throttling], RetriesAtOnce),
    "dead-token-loop": ([without_throttling], DeadTokenLoop),
    "ignores-declined-scopes": ([], IgnoresDeclinedScopes),
    "never-interactive": ([], NeverInteractive),
    "no-cache": ([], IgnoresCache),
    "drops-claims-challenge": ([], DropsClaimsChallenge),
    "ignores-graph-retry-after": ([], IgnoresGraphRetryAfter),
    "graph-503-no-backoff": ([], IgnoresGraphRetryAfter),
    "graph-401-loop": ([], Graph401Loop),
    "no-password-reset": ([], NoPasswordReset),
    "cancel-as-error": ([], CancelAsError),
    "ignores-slow-down": ([], IgnoresSlowDown),
    "device-decline-as-error": ([], CancelAsError),
    "stops-after-first-page": ([], StopsAfterFirstPage),
    "login-required-as-error": ([], LoginRequiredAsError),
    "polls-without-waiting": ([], PollsWithoutWaiting),
    "keeps-first-account": ([], KeepsFirstAccount),
    "reset-cancel-as-error": ([], CancelAsError),
    "edit-profile-at-sign-in-authority": ([], EditProfileAtSignInAuthority),
    "polls-after-the-end": ([], PollsAfterTheEnd),
    "graph-down-after-drop": ([], GraphDownAfterDrop),
    "caches-signing-keys-forever": ([], CachesSigningKeysForever),
    "no-certificate-reload": ([], NoCertificateReload),
    "new-app-per-call": ([], NewAppPerCall),
    "signs-in-again-on-invalid-client": ([], SignsInAgainOnInvalidClient),
    "issuer-from-authority": ([], IssuerFromAuthority),
    "checks-issuer": ([], ChecksIssuer),
    "restarts-after-wrong-code": ([], native_variant(keeps_flow_after_refused_code=False)),
    "resubmits-refused-code": ([], native_variant(enter_code=resubmits_refused_code)),
    "resend-loop": ([], native_variant(waits_after_throttled_resend=False)),
    "no-native-password-reset": ([], native_variant(resets_password_when_required=False)),
    "gives-up-on-mfa": ([], native_variant(second_factor=gives_up_on("mfa_required"))),
    "gives-up-on-registration": ([], native_variant(second_factor=gives_up_on("registration_required"))),
    "no-browser-fallback": ([], native_variant(falls_back_to_browser=False)),
    "native-sign-in-per-token": ([], native_variant(get_token=signs_in_again_for_each_token)),
}


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FAKEENTRA_BROKEN", "")
    if name not in VARIANTS:
        sys.exit(f"usage: broken_adapter.py {{{'|'.join(VARIANTS)}}}")
    patches, app_class = VARIANTS[name]
    for patch in patches:
        patch()
    serve(app_class if isinstance(app_class, type) else app_class())


if __name__ == "__main__":
    main()
