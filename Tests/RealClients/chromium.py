"""Headless Chromium (Debian's `chromium` + `chromium-driver`, driven by Selenium) for the page tests.

One browser per test module. It trusts FakeEntra's CA through its own NSS database (nothing is
installed system-wide), starts each test with no cookies and JavaScript OFF — every page must work as
plain HTML forms; tests that need script (form_post auto-submit, MSAL) turn it on for themselves.
A local listener stands in for the app's redirect URI and records what reached it.
With FAKEENTRA_SCREENSHOTS=DIR set, `shot(name)` saves each page there (scripts/screenshots)."""
import contextlib
import http.server
import os
import pathlib
import shutil
import subprocess
import tempfile
import threading
import urllib.parse

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

PAGE_TIMEOUT = 10


class Listener:
    """The app's redirect URI: records each GET query and POST form, answers a small page."""

    def __init__(self):
        self.hits = []
        self.arrived = threading.Condition()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _record(self, method, fields):
                with outer.arrived:
                    outer.hits.append({"method": method, "path": urllib.parse.urlsplit(self.path).path, "fields": fields})
                    outer.arrived.notify_all()
                body = b"<!DOCTYPE html><title>App</title><p id='app-callback'>The app got the answer.</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                if self.path.startswith("/favicon"):
                    self.send_response(404)
                    self.end_headers()
                    return
                self._record("GET", dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query)))

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self._record("POST", dict(urllib.parse.parse_qsl(self.rfile.read(length).decode())))

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.redirect_uri = f"http://localhost:{self.server.server_address[1]}/callback"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, matching=lambda hit: True, timeout=PAGE_TIMEOUT):
        """The first hit `matching` (waits for it, does not sleep)."""
        with self.arrived:
            if not self.arrived.wait_for(lambda: any(matching(h) for h in self.hits), timeout):
                raise AssertionError(f"nothing expected reached the redirect URI (hits: {self.hits})")
            return next(h for h in self.hits if matching(h))

    def stop(self):
        self.server.shutdown()


class Chromium:
    def __init__(self, ca_path):
        self.home = tempfile.mkdtemp(prefix="fakeentra-chromium-")
        nssdb = pathlib.Path(self.home, ".pki", "nssdb")
        nssdb.mkdir(parents=True)
        subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True)
        subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-A", "-t", "C,,", "-n", "FakeEntra local CA", "-i", ca_path], check=True)
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,900",
                         "--no-first-run", "--disable-extensions", "--password-store=basic", f"--user-data-dir={self.home}/profile"):
            options.add_argument(argument)
        service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver", env={**os.environ, "HOME": self.home})
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.set_page_load_timeout(PAGE_TIMEOUT)
        self.screenshots = os.environ.get("FAKEENTRA_SCREENSHOTS")

    def fresh(self):
        """No cookies, no page, JavaScript off."""
        self.driver.get("about:blank")
        self.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        self.scripts(False)

    def scripts(self, enabled):
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": not enabled})

    @contextlib.contextmanager
    def with_scripts(self):
        self.scripts(True)
        try:
            yield
        finally:
            self.scripts(False)

    # MARK: reading pages

    def find(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def has(self, element_id):
        return bool(self.driver.find_elements(By.ID, element_id))

    def wait_for(self, element_id, timeout=PAGE_TIMEOUT):
        try:
            WebDriverWait(self.driver, timeout).until(lambda d: d.find_elements(By.ID, element_id))
        except Exception:
            raise AssertionError(f"no #{element_id} on {self.url}:\n{self.text()}") from None
        return self.find(element_id)

    def text(self):
        return self.driver.find_element(By.TAG_NAME, "body").text

    @property
    def url(self):
        return self.driver.current_url

    def shot(self, name):
        if self.screenshots:
            pathlib.Path(self.screenshots).mkdir(parents=True, exist_ok=True)
            self.driver.save_screenshot(str(pathlib.Path(self.screenshots, name + ".png")))

    # MARK: acting like a person

    def open(self, url):
        self.driver.get(url)

    def type(self, element_id, text):
        field = self.find(element_id)
        field.clear()
        field.send_keys(text)

    def fill(self, fields, submit):
        """Types each {element id: text} and presses the `submit` button."""
        for element_id, text in fields.items():
            self.type(element_id, text)
        self.click(submit)

    def click(self, element_id):
        """Clicks and waits until the browser has left the page (a form post or link navigation)."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.find(element_id).click()
        WebDriverWait(self.driver, PAGE_TIMEOUT).until(lambda d: _is_stale(old))

    def reload(self):
        """The Reload button (re-GET, or re-POST of a page that answered a form post)."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.refresh()
        WebDriverWait(self.driver, PAGE_TIMEOUT).until(lambda d: _is_stale(old))

    def back(self):
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.back()
        WebDriverWait(self.driver, PAGE_TIMEOUT).until(lambda d: _is_stale(old))

    def quit(self):
        self.driver.quit()
        shutil.rmtree(self.home, ignore_errors=True)


def _is_stale(element):
    try:
        element.is_enabled()
        return False
    except Exception:
        return True


@pytest.fixture(scope="module")
def server(certs_dir):
    """Each browser test module's own server: its pages create accounts and change passwords."""
    from real_servers import RunningServer
    s = RunningServer([], certs_dir)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def chromium_session(certs_dir, server):
    browser = Chromium(os.path.join(certs_dir, "ca.pem"))
    yield browser
    browser.quit()


@pytest.fixture
def chromium(chromium_session):
    chromium_session.fresh()
    return chromium_session


@pytest.fixture
def listener():
    app = Listener()
    yield app
    app.stop()


# MARK: an app's side of a sign-in

class AppRequest:
    """One /authorize request of a public client with PKCE, and the redemption of its code."""

    def __init__(self, server, listener, base, client_id=None, scope="openid profile offline_access", state=None, **parameters):
        import base64
        import hashlib
        import secrets
        import uuid
        self.server = server
        self.listener = listener
        self.base = base
        self.client_id = client_id or str(uuid.uuid4())
        self.scope = scope
        self.redirect_uri = listener.redirect_uri
        self.verifier = secrets.token_urlsafe(48)
        self.state = state or secrets.token_urlsafe(12)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(self.verifier.encode()).digest()).rstrip(b"=").decode()
        query = {"client_id": self.client_id, "response_type": "code", "redirect_uri": self.redirect_uri, "scope": scope,
                 "state": self.state, "nonce": secrets.token_urlsafe(12), "code_challenge": challenge, "code_challenge_method": "S256",
                 **parameters}
        self.url = f"{base}/oauth2/v2.0/authorize?" + urllib.parse.urlencode(query)

    def reply(self):
        """What reached the redirect URI for this request (matched by its state)."""
        return self.listener.wait(lambda hit: hit["fields"].get("state") == self.state)

    def redeem(self, reply=None):
        import requests
        reply = reply or self.reply()
        assert reply["fields"].get("state") == self.state, reply
        assert "code" in reply["fields"], reply
        response = requests.post(f"{self.base}/oauth2/v2.0/token", verify=self.server.ca, timeout=30, data={
            "grant_type": "authorization_code", "client_id": self.client_id, "code": reply["fields"]["code"],
            "redirect_uri": self.redirect_uri, "code_verifier": self.verifier, "scope": self.scope})
        assert response.status_code == 200, response.text
        return response.json()


def claims(jwt):
    import base64
    import json
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def on_page(browser, element_id, shot=None, reload=True):
    """The page showing `element_id` is shown, is no error page, and survives Reload (which repeats the
    GET or the post that showed it) as the same page."""
    browser.wait_for(element_id)
    assert not browser.has("error"), browser.text()
    if shot:
        browser.shot(shot)
    if reload:
        browser.reload()
        assert browser.has(element_id), f"after Reload, #{element_id} is gone: {browser.url}\n{browser.text()}"
        assert not browser.has("error"), browser.text()
