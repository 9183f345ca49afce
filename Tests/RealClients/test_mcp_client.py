"""An MCP server protected by Entra ID and an MCP client, both from the official MCP SDK for Python (`mcp`),
with FakeEntra as the authorization server, as an MCP client meets Entra in 2026:

- the client finds the server's protected resource metadata (RFC 9728), which names the tenant's v2.0
  issuer; it looks for RFC 8414 metadata first, which Entra does not serve (404), then finds the OpenID
  configuration at the issuer;
- Entra has no dynamic client registration: the client is registered beforehand, as every Entra MCP
  guide says;
- the client sends the server's URL as `resource` (RFC 8707) on /authorize and /token, with the server's
  scopes written in full (`{Application ID URI}/tools.call`): the Application ID URI is the server's URL,
  character for character, or the service refuses the request with AADSTS9010010;
- the server validates Entra's token (signature by the tenant's JWKS, audience, `scp`).
"""
import asyncio
import importlib.util
import pathlib
import socket
import ssl
import urllib.parse
import uuid

import pytest
import requests

from browser_driver import drive
from test_msal_public_client import ADELE, PASSWORD

pytest.importorskip("mcp", reason="the MCP SDK for Python is installed by scripts/setup")
import httpx2  # noqa: E402  (the MCP SDK's HTTP client)
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared.auth import OAuthClientMetadata  # noqa: E402

# The conformance suite's MCP adapter: its token storage is the pre-registered client an app on Entra uses.
_ADAPTER = pathlib.Path(__file__).resolve().parents[2] / "clients" / "conformance" / "mcp" / "adapter.py"
_spec = importlib.util.spec_from_file_location("conformance_mcp_adapter", _ADAPTER)
conformance_adapter = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conformance_adapter)

CONTOSO = "contoso.onmicrosoft.com"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PreRegistered(conformance_adapter.PreRegistered):
    """The conformance adapter's storage (the client id from the app's registration), which here also
    fails the test if the client tries to register itself."""

    async def set_client_info(self, client_info):
        raise AssertionError("the client tried to register itself; Entra has no registration endpoint")


@pytest.fixture
def mcp_deployment(make_server, request):
    """FakeEntra with the MCP server's app (its Application ID URI is the server's URL) and the client's.
    The server's metadata names its scope in full, unless the test asks for the short name."""
    short_scopes = getattr(request, "param", False)
    port, api_id, client_id = free_port(), str(uuid.uuid4()), str(uuid.uuid4())
    resource = f"http://127.0.0.1:{port}/mcp"
    redirect = "http://localhost:8405/callback"
    fakeentra = make_server(config={
        "apps": [
            {"clientId": api_id, "displayName": "Orders MCP server", "tenant": CONTOSO, "publicClient": False,
             "identifierUris": [resource], "exposedScopes": ["tools.call"]},
            {"clientId": client_id, "displayName": "Orders MCP client", "tenant": CONTOSO, "redirectUris": [redirect]},
        ],
        "consents": [{"clientId": client_id, "resource": resource, "scopes": ["tools.call"], "tenant": CONTOSO}]})
    tenant_id = requests.get(f"{fakeentra.url}/{CONTOSO}/v2.0/.well-known/openid-configuration", verify=fakeentra.ca, timeout=30).json()["issuer"].split("/")[-2]
    issuer = f"{fakeentra.url}/{tenant_id}/v2.0"
    scope = "tools.call" if short_scopes else f"{resource}/tools.call"
    verifier = conformance_adapter.EntraTokenVerifier(issuer, fakeentra.ca, api_id, resource, short_scopes)
    running = conformance_adapter.ServerThread(resource, issuer, [scope], verifier)
    yield fakeentra, resource, client_id, redirect, issuer
    running.stop()


def connect(fakeentra, resource, client_id, redirect, sent):
    """The MCP SDK's client as an app configures it for Entra: registered beforehand, sign-in in a browser
    (FakeEntra's pages walked headlessly); returns the tool's result. `sent` receives the authorize URL and
    the redirect."""

    async def open_browser(url):
        sent["authorize"] = url
        final, _, _ = await asyncio.to_thread(drive, url, ADELE, PASSWORD, redirect, verify=fakeentra.ca)
        sent["redirect"] = final

    async def read_redirect():
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(sent["redirect"]).query)
        if "error" in query:
            raise RuntimeError(f'{query["error"][0]}: {query.get("error_description", [""])[0]}')
        return AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0])

    metadata = OAuthClientMetadata(client_name="Orders MCP client", redirect_uris=[redirect], token_endpoint_auth_method="none",
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"])
    auth = OAuthClientProvider(resource, metadata, PreRegistered(client_id, redirect), redirect_handler=open_browser, callback_handler=read_redirect)

    async def call():
        async with httpx2.AsyncClient(auth=auth, verify=ssl.create_default_context(cafile=fakeentra.ca), timeout=30) as http:
            async with streamable_http_client(resource, http_client=http) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool("whoami", {})

    return asyncio.run(call())


def test_an_mcp_client_signs_in_through_entra_and_calls_a_tool(mcp_deployment):
    fakeentra, resource, client_id, redirect, issuer = mcp_deployment
    sent = {}
    result = connect(fakeentra, resource, client_id, redirect, sent)
    assert not result.is_error, result
    assert result.content[0].text == ADELE

    # What the client sent Entra: the server's URL as `resource`, its scope in full, PKCE.
    authorize = urllib.parse.parse_qs(urllib.parse.urlsplit(sent["authorize"]).query)
    assert sent["authorize"].startswith(f"{issuer.removesuffix('/v2.0')}/oauth2/v2.0/authorize?")
    assert authorize["resource"] == [resource]
    assert f"{resource}/tools.call" in authorize["scope"][0].split()
    assert authorize["code_challenge_method"] == ["S256"]
    # And what FakeEntra recorded: the RFC 8414 probe refused, the OpenID configuration found, no registration.
    entries = fakeentra.journal()["entries"]
    paths = [e["path"] for e in entries]
    assert any(p.startswith("/.well-known/oauth-authorization-server") for p in paths), paths
    assert any(p.endswith("/v2.0/.well-known/openid-configuration") for p in paths), paths
    assert not any(p.endswith("/register") for p in paths), paths
    tokens = [e for e in entries if e["path"].endswith("/oauth2/v2.0/token")]
    assert tokens and all(e["status"] == 200 for e in tokens), [(e["status"], e["response"]["body"]) for e in tokens]


@pytest.mark.parametrize("mcp_deployment", [True], indirect=True)
def test_short_scope_names_with_the_servers_url_as_resource_are_refused(mcp_deployment):
    """The common mistake of an MCP server on Entra: its metadata names the scope by its short name, which
    Entra reads as Microsoft Graph's, so the `resource` the client sends names another app: invalid_target,
    AADSTS9010010, sent back to the app from /authorize."""
    fakeentra, resource, client_id, redirect, _ = mcp_deployment
    sent = {}
    with pytest.raises(BaseException, match="invalid_target|AADSTS9010010|TaskGroup|sub-exception"):
        connect(fakeentra, resource, client_id, redirect, sent)
    assert "scope=tools.call" in sent["authorize"], "the metadata's short name, as the client asked"
    answer = urllib.parse.parse_qs(urllib.parse.urlsplit(sent["redirect"]).query)
    assert answer["error"] == ["invalid_target"]
    assert answer["error_description"][0].startswith("AADSTS9010010: The resource parameter provided in the request doesn't match with the requested scopes.")
