"""RFC 8707's `resource` on the v2.0 endpoints, sent the way MCP clients send it, by Authlib's OAuth 2.0
client (not MSAL): on /authorize, the code redemption and the refresh. An Application ID URI of the scopes'
app, character for character, changes nothing; any other value is invalid_target, AADSTS9010010,
redirected to the app from /authorize and as JSON from the token endpoint."""
import urllib.parse
import uuid

import pytest
import requests
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from authlib.common.security import generate_token

from browser_driver import drive
from test_msal_public_client import ADELE, PASSWORD

REDIRECT = "http://localhost:8403/callback"
GRAPH = "https://graph.microsoft.com"


def session(server, scope):
    client = OAuth2Session(str(uuid.uuid4()), scope=scope, redirect_uri=REDIRECT, code_challenge_method="S256", token_endpoint_auth_method="none")
    client.verify = server.ca
    return client


def test_a_matching_resource_on_authorize_redemption_and_refresh(server):
    authority = f"{server.url}/contoso.onmicrosoft.com/oauth2/v2.0"
    client = session(server, f"openid offline_access {GRAPH}/User.Read")
    verifier = generate_token(64)
    url, _ = client.create_authorization_url(f"{authority}/authorize", code_verifier=verifier, resource=GRAPH)
    assert "resource=https%3A%2F%2Fgraph.microsoft.com" in url
    final, _, _ = drive(url, ADELE, PASSWORD, REDIRECT, verify=server.ca)
    token = client.fetch_token(f"{authority}/token", authorization_response=final, code_verifier=verifier, resource=GRAPH)
    me = requests.get(f"{server.url}/v1.0/me", headers={"Authorization": f"Bearer {token['access_token']}"}, verify=server.ca, timeout=30)
    assert me.status_code == 200 and me.json()["userPrincipalName"] == ADELE
    refreshed = client.refresh_token(f"{authority}/token", refresh_token=token["refresh_token"], resource=GRAPH)
    assert refreshed["access_token"] != token["access_token"]
    with pytest.raises(OAuthError) as refused:
        client.refresh_token(f"{authority}/token", refresh_token=refreshed["refresh_token"], resource=GRAPH + "/")
    assert refused.value.error == "invalid_target" and "AADSTS9010010" in refused.value.description


def test_an_mcp_servers_url_with_graph_scopes_comes_back_to_the_app(server):
    """The common MCP mistake: the server's URL as `resource`, a short scope name (read as Graph's)."""
    client = session(server, "openid User.Read")
    url, state = client.create_authorization_url(f"{server.url}/contoso.onmicrosoft.com/oauth2/v2.0/authorize",
                                                 code_verifier=generate_token(64), resource="https://mcp.contoso.example")
    answer = requests.get(url, verify=server.ca, allow_redirects=False, timeout=30)
    assert answer.status_code == 302, answer.text[:300]
    location = urllib.parse.urlsplit(answer.headers["Location"])
    reply = dict(urllib.parse.parse_qsl(location.query))
    assert location.netloc == "localhost:8403" and reply["error"] == "invalid_target" and reply["state"] == state, reply
    assert reply["error_description"].startswith("AADSTS9010010: The resource parameter provided in the request doesn't match with the requested scopes.")
