"""The FakeEntra conformance adapter protocol (version 1.4, docs/conformance.md "Adapters") in Python:
steps in on stdin, one reply line out per step, the error vocabulary, the FAKEENTRA_* settings. An adapter
subclasses `AdapterApp`, implements the steps its app can take, and calls `serve(ItsApp)`."""
import base64
import contextlib
import json
import logging
import os
import re
import sys
import time

import requests

log = logging.getLogger("adapter")

# The protocol's error vocabulary (anything else is reported as "other").
VOCABULARY = {"declined_scopes", "interaction_required", "consent_required", "user_canceled", "invalid_grant",
              "invalid_client", "server_error", "throttled", "network", "timeout", "rejected_token",
              "password_reset_requested", "graph_error", "unsupported", "other"}


class StepFailure(Exception):
    """A step's outcome that is not success: rendered as the protocol's error reply."""

    def __init__(self, error, detail="", suberror=None, status=None):
        super().__init__(detail)
        self.error = error if error in VOCABULARY else "other"
        self.detail, self.suberror, self.status = detail, suberror, status

    def reply(self, step_id):
        reply = {"id": step_id, "ok": False, "error": self.error, "detail": self.detail[:2000]}
        if self.suberror:
            reply["suberror"] = self.suberror
        if self.status is not None:
            reply["status"] = self.status
        return reply


class Environment:
    """The suite's settings (FAKEENTRA_*), read once."""

    def __init__(self, env):
        self.authority = env["FAKEENTRA_AUTHORITY"]
        self.client_id = env["FAKEENTRA_CLIENT_ID"]
        self.graph = env.get("FAKEENTRA_GRAPH", "").rstrip("/")
        self.ca = env.get("FAKEENTRA_CA")
        self.browser = env.get("FAKEENTRA_BROWSER")
        self.scopes = env.get("FAKEENTRA_SCOPES", "User.Read").split()
        self.timeout = float(env.get("FAKEENTRA_STEP_TIMEOUT") or 10)
        self.b2c_authority = env.get("FAKEENTRA_B2C_AUTHORITY")
        self.b2c_reset_authority = env.get("FAKEENTRA_B2C_RESET_AUTHORITY")
        self.b2c_scopes = env.get("FAKEENTRA_B2C_SCOPES", "").split()


def classify(result):
    """An MSAL error dict → StepFailure with the protocol's error name."""
    error = result.get("error") or "other"
    description = result.get("error_description") or ""
    suberror = result.get("suberror") or result.get("classification")
    if "AADB2C90091" in description:
        return StepFailure("user_canceled", description, suberror)
    if "AADB2C90118" in description:
        return StepFailure("password_reset_requested", description, suberror)
    if error in ("access_denied", "authorization_declined"):    # the user chose Cancel (a browser, or a device's page)
        return StepFailure("user_canceled", f"{error}: {description}", suberror)
    if "timeout" in error or "timed out" in description.lower():
        return StepFailure("timeout", f"{error}: {description}", suberror)
    if error in ("temporarily_unavailable", "server_error") or re.search(r"\b5\d\d\b", description):
        return StepFailure("server_error", f"{error}: {description}", suberror)
    # As a word: the description's Trace and Correlation IDs are hex, and "429" turns up in one now and then.
    if "throttl" in (error + description).lower() or re.search(r"\b429\b", description):
        return StepFailure("throttled", f"{error}: {description}", suberror)
    if error == "unauthorized_client":
        return StepFailure("invalid_client", f"{error}: {description}", suberror)
    return StepFailure(error, f"{error}: {description}", suberror)


# Libraries add these themselves and refuse them in a request (MSAL: ValueError).
RESERVED_SCOPES = {"openid", "profile", "offline_access"}


def app_scopes(scopes):
    return [s for s in scopes if s.lower() not in RESERVED_SCOPES]


# What MSAL and requests raise when a call fails.
LIBRARY_FAILURES = (requests.RequestException, RuntimeError, ValueError)


@contextlib.contextmanager
def translated(*kinds):
    """Exceptions of these kinds (by default what MSAL and requests raise) leave as the step's StepFailure."""
    try:
        yield
    except (kinds or LIBRARY_FAILURES) as exc:
        raise failure_from_exception(exc) from exc


def failure_from_exception(exc):
    """An exception out of MSAL or requests → StepFailure."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, requests.exceptions.Timeout):
        return StepFailure("timeout", text)
    if isinstance(exc, requests.exceptions.ConnectionError):
        return StepFailure("network", text)
    if isinstance(exc, (RuntimeError, ValueError)) and re.search(r"nonce|state|signature|id.?token|issuer|audience", str(exc), re.I):
        return StepFailure("rejected_token", text)
    return StepFailure("other", text)


def decode_claims_challenge(header):
    """The JSON claims of a CAE `WWW-Authenticate: Bearer … error="insufficient_claims", claims="<base64>"`,
    or None. The value is base64 (standard alphabet, padding optional); MSAL wants the decoded JSON."""
    if not header or "insufficient_claims" not in header:
        return None
    match = re.search(r'claims="([^"]+)"', header)
    if not match:
        return None
    raw = match.group(1)
    raw += "=" * (-len(raw) % 4)
    return base64.b64decode(raw.replace("-", "+").replace("_", "/")).decode("utf-8")


class AdapterApp:
    """The protocol side of an adapter: steps in, replies out. Subclasses implement the steps they can
    (`sign_in`, `sign_in_silently`, `sign_in_device`, `sign_in_native`, `get_token`, `call_graph`, `list_graph`, `call_mcp`, `sign_out`), each
    returning the reply's fields or raising StepFailure; a step a subclass does not implement is answered `unsupported`."""

    environment_class = Environment

    def __init__(self, env):
        self.env = env

    def wait(self, step, deadline):
        time.sleep(float(step.get("seconds", 0)))
        return {}

    STEPS = {"signIn": "sign_in", "signInSilently": "sign_in_silently", "signInDevice": "sign_in_device", "signInNative": "sign_in_native", "getToken": "get_token",
             "getAppToken": "get_app_token", "callGraph": "call_graph", "listGraph": "list_graph", "callMCP": "call_mcp", "signOut": "sign_out", "wait": "wait"}

    def handle(self, step):
        step_id = step.get("id")
        deadline = time.monotonic() + float(step.get("deadline") or 30)
        method = self.STEPS.get(step.get("step"))
        if method is None:
            return {"id": step_id, "ok": False, "error": "unsupported", "detail": f"unknown step {step.get('step')!r}"}
        if not hasattr(self, method):
            return StepFailure("unsupported", f"{type(self).__name__} cannot {step['step']}").reply(step_id)
        try:
            reply = getattr(self, method)(step, deadline)
        except StepFailure as failure:
            return failure.reply(step_id)
        except Exception as exc:  # noqa: BLE001 (every failure becomes a reply; the traceback goes to stderr)
            log.exception("step %s failed", step_id)
            return failure_from_exception(exc).reply(step_id)
        return {"id": step_id, "ok": True, **reply}


def serve(app_class, env=None):
    """Reads steps until stdin closes; one reply line per step on the real stdout, everything else on stderr."""
    env = dict(env or os.environ)
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # a stray print (MSAL's, a library's, a child's) must never reach the suite as a reply
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if env.get("FAKEENTRA_ADAPTER_DEBUG") else logging.WARNING)
    if env.get("FAKEENTRA_CA"):
        os.environ["REQUESTS_CA_BUNDLE"] = os.environ["SSL_CERT_FILE"] = env["FAKEENTRA_CA"]
    if env.get("FAKEENTRA_BROWSER"):
        # webbrowser splits BROWSER with shlex when it has %s, and waits for the command (browse returns at once).
        os.environ["BROWSER"] = env["FAKEENTRA_BROWSER"] + " %s"
    app = app_class(app_class.environment_class(env))
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            step = json.loads(line)
        except json.JSONDecodeError as exc:
            replies.write(json.dumps({"id": None, "ok": False, "error": "other", "detail": f"bad step: {exc}"}) + "\n")
            continue
        replies.write(json.dumps(app.handle(step)) + "\n")
        replies.flush()
