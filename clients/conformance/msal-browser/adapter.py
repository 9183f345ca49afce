#!/usr/bin/env python3
"""FakeEntra conformance adapter (protocol 1.3) for a single-page app on MSAL.js (@azure/msal-browser), run
in headless Chromium: the app's page is served on http://localhost:<port>, signs in with loginRedirect
through FakeEntra's own pages (this adapter plays the user at them), and gets tokens with
acquireTokenSilent, going interactive (acquireTokenRedirect) when MSAL.js says interaction is required,
as Microsoft's SPA samples do. Graph is called from the page with fetch (CORS).

msal-browser is a real released build: the one the PyPI package `msal-streamlit-authentication` 1.1.0 bundles
(msal-browser 3.26.1, MIT), read from site-packages and served with one change made in memory: its
PublicClientApplication class also registers itself as `msal.PublicClientApplication` (the bundle is an
application, not a library, and exports nothing). Run the suite with `--spa`: the case's redirect URI is
then registered as a single-page application's, as MSAL.js requires."""
import base64
import functools
import http.server
import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "msal-python"))
from adapter_protocol import AdapterApp, StepFailure, serve  # noqa: E402

PACKAGE = "msal_streamlit_authentication"
BUNDLE = "frontend/dist/assets/index-BpN4f8kM.js"
PAGE_TIMEOUT = 30


@functools.cache
def msal_browser():
    """The released msal-browser inside the package's bundle, with its client class made reachable."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None:
        raise StepFailure("unsupported", f"pip install --no-deps msal-streamlit-authentication==1.1.0 (it carries msal-browser 3.26.1)")
    source = (pathlib.Path(spec.submodule_search_locations[0]) / BUNDLE).read_text()
    patched, count = re.subn(r"class ([A-Za-z_$][\w$]*)\{static async createPublicClientApplication\(",
                             lambda m: "class %s{static{(globalThis.msal??={}).PublicClientApplication=this}static async createPublicClientApplication(" % m.group(1),
                             source)
    if count != 1:
        raise StepFailure("other", f"the bundle's PublicClientApplication was not found once ({count})")
    return patched.encode()


# The app: MSAL.js configured from localStorage, the redirect handled on every load, and the calls the
# steps make, each a promise whose outcome the adapter reads.
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>FakeEntra SPA</title></head><body>
<div id="root" hidden></div><pre id="state">loading</pre>
<script type="module" src="/msal.js"></script>
<script type="module">
const params = new URLSearchParams(location.search);
if (params.get("config")) localStorage.setItem("fe-config", atob(params.get("config")));
const config = JSON.parse(localStorage.getItem("fe-config"));
const pca = new msal.PublicClientApplication({
  auth: {clientId: config.clientId, authority: config.authority, knownAuthorities: [config.host], redirectUri: config.redirectUri,
         navigateToLoginRequestUrl: false, clientCapabilities: ["CP1"]},
  cache: {cacheLocation: "localStorage"},
  system: {loggerOptions: {logLevel: 1, loggerCallback: (level, message) => console.log(message)}},
});
const outcome = (promise) => promise.then(value => ({ok: true, value}), error => ({ok: false, error: {
  name: error.name, errorCode: error.errorCode, subError: error.subError, message: String(error.errorMessage || error.message || error),
  claims: error.claims, interaction: error.name === "InteractionRequiredAuthError"}}));
const summary = (r) => r && {accessToken: r.accessToken, username: r.account && r.account.username, scopes: r.scopes};
await pca.initialize();
window.fe = {
  redirect: await outcome(pca.handleRedirectPromise().then(summary)),
  account: () => pca.getActiveAccount() || pca.getAllAccounts()[0] || null,
  login: (request) => pca.loginRedirect(request),
  interactive: (request) => pca.acquireTokenRedirect({...request, account: window.fe.account() || undefined}),
  silent: (request) => outcome(pca.acquireTokenSilent({...request, account: window.fe.account()}).then(summary)),
  ssoSilent: (request) => outcome(pca.ssoSilent(request).then(summary)),
  graph: (url, token) => outcome(fetch(url, {headers: {Authorization: "Bearer " + token}}).then(async r => ({
    status: r.status, retryAfter: r.headers.get("Retry-After"), wwwAuthenticate: r.headers.get("WWW-Authenticate"),
    body: await r.text()}))),
  signOut: () => outcome(pca.logoutRedirect({onRedirectNavigate: () => false})),
};
if (window.fe.redirect.ok && window.fe.redirect.value) pca.setActiveAccount(pca.getAllAccounts().find(a => a.username === window.fe.redirect.value.username) || null);
document.getElementById("state").textContent = "ready";
</script></body></html>"""


class AppServer:
    """The SPA's origin: the page and msal.js, on http://localhost:<port>."""

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                body, kind = (msal_browser(), "text/javascript") if path == "/msal.js" else (PAGE.encode(), "text/html; charset=utf-8")
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def origin(self):
        return f"http://localhost:{self.port}"


class BrowserApp(AdapterApp):
    """The SPA in Chromium, trusting FakeEntra's CA (an NSS database of its own), the user at the pages."""

    def __init__(self, env):
        super().__init__(env)
        self.username = os.environ.get("FAKEENTRA_USERNAME", "")
        self.password = os.environ.get("FAKEENTRA_PASSWORD", "")
        self.app = AppServer()
        self.home = tempfile.mkdtemp(prefix="fakeentra-spa-")
        if env.ca:
            nssdb = pathlib.Path(self.home, ".pki", "nssdb")
            nssdb.mkdir(parents=True)
            subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True)
            subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-A", "-t", "C,,", "-n", "FakeEntra CA", "-i", env.ca], check=True)
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         f"--user-data-dir={self.home}/profile"):
            options.add_argument(argument)
        if os.environ.get("HTTPS_PROXY"):
            options.add_argument(f"--proxy-server={os.environ['HTTPS_PROXY']}")
            options.add_argument("--proxy-bypass-list=localhost;127.0.0.1")
        service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver", env={**os.environ, "HOME": self.home})
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.set_page_load_timeout(PAGE_TIMEOUT)
        self.driver.set_script_timeout(PAGE_TIMEOUT)
        authority = urllib.parse.urlsplit(env.authority)
        config = {"clientId": env.client_id, "authority": env.authority, "host": authority.netloc, "redirectUri": self.app.origin}
        encoded = base64.b64encode(json.dumps(config).encode()).decode()
        self.driver.get(f"{self.app.origin}/?config={urllib.parse.quote(encoded)}")
        self.wait_for_app()

    # MARK: the page

    def wait_for_app(self, deadline=None):
        """Until the app page says ready, playing the user on any FakeEntra page met on the way."""
        deadline = deadline or time.monotonic() + PAGE_TIMEOUT
        while time.monotonic() < deadline:
            try:
                url = self.driver.current_url
                if url.startswith(self.app.origin):
                    if self.driver.find_element(By.ID, "state").text == "ready":
                        return
                else:
                    self.act_on_page()
            except WebDriverException:
                pass
            time.sleep(0.1)
        try:
            page = " ".join(self.driver.find_element(By.TAG_NAME, "body").text.split())[:300]
        except WebDriverException:
            page = ""
        raise StepFailure("timeout", f"the app did not come back from {self.driver.current_url[:200]} (the page says: {page})")

    def act_on_page(self):
        """The person at FakeEntra's page: the email, the password, consent, an account tile; an error page ends it."""
        find = lambda element_id: self.driver.find_elements(By.ID, element_id)
        alert = self.driver.find_elements(By.CSS_SELECTOR, "[role=alert]")
        if alert and not find("i0116") and not find("i0118"):
            raise StepFailure("other", f"the sign-in ended on an error page: {alert[0].text[:300]}")
        if find("i0116") and find("i0116")[0].is_displayed() and not find("i0116")[0].get_attribute("value"):
            find("i0116")[0].send_keys(self.username)
        if find("i0118") and find("i0118")[0].is_displayed():
            login = (find("i0116")[0].get_attribute("value") or "") if find("i0116") else ""
            second = os.environ.get("FAKEENTRA_SECOND_USERNAME", "")
            password = os.environ.get("FAKEENTRA_SECOND_PASSWORD", self.password) if second and login.lower() == second.lower() else self.password
            find("i0118")[0].clear()
            find("i0118")[0].send_keys(password)
        code = self.driver.find_elements(By.CSS_SELECTOR, "input[autocomplete=one-time-code]")
        if code and code[0].is_displayed() and not code[0].get_attribute("value"):
            code[0].send_keys("123456")
        for button in ("idSIButton9", "idBtn_Accept", "idSubmit_SAOTCC_Continue"):
            if find(button):
                find(button)[0].click()
                time.sleep(0.2)
                return
        tiles = self.driver.find_elements(By.CSS_SELECTOR, "button[data-upn]")
        if tiles:
            hint = urllib.parse.parse_qs(urllib.parse.urlsplit(self.driver.current_url).query).get("login_hint", [self.username])[0]
            (next((t for t in tiles if (t.get_attribute("data-upn") or "").lower() == hint.lower()), None) or tiles[0]).click()

    def call(self, script, *args):
        """`await fe.<script>` in the page; its {ok, value|error}."""
        return self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; Promise.resolve(" + script + ").then(done, e => done({ok: false, error: {message: String(e)}}));", *args)

    def leave(self, script, *args):
        """Starts a redirect: the page stops saying ready first, so the wait sees the app's next load, not this one."""
        self.driver.execute_script("document.getElementById('state').textContent = 'leaving'; " + script, *args)

    def redirected(self, deadline):
        """After a redirect sign-in: the app back, and what handleRedirectPromise answered."""
        self.wait_for_app(deadline)
        outcome = self.driver.execute_script("return window.fe.redirect")
        if not outcome["ok"]:
            raise self.failure(outcome["error"])
        if not outcome["value"]:
            raise StepFailure("other", "the app came back without a sign-in result")
        return outcome["value"]

    def failure(self, error):
        code, message = error.get("errorCode") or "", error.get("message") or ""
        if error.get("interaction") or code in ("interaction_required", "login_required", "consent_required"):
            return StepFailure("interaction_required", f"{code}: {message}", error.get("subError"))
        if code in ("nonce_mismatch", "state_mismatch", "invalid_state", "state_not_found", "hash_does_not_contain_known_properties"):
            return StepFailure("rejected_token", f"{code}: {message}")
        if code in ("user_cancelled", "access_denied") or "AADSTS65004" in message:
            return StepFailure("user_canceled", f"{code}: {message}")
        if "throttl" in (code + message).lower() or "429" in message:
            return StepFailure("throttled", f"{code}: {message}")
        if code in ("invalid_grant", "invalid_client", "server_error", "temporarily_unavailable"):
            return StepFailure("server_error" if code == "temporarily_unavailable" else code, f"{code}: {message}", error.get("subError"))
        if "network" in code or "fetch" in message.lower():
            return StepFailure("network", f"{code}: {message}")
        return StepFailure("other", f"{code}: {message}")

    # MARK: steps

    def request(self, step, **extra):
        scopes = [s for s in (step.get("scopes") or self.env.scopes) if s.lower() not in ("openid", "profile", "offline_access")]
        request = {"scopes": scopes, **extra}
        if step.get("prompt"):
            request["prompt"] = step["prompt"]
        if step.get("user"):
            request["loginHint"] = step["user"]
        return request

    def sign_in(self, step, deadline):
        if step.get("policy"):
            raise StepFailure("unsupported", "B2C policies are not configured in this app")
        result = self.redirect_sign_in("window.fe.login(arguments[0])", step, deadline)
        return {"scopes": result["scopes"], "account": result["username"]}

    def redirect_sign_in(self, script, step, deadline, claims=None):
        """A redirect sign-in; refused at the code redemption with a claims challenge (Conditional Access),
        once more with those claims, as the reference does."""
        self.leave(script, self.request(step, **({"claims": claims} if claims else {})))
        try:
            return self.redirected(deadline)
        except StepFailure as failure:
            if failure.error != "interaction_required" or claims:
                raise
            challenge = self.driver.execute_script("return window.fe.redirect.error && window.fe.redirect.error.claims")
            if not challenge:
                raise
            return self.redirect_sign_in(script, step, deadline, claims=challenge)

    def sign_in_silently(self, step, deadline):
        outcome = self.call("window.fe.ssoSilent(arguments[0])", self.request(step, loginHint=step.get("user") or self.username))
        if outcome["ok"]:
            return {"scopes": outcome["value"]["scopes"], "account": outcome["value"]["username"]}
        if not self.failure(outcome["error"]).error == "interaction_required":
            raise self.failure(outcome["error"])
        return self.sign_in(step, deadline)

    def token(self, step, deadline, claims=None):
        """What the samples do: acquireTokenSilent; acquireTokenRedirect when MSAL.js says interaction is required."""
        outcome = self.call("window.fe.silent(arguments[0])", self.request(step, **({"claims": claims} if claims else {})))
        if outcome["ok"]:
            return outcome["value"]
        failure = self.failure(outcome["error"])
        if failure.error != "interaction_required" and outcome["error"].get("errorCode") not in ("no_account_error", "no_tokens_found"):
            raise failure
        return self.redirect_sign_in("window.fe.interactive(arguments[0])", step, deadline, claims=claims)

    def get_token(self, step, deadline):
        result = self.token(step, deadline)
        return {"scopes": result["scopes"], "account": result["username"]}

    def graph(self, url, step, deadline):
        """One Graph GET as the SPA makes it: a CAE challenge answered once with its claims, Retry-After waited out."""
        result, claims = self.token(step, deadline), None
        for _attempt in range(4):
            outcome = self.call("window.fe.graph(arguments[0], arguments[1])", url, result["accessToken"])
            if not outcome["ok"]:
                raise StepFailure("network", outcome["error"].get("message", ""))
            answer = outcome["value"]
            challenge = answer.get("wwwAuthenticate") or ""
            if answer["status"] == 401 and "insufficient_claims" in challenge and claims is None:
                encoded = re.search(r'claims="([^"]+)"', challenge).group(1)
                claims = base64.b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
                result = self.token(step, deadline, claims=claims)
                continue
            if answer["status"] in (429, 503) and (answer.get("retryAfter") or "").isdigit():
                time.sleep(min(float(answer["retryAfter"]), max(0, deadline - time.monotonic() - 2)))
                continue
            return answer, result
        return answer, result

    def call_graph(self, step, deadline):
        answer, result = self.graph(self.env.graph + step.get("path", "/v1.0/me"), step, deadline)
        reply = {"scopes": result["scopes"], "status": answer["status"]}
        try:
            reply["account"] = json.loads(answer["body"]).get("userPrincipalName")
        except ValueError:
            pass
        if answer["status"] >= 400:
            raise StepFailure("graph_error", answer["body"][:300], status=answer["status"])
        return reply

    def list_graph(self, step, deadline):
        target, count = self.env.graph + step["path"], 0
        while target:
            answer, result = self.graph(target, step, deadline)
            if answer["status"] >= 400:
                raise StepFailure("graph_error", answer["body"][:300], status=answer["status"])
            page = json.loads(answer["body"])
            count += len(page.get("value", []))
            target = page.get("@odata.nextLink")
        return {"scopes": result["scopes"], "status": answer["status"], "count": count}

    def sign_out(self, step, deadline):
        outcome = self.call("window.fe.signOut()")
        if not outcome["ok"]:
            raise self.failure(outcome["error"])
        return {}


if __name__ == "__main__":
    serve(BrowserApp)
