"""MSAL for Python, unchanged, against a Microsoft Entra External ID authority (`https://woodgrove.ciamlogin.com/`):
the real host name reaches the server through a CONNECT proxy, as a hosts-file line would on a laptop. MSAL
resolves the path-less authority to `/woodgrove.onmicrosoft.com`, reads the tenant's discovery document there
and validates the tokens against it."""
import urllib.parse
import uuid

import msal
import pytest
import requests

from browser_driver import drive
from connect_proxy import ConnectProxy

WOODGROVE_ID = "8b3f2a6e-1c4d-4f7a-9e25-6d0c1b7a4f93"
JORDAN = "jordan@woodgrove.example"
PASSWORD = "Passw0rd!"
REDIRECT = "http://localhost:8400/callback"
AUTHORITY = "https://woodgrove.ciamlogin.com/"


@pytest.fixture
def ciam(fakeentra_factory, tmp_path_factory, monkeypatch):
    """A server named for every *.ciamlogin.com host, with its own CA, reached through the proxy only."""
    server = fakeentra_factory("--hostname", "*.ciamlogin.com", certs_dir=str(tmp_path_factory.mktemp("ciam-certs")))
    port = int(server.host.rsplit(":", 1)[1])
    proxy = ConnectProxy({"woodgrove.ciamlogin.com:443": ("127.0.0.1", port)})
    for name, value in {**proxy.environment, **server.ca_environment}.items():
        monkeypatch.setenv(name, value)
    yield server
    proxy.stop()
    assert not proxy.refused(), f"something tried to leave the machine: {proxy.refused()}"


def test_discovery_names_external_ids_issuer(ciam):
    document = requests.get(f"{AUTHORITY}woodgrove.onmicrosoft.com/v2.0/.well-known/openid-configuration", timeout=30).json()
    assert document["issuer"] == f"https://{WOODGROVE_ID}.ciamlogin.com/{WOODGROVE_ID}/v2.0"
    assert document["token_endpoint"] == f"https://woodgrove.ciamlogin.com/{WOODGROVE_ID}/oauth2/v2.0/token"


def test_msal_signs_a_customer_in_through_the_pages_and_refreshes_silently(ciam):
    app = msal.PublicClientApplication(str(uuid.uuid4()), authority=AUTHORITY)
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=REDIRECT)
    assert flow["auth_uri"].startswith(f"https://woodgrove.ciamlogin.com/{WOODGROVE_ID}/oauth2/v2.0/authorize?")
    session = requests.Session()
    final, fields, _ = drive(flow["auth_uri"], JORDAN, PASSWORD, REDIRECT, session=session)
    response = fields if fields is not None else dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query))
    result = app.acquire_token_by_auth_code_flow(flow, response)
    assert "access_token" in result, result
    claims = result["id_token_claims"]
    assert claims["iss"] == f"https://{WOODGROVE_ID}.ciamlogin.com/{WOODGROVE_ID}/v2.0"
    assert claims["tid"] == WOODGROVE_ID and claims["preferred_username"] == JORDAN
    account = app.get_accounts()[0]
    assert account["username"] == JORDAN
    refreshed = app.acquire_token_silent(["User.Read"], account=account, force_refresh=True)
    assert refreshed and "access_token" in refreshed and refreshed["access_token"] != result["access_token"], refreshed


def test_a_work_account_cannot_sign_in_at_the_external_tenant(ciam):
    app = msal.PublicClientApplication(str(uuid.uuid4()), authority=AUTHORITY)
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=REDIRECT)
    with pytest.raises(Exception) as failure:
        drive(flow["auth_uri"], "adele.vance@contoso.onmicrosoft.com", PASSWORD, REDIRECT, session=requests.Session(), max_steps=4)
    assert "50034" in str(getattr(failure.value, "page", "")) or "50034" in str(failure.value)


def test_native_sign_up_with_the_code_read_from_the_outbox_then_msal_refreshes(ciam):
    """The native authentication API's sign-up as MSAL for iOS sends it (start, challenge, continue, then the
    token endpoint with the continuation token), the one-time code read from the outbox; MSAL for Python then
    refreshes the resulting tokens at the same authority."""
    base = "https://woodgrove.ciamlogin.com/woodgrove.onmicrosoft.com"
    client_id, address = str(uuid.uuid4()), f"new-{uuid.uuid4().hex[:8]}@woodgrove.example"

    def post(path, **form):
        return requests.post(f"{base}/{path}", data={"client_id": client_id, **form}, timeout=30)

    started = post("signup/v1.0/start", username=address, password="Str0ng!pass", challenge_type="oob password redirect",
                   attributes='{"displayName": "New Customer"}')
    assert started.status_code == 200, started.text
    challenged = post("signup/v1.0/challenge", continuation_token=started.json()["continuation_token"], challenge_type="oob password redirect")
    assert challenged.json()["challenge_type"] == "oob" and challenged.json()["code_length"] == 8
    code = ciam.outbox(address)[-1]["code"]
    verified = post("signup/v1.0/continue", continuation_token=challenged.json()["continuation_token"], grant_type="oob", oob=code)
    assert verified.status_code == 200, verified.text
    tokens = post("oauth2/v2.0/token", continuation_token=verified.json()["continuation_token"], grant_type="continuation_token",
                  username=address, scope="openid profile offline_access User.Read", client_info="true")
    assert tokens.status_code == 200, tokens.text
    assert tokens.json()["client_info"]
    app = msal.PublicClientApplication(client_id, authority=AUTHORITY)
    refreshed = app.acquire_token_by_refresh_token(tokens.json()["refresh_token"], ["User.Read"])
    assert "access_token" in refreshed, refreshed
    assert refreshed["id_token_claims"]["preferred_username"] == address


def test_msal_signs_a_new_customer_up_through_the_pages_with_the_mailed_code(ciam):
    """`prompt=create`: the sign-up page, then External ID's "Verify your email" page with the code read from
    the outbox, then the app's redirect; MSAL redeems the code and the new customer's tokens refresh."""
    from browser_driver import drive_response, parse_forms

    app = msal.PublicClientApplication(str(uuid.uuid4()), authority=AUTHORITY)
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=REDIRECT, prompt="create")
    session = requests.Session()
    address = f"page-{uuid.uuid4().hex[:8]}@woodgrove.example"

    def post_form(page, **values):
        form = parse_forms(page.text)[0]
        fields = {i["name"]: i["value"] for i in form["inputs"] if i.get("name") and not i.get("unchecked")}
        return session.post(urllib.parse.urljoin(page.url, form["action"] or page.url), data={**fields, **values}, allow_redirects=False)

    page = session.get(flow["auth_uri"], allow_redirects=False)
    assert 'name="email"' in page.text, page.text[:500]
    page = post_form(page, email=address, displayName="Page Customer", passwd="Str0ng!pass", action="create")
    assert 'id="verificationEmail"' in page.text and address in page.text
    wrong = post_form(page, verificationCode="00000000", action="verifyemail")
    assert "AADSTS50181" in wrong.text
    code = ciam.outbox(address)[-1]["code"]
    final, fields, _ = drive_response(post_form(wrong, verificationCode=code, action="verifyemail"), address, "Str0ng!pass", REDIRECT, session)
    response = fields if fields is not None else dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query))
    result = app.acquire_token_by_auth_code_flow(flow, response)
    assert "access_token" in result, result
    assert result["id_token_claims"]["preferred_username"] == address and result["id_token_claims"]["name"] == "Page Customer"
    refreshed = app.acquire_token_silent(["User.Read"], account=app.get_accounts()[0], force_refresh=True)
    assert refreshed and "access_token" in refreshed, refreshed


def test_a_forgotten_password_reset_through_the_pages_ends_the_old_sessions_refresh_token(ciam):
    """Forgot password? on the sign-in page: the address, the code read from the outbox, a new password; MSAL
    redeems the code, and an app still holding the customer's earlier refresh token is refused (AADSTS50173)."""
    from browser_driver import drive_response, parse_forms

    earlier = msal.PublicClientApplication(str(uuid.uuid4()), authority=AUTHORITY)
    first = earlier.initiate_auth_code_flow(["User.Read"], redirect_uri=REDIRECT)
    final, fields, _ = drive(first["auth_uri"], JORDAN, PASSWORD, REDIRECT, session=requests.Session())
    assert "access_token" in earlier.acquire_token_by_auth_code_flow(
        first, fields if fields is not None else dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query)))

    app = msal.PublicClientApplication(str(uuid.uuid4()), authority=AUTHORITY)
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=REDIRECT, prompt="login")
    session = requests.Session()

    def post_form(page, **values):
        form = parse_forms(page.text)[0]
        fields = {i["name"]: i["value"] for i in form["inputs"] if i.get("name") and not i.get("unchecked")}
        return session.post(urllib.parse.urljoin(page.url, form["action"] or page.url), data={**fields, **values}, allow_redirects=False)

    page = session.get(flow["auth_uri"], allow_redirects=False)
    page = post_form(page, login=JORDAN, action="forgotpassword")
    assert 'id="ResetEmail"' in page.text, page.text[:500]
    page = post_form(page, email=JORDAN, action="sendresetcode")
    assert 'id="idTxtBx_OTC_Password"' in page.text, page.text[:500]
    page = post_form(page, oneTimeCode=ciam.outbox(JORDAN)[-1]["code"], action="emailcode")
    page = post_form(page, newPassword="N3w!passw0rd", confirmNewPassword="N3w!passw0rd", action="setnewpassword")
    final, fields, _ = drive_response(page, JORDAN, "N3w!passw0rd", REDIRECT, session)
    result = app.acquire_token_by_auth_code_flow(flow, fields if fields is not None else dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query)))
    assert result.get("id_token_claims", {}).get("preferred_username") == JORDAN, result

    stale = earlier.acquire_token_silent_with_error(["User.Read"], account=earlier.get_accounts()[0], force_refresh=True)
    assert stale and stale.get("error") == "invalid_grant" and 50173 in stale.get("error_codes", []), stale
