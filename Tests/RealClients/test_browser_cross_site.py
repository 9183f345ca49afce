"""What a web page on another origin can do to a FakeEntra running next to the browser: nothing. In
headless Chromium, a page served from another origin auto-submits a text/plain form to the control API,
fires no-cors fetches at it, frames the console, and sends a sign-in to a javascript: redirect URI."""
import http.server
import threading
import time
import uuid

import pytest
import requests

from chromium import chromium, chromium_session, listener, server  # noqa: F401 (fixtures)


class OtherOrigin:
    """A page server on http://127.0.0.1:<its own port>: another origin and another site than FakeEntra's."""

    def __init__(self):
        self.pages = {}
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = outer.pages.get(self.path.split("?")[0], "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


@pytest.fixture
def other_origin():
    site = OtherOrigin()
    yield site
    site.stop()


def user_names(server):
    response = server.control("GET", "/_fakeentra/users")
    assert response.status_code == 200, response.text
    return {u["userPrincipalName"].lower() for u in response.json()["users"]}


def test_a_page_of_another_origin_cannot_change_anything(server, chromium, other_origin):
    kept = f"kept-{uuid.uuid4().hex[:8]}@contoso.onmicrosoft.com"
    assert server.control("POST", "/_fakeentra/users", json={"userPrincipalName": kept, "displayName": "Kept"}).status_code == 201
    clock_before = server.control("GET", "/_fakeentra/clock").json()
    mallory = "mallory@contoso.onmicrosoft.com"
    # The classic: a form whose text/plain body is JSON, submitted as soon as the page loads.
    other_origin.pages["/form"] = f"""<!DOCTYPE html><form id=f method=POST enctype="text/plain" action="{server.url}/_fakeentra/users">
        <input type=hidden name='{{"userPrincipalName":"{mallory}","displayName":"M","x":"' value='"}}'></form>
        <script>document.getElementById("f").submit()</script>"""
    # Fetches that need no CORS preflight: their answers are opaque, but a server that acted on them changed state.
    other_origin.pages["/fetch"] = f"""<!DOCTYPE html><p id=done>no</p><script>
        Promise.allSettled([
          fetch("{server.url}/_fakeentra/reset", {{method: "POST", mode: "no-cors"}}),
          fetch("{server.url}/_fakeentra/clock/advance", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: '{{"seconds": 86400}}'}}),
          fetch("{server.url}/_fakeentra/users", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: '{{"userPrincipalName": "{mallory}"}}'}}),
        ]).then(() => document.getElementById("done").textContent = "yes")</script>"""
    with chromium.with_scripts():
        chromium.open(other_origin.url + "/form")
        deadline = time.monotonic() + 15
        while chromium.url.startswith(other_origin.url) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert chromium.url == server.url + "/_fakeentra/users", chromium.url
        assert "cross_site_request" in chromium.driver.page_source
        chromium.open(other_origin.url + "/fetch")
        chromium.wait_for("done")
        deadline = time.monotonic() + 15
        while chromium.find("done").text != "yes" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert chromium.find("done").text == "yes"
    names = user_names(server)
    assert mallory not in names and kept in names, "no user created, no reset"
    assert server.control("GET", "/_fakeentra/clock").json()["offsetSeconds"] == clock_before["offsetSeconds"]


def test_the_console_and_the_sign_in_pages_cannot_be_framed(server, chromium, other_origin, listener):
    other_origin.pages["/frames"] = f"""<!DOCTYPE html>
        <iframe id=console src="{server.url}/"></iframe>
        <iframe id=signin src="{server.url}/common/oauth2/v2.0/authorize?client_id={uuid.uuid4()}&response_type=code&redirect_uri={listener.redirect_uri}&scope=openid"></iframe>
        <iframe id=permissive src="{listener.redirect_uri}"></iframe>"""
    chromium.open(other_origin.url + "/frames")
    driver = chromium.driver
    seen = {}
    for frame in ("console", "signin", "permissive"):
        driver.switch_to.default_content()
        driver.switch_to.frame(frame)
        seen[frame] = driver.page_source
    driver.switch_to.default_content()
    # The control: a page without the headers renders inside the frame, so the check below can fail.
    assert "app-callback" in seen["permissive"]
    assert 'id="glance"' not in seen["console"] and "authorities" not in seen["console"], seen["console"][:300]
    assert "i0116" not in seen["signin"], seen["signin"][:300]


def test_a_javascript_redirect_uri_runs_nothing(server, chromium):
    refused = server.control("POST", "/_fakeentra/apps", json={"clientId": str(uuid.uuid4()), "redirectUris": ["javascript:window.__xss=1"]})
    assert refused.status_code == 422, refused.text
    client = str(uuid.uuid4())
    with chromium.with_scripts():
        chromium.open(f"{server.url}/common/oauth2/v2.0/authorize?client_id={client}&response_type=code&response_mode=form_post"
                      f"&redirect_uri=javascript%3Awindow.__xss%3D1&scope=openid")
        assert "AADSTS50011" in chromium.text()
        assert chromium.driver.execute_script("return window.__xss === undefined")
        assert not chromium.driver.find_elements("css selector", "form[action^='javascript' i]")


def test_only_fakeentras_own_scripts_run(server, chromium, listener):
    """The pages' policy allows FakeEntra's two inline scripts by hash and nothing else: the console's
    copy buttons appear and a form_post answer submits itself, with script on."""
    from chromium import AppRequest
    with chromium.with_scripts():
        chromium.open(server.url + "/")
        buttons = chromium.driver.find_elements("css selector", "button[data-copy]")
        assert buttons and any(b.is_displayed() for b in buttons), "the console's script ran"
        app = AppRequest(server, listener, f"{server.url}/contoso.onmicrosoft.com", response_mode="form_post")
        chromium.open(app.url)
        chromium.fill({"i0116": "adele.vance@contoso.onmicrosoft.com"}, submit="idSIButton9")
        chromium.fill({"i0118": "Passw0rd!"}, submit="idSIButton9")
        if chromium.has("idSIButton9") and "consent" in chromium.text().lower():
            chromium.click("idSIButton9")
        hit = listener.wait(lambda h: h["method"] == "POST")
        assert "code" in hit["fields"], hit
        # Only hashes: an inline script that is not FakeEntra's own would be blocked.
        policy = requests.get(server.url + "/", verify=server.ca, timeout=10).headers["Content-Security-Policy"]
        assert "script-src 'sha256-" in policy and "unsafe-inline" not in policy
