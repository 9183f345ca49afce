"""The control-API mode as docs/conformance.md shows it to iOS developers, played end to end: the calls an
XCUITest makes (create a run, start each case, finish it with the app's replies) against a running
`fakeentra serve`, with an app written like the MSAL iOS/macOS tutorial standing in for the one under UI
test. Its one button does what the tutorial's does: a silent token, an interactive sign-in when the
library needs the user, then `GET /me` on Graph; its log line becomes the step's reply, as the UI test's
`perform` maps it."""
import datetime
import urllib.parse

import msal
import requests

from fakeentra.signin import drive

SCOPES = ["User.Read"]
CASES = "lifecycle.short-expires-in,graph.forbidden-403"


class TutorialApp:
    """The tutorial app launched with the case's settings (MSAL_CLIENT_ID, MSAL_AUTHORITY, GRAPH_ENDPOINT)."""

    silent_first = True

    def __init__(self, start, ca):
        self.start = start
        self.ca = ca
        self.redirect = "http://localhost"
        self.msal = msal.PublicClientApplication(start["clientID"], authority=start["authority"], verify=ca,
                                                 instance_discovery=False, client_capabilities=["cp1"])

    def token(self):
        accounts = self.msal.get_accounts()
        result = self.msal.acquire_token_silent_with_error(SCOPES, account=accounts[0]) if accounts and self.silent_first else None
        if result and "access_token" in result:
            return result
        # Interaction required (or nobody signed in yet): the web view the UI test fills in.
        flow = self.msal.initiate_auth_code_flow(SCOPES, redirect_uri=self.redirect)
        final, fields, _ = drive(flow["auth_uri"], self.start["username"], self.start["password"], self.redirect, verify=self.ca)
        answer = fields if fields is not None else dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query))
        return self.msal.acquire_token_by_auth_code_flow(flow, answer)

    def call_graph_button(self):
        """The log text the tutorial shows, mapped to a reply as the UI test's `perform` maps it."""
        result = self.token()
        if "access_token" not in result:
            return {"ok": False, "error": "interaction_required" if result.get("error") == "interaction_required" else "other",
                    "detail": result.get("error_description", "")}
        graph = requests.get(self.start["graph"].rstrip("/") + "/v1.0/me", headers={"Authorization": "Bearer " + result["access_token"]},
                             verify=self.ca, timeout=30)
        if graph.status_code == 200:
            return {"ok": True, "status": 200, "scopes": result.get("scope", "").split()}
        return {"ok": False, "error": "graph_error", "status": graph.status_code, "detail": graph.text[:200]}


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class AlwaysInteractiveApp(TutorialApp):
    """The same app with its silent call removed: every tap shows the sign-in page again."""
    silent_first = False


def play(server, app_type):
    """The UI test's calls, as docs/conformance.md writes them; the verdict and reason of each case."""
    control = server.http_session()
    created = control.post(f"{server.url}/_fakeentra/conformance/runs", json={"cases": CASES, "level": "required"}, timeout=30)
    assert created.status_code == 201, created.text
    run = created.json()
    assert [c["id"] for c in run["cases"]] == CASES.split(",")
    verdicts = {}
    for listing in run["cases"]:
        base = f"{server.url}/_fakeentra/conformance/runs/{run['run']}/cases/{listing['id']}"
        started = control.post(base + "/start", json={}, timeout=30)
        assert started.status_code == 200, started.text
        start = started.json()
        app = app_type(start, server.ca)
        outcomes = []
        for step in start["journey"]:
            began = now()
            if step["step"] in ("signIn", "getToken", "callGraph"):
                reply = app.call_graph_button()
            else:
                reply = {"ok": False, "error": "unsupported"}
            outcomes.append({**reply, "id": step["id"], "startedAt": began, "endedAt": now()})
        finished = control.post(base + "/finish", json={"outcomes": outcomes}, timeout=30)
        assert finished.status_code == 200, finished.text
        verdicts[listing["id"]] = finished.json()["verdict"]
    results = control.get(f"{server.url}/_fakeentra/conformance/runs/{run['run']}", timeout=30).json()
    assert sorted(r["caseID"] for r in results["results"]) == sorted(CASES.split(","))
    return verdicts


def trust(server, monkeypatch):
    # The simulator trusts FakeEntra's CA; here, the app's HTTP stack does (a CA bundle in the environment
    # would otherwise win over MSAL's verify=).
    for name, value in server.ca_environment.items():
        monkeypatch.setenv(name, value)


def test_an_xcuitest_plays_two_cases_through_the_control_api(server, monkeypatch):
    trust(server, monkeypatch)
    # The tutorial's flow refreshes silently once its short-lived token expired, and reports Graph's 403.
    assert play(server, TutorialApp) == {"lifecycle.short-expires-in": "PASSED", "graph.forbidden-403": "PASSED"}


def test_the_same_calls_fail_an_app_that_never_refreshes_silently(server, monkeypatch):
    trust(server, monkeypatch)
    assert play(server, AlwaysInteractiveApp)["lifecycle.short-expires-in"] == "FAILED"
