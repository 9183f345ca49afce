"""No page reflects a user-supplied string unescaped: markup put in every parameter a page shows (login
hint, state, client id, redirect URI, tenant and policy segments, codes typed in forms) stays text,
both in the raw HTML and in the DOM Chromium builds from it with script ON (nothing runs)."""
import urllib.parse
import uuid

import requests

from chromium import AppRequest, chromium, chromium_session, listener, server  # noqa: F401 (fixtures)

# No "/" so that it also fits in a path segment; each element would set window.__xss if parsed as markup.
PAYLOAD = "\"'><img src=x data-xss onerror=window.__xss=1><svg data-xss onload=window.__xss=1><script>window.__xss=1</script>"
RAW_MARKERS = ("<img src=x", "<svg data-xss", "<script>window.__xss")
B2C = "fabrikamb2c.onmicrosoft.com"


def reflected_urls(server, redirect_uri):
    base = server.url
    app = {"response_type": "code", "redirect_uri": redirect_uri, "scope": "openid", "state": PAYLOAD}
    q = urllib.parse.urlencode
    return {
        "login_hint on the sign-in page": f"{base}/common/oauth2/v2.0/authorize?" + q({**app, "client_id": str(uuid.uuid4()), "login_hint": PAYLOAD}),
        "client_id on the error page": f"{base}/common/oauth2/v2.0/authorize?" + q({**app, "client_id": PAYLOAD}),
        "redirect_uri on the error page": f"{base}/common/oauth2/v2.0/authorize?" + q({**app, "client_id": str(uuid.uuid4()), "redirect_uri": "https://evil.example/" + PAYLOAD}),
        "tenant segment": f"{base}/{urllib.parse.quote(PAYLOAD, safe='')}/oauth2/v2.0/authorize?" + q({**app, "client_id": str(uuid.uuid4())}),
        "v1 resource and prompt": f"{base}/common/oauth2/authorize?" + q({**app, "client_id": str(uuid.uuid4()), "resource": PAYLOAD, "prompt": PAYLOAD}),
        "device code typed in the link": f"{base}/devicelogin?" + q({"otc": PAYLOAD}),
        "error lookup": f"{base}/error?" + q({"code": PAYLOAD}),
        "B2C login_hint": f"{base}/tfp/{B2C}/B2C_1_susi/oauth2/v2.0/authorize?" + q({**app, "client_id": str(uuid.uuid4()), "login_hint": PAYLOAD}),
        "B2C policy segment": f"{base}/tfp/{B2C}/{urllib.parse.quote('B2C_1_' + PAYLOAD, safe='')}/oauth2/v2.0/authorize?" + q({**app, "client_id": str(uuid.uuid4())}),
        "B2C flow id": f"{base}/tfp/{B2C}/B2C_1_susi/oauth2/v2.0/authorize?" + q({"ctx": PAYLOAD, "action": "showSignUp"}),
        "logout redirect": f"{base}/common/oauth2/v2.0/logout?" + q({"post_logout_redirect_uri": PAYLOAD}),
    }


def assert_inert(browser, where, scripts=True):
    assert not browser.driver.find_elements("css selector", "[data-xss]"), f"{where}: injected markup became elements"
    if scripts:
        assert browser.driver.execute_script("return window.__xss === undefined"), f"{where}: injected script ran"


def test_no_page_reflects_a_parameter_unescaped(server, chromium, listener):
    for where, url in reflected_urls(server, listener.redirect_uri).items():
        response = requests.get(url, verify=server.ca, timeout=30, allow_redirects=False)
        if response.headers.get("Content-Type", "").startswith("text/html"):
            for marker in RAW_MARKERS:
                assert marker not in response.text, f"{where}: {marker!r} reflected raw (HTTP {response.status_code})"
            assert response.headers.get("X-Content-Type-Options") == "nosniff", where
        with chromium.with_scripts():
            chromium.open(url)
            assert_inert(chromium, where)


def test_typed_values_and_state_stay_text_through_the_pages(server, chromium, listener):
    app = AppRequest(server, listener, f"{server.url}/contoso.onmicrosoft.com", response_mode="form_post", state=PAYLOAD)
    with chromium.with_scripts():
        chromium.open(app.url)
        chromium.fill({"i0116": PAYLOAD + "@contoso.onmicrosoft.com", "i0118": "x"}, submit="idSIButton9")
        # The unknown name comes back in the field, as a value (the message hides it, as the service does).
        assert chromium.find("i0116").get_attribute("value") == PAYLOAD + "@contoso.onmicrosoft.com"
        assert_inert(chromium, "the sign-in page's error")
        chromium.scripts(False)
        chromium.fill({"i0116": "adele.vance@contoso.onmicrosoft.com", "i0118": "Passw0rd!"}, submit="idSIButton9")
        # The form_post page carries the state back in a hidden field; without script it waits for Continue.
        assert_inert(chromium, "the form_post page", scripts=False)
        chromium.click("idSubmit_Continue")
    assert app.reply()["fields"]["state"] == PAYLOAD
