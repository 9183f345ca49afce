"""MSAL for Python (PyPI `msal`) against FakeEntra's Azure AD B2C policy authorities: each user flow of
seed 002 (sign-up or sign-in, edit profile, password reset) and the forgotten-password hand-over."""
import re
import urllib.parse
import uuid

import msal
import pytest
import requests

from browser_driver import drive, drive_response, parse_forms
from real_servers import port_443_available

TENANT = "fabrikamb2c.onmicrosoft.com"
TENANT_ID = "5d8f1b2e-3c4a-4e6f-9a1b-7c2d3e4f5a6b"
SCOPE = "https://fabrikamb2c.onmicrosoft.com/helloapi/demo.read"
BEN, PASSWORD = "ben@fabrikam.test", "Passw0rd!"
REDIRECT = "http://localhost:8401/callback"


def b2c_app(server, policy, form="/{tenant}/{policy}", client_id=None):
    # A policy path of three segments is how MSAL Python recognises B2C on a host other than *.b2clogin.com.
    authority = server.url + form.format(tenant=TENANT, policy=policy)
    return msal.PublicClientApplication(client_id or str(uuid.uuid4()), authority=authority, instance_discovery=False)


def redirect_params(location):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(location).query))


def start(server, app, session=None, **flow_kwargs):
    flow = app.initiate_auth_code_flow([SCOPE], redirect_uri=REDIRECT, **flow_kwargs)
    session = session or requests.Session()
    session.verify = server.ca
    return flow, session, session.get(flow["auth_uri"], allow_redirects=False)


def link(page, link_id):
    match = re.search(r'<a id="%s" href="([^"]*)"' % link_id, page)
    assert match, page[:400]
    return match.group(1).replace("&amp;", "&")


def finish(app, flow, response, session, user=BEN, password=PASSWORD):
    final, fields, _ = drive_response(response, user, password, REDIRECT, session)
    return app.acquire_token_by_auth_code_flow(flow, fields or redirect_params(final))


def test_sign_up_or_sign_in_policy_issues_b2c_tokens(server):
    app = b2c_app(server, "B2C_1_susi")
    flow, session, page = start(server, app)
    result = finish(app, flow, page, session)
    assert "access_token" in result, result
    claims = result["id_token_claims"]
    assert claims["ver"] == "1.0" and claims["tfp"] == "B2C_1_susi"
    assert claims["emails"] == [BEN]
    assert claims["iss"] == f"{server.url}/{TENANT_ID}/v2.0/"
    account = app.get_accounts()[0]
    assert account["home_account_id"] == f"{claims['oid']}-b2c_1_susi.{TENANT_ID}"
    refreshed = app.acquire_token_silent([SCOPE], account=account, force_refresh=True)
    assert refreshed and "access_token" in refreshed, refreshed


def test_tfp_authority_form(server):
    app = b2c_app(server, "B2C_1_susi", form="/tfp/{tenant}/{policy}")
    flow, session, page = start(server, app)
    assert "access_token" in finish(app, flow, page, session)


def test_forgotten_password_hands_over_to_the_reset_policy(server):
    susi = b2c_app(server, "B2C_1_susi")
    flow, session, page = start(server, susi)
    forgot = session.get(urllib.parse.urljoin(server.url, link(page.text, "forgotPassword")), allow_redirects=False)
    error = susi.acquire_token_by_auth_code_flow(flow, redirect_params(forgot.headers["Location"]))
    assert error["error"] == "access_denied"
    assert error["error_description"].startswith("AADB2C90118: The user has forgotten their password.")

    reset = b2c_app(server, "B2C_1_reset")
    flow, session, page = start(server, reset, session)
    # The driver types the address, the code mailed to the outbox, then the (same) password twice.
    result = finish(reset, flow, page, session)
    assert "access_token" in result, result
    assert result["id_token_claims"]["tfp"] == "B2C_1_reset"


def test_sign_up_then_edit_profile(server):
    susi = b2c_app(server, "B2C_1_susi")
    flow, session, page = start(server, susi, prompt="login")
    sign_up = session.get(urllib.parse.urljoin(server.url, link(page.text, "createAccount")), allow_redirects=False)
    email = f"user-{uuid.uuid4().hex[:8]}@fabrikam.test"
    created = finish(susi, flow, sign_up, session, user=email, password="N3w!user")
    assert created["id_token_claims"].get("newUser") is True, created

    edit = b2c_app(server, "B2C_1_edit_profile")
    flow, session, page = start(server, edit, session)
    form = parse_forms(page.text)[0]
    fields = {i["name"]: i["value"] for i in form["inputs"] if i.get("name")}
    fields.update(displayName="Edited Name", action="saveProfile")
    saved = session.post(urllib.parse.urljoin(server.url, form["action"]), data=fields, allow_redirects=False)
    result = edit.acquire_token_by_auth_code_flow(flow, redirect_params(saved.headers["Location"]))
    assert result["id_token_claims"]["name"] == "Edited Name"
    assert "newUser" not in result["id_token_claims"]


def test_refresh_token_of_one_policy_is_refused_by_another(server):
    susi = b2c_app(server, "B2C_1_susi")
    flow, session, page = start(server, susi)
    result = finish(susi, flow, page, session)
    response = requests.post(f"{server.url}/{TENANT}/B2C_1_edit_profile/oauth2/v2.0/token", verify=server.ca, data={
        "client_id": flow["auth_uri"].split("client_id=")[1].split("&")[0], "grant_type": "refresh_token",
        "refresh_token": result["refresh_token"], "scope": SCOPE})
    assert response.status_code == 400
    assert response.json()["error_description"].startswith("AADB2C90088")






@pytest.mark.skipif(not port_443_available(), reason="binding port 443 needs root")
def test_ropc_policy_with_username_and_password(make_server):
    # MSAL Python asks https://<host>/common/userrealm/<user> without the port first: port 443 only.
    make_server(port=443)
    app = msal.PublicClientApplication(str(uuid.uuid4()), authority=f"https://127.0.0.1/{TENANT}/B2C_1_ropc", instance_discovery=False)
    result = app.acquire_token_by_username_password(BEN, PASSWORD, scopes=[SCOPE])
    assert "access_token" in result, result
    assert result["id_token_claims"]["tfp"] == "B2C_1_ropc"
    wrong = app.acquire_token_by_username_password(BEN, "wrong", scopes=[SCOPE])
    assert wrong["error_description"].startswith("AADB2C90225"), wrong


def test_a_daemon_gets_its_own_token_for_the_tenants_api(server):
    """MSAL for Python's ConfidentialClientApplication with a B2C policy authority, as Microsoft's B2C
    client-credentials guide sets it up: `{Application ID URI}/.default`, the API's app roles in `scp`."""
    client_id = str(uuid.uuid4())
    app = msal.ConfidentialClientApplication(client_id, client_credential="daemon-secret",
                                             authority=f"{server.url}/{TENANT}/B2C_1A_SUSI", instance_discovery=False)
    result = app.acquire_token_for_client(["https://fabrikamb2c.onmicrosoft.com/helloapi/.default"])
    assert "access_token" in result, result
    claims = jwt_claims(result["access_token"])
    # MSAL lowercases the authority; an unconfigured custom policy is named as the request wrote it.
    assert claims["azp"] == client_id and claims["scp"] == "app.read app.write" and claims["tfp"].upper() == "B2C_1A_SUSI"
    # Cached as MSAL caches app tokens: the second call is answered without a request.
    assert app.acquire_token_for_client(["https://fabrikamb2c.onmicrosoft.com/helloapi/.default"])["token_source"] == "cache"


def jwt_claims(token):
    import base64
    import json
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
