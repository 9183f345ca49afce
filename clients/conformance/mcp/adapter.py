#!/usr/bin/env python3
"""FakeEntra conformance adapter (protocol 1.4) for an MCP client app: the official MCP SDK for Python
(`mcp`) as an app configures it for a server protected by Microsoft Entra ID. It answers `callMCP` and
`unsupported` for every other step.

The app and its MCP server run here, the server on the URL the suite names (FAKEENTRA_MCP_SERVER), which
the suite registered in the case's tenant as an API whose Application ID URI is that URL:

- the server is the SDK's own (`MCPServer`, streamable HTTP): it answers 401 and serves its protected
  resource metadata (RFC 9728), naming the tenant's v2.0 issuer (FAKEENTRA_MCP_ISSUER) and its scopes in
  full (FAKEENTRA_MCP_SCOPES); it checks Entra's tokens against the tenant's keys, its audience (the
  registration's app id or the URL, by token version) and the scope. Its one tool, `whoami`, answers the
  signed-in user's name.
- the client is the SDK's `OAuthClientProvider` with the app's client id given beforehand (Entra has no
  dynamic registration), the sign-in opened with FAKEENTRA_BROWSER and the redirect caught on a loopback
  listener at FAKEENTRA_REDIRECT_URI's path. The SDK finds the server's metadata, then Entra's OpenID
  configuration, and sends the server's URL as `resource` (RFC 8707) on /authorize and /token.

The protocol loop, the error vocabulary and the FAKEENTRA_* settings come from msal-python/adapter_protocol.py
next door. `main(storage_class=…)` lets a test run the same app with a client that registers itself."""
import asyncio
import http.server
import pathlib
import queue
import ssl
import sys
import threading
import time
import urllib.parse
import webbrowser

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "msal-python"))
import adapter_protocol as protocol  # noqa: E402

import httpx2  # noqa: E402  (the MCP SDK's HTTP client)
import jwt  # noqa: E402
import uvicorn  # noqa: E402
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.server.auth.middleware.auth_context import get_access_token  # noqa: E402
from mcp.server.auth.provider import AccessToken  # noqa: E402
from mcp.server.auth.settings import AuthSettings  # noqa: E402
from mcp.server.mcpserver.server import MCPServer  # noqa: E402
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken  # noqa: E402

StepFailure = protocol.StepFailure


class Environment(protocol.Environment):
    def __init__(self, env):
        super().__init__(env)
        self.redirect_uri = env.get("FAKEENTRA_REDIRECT_URI", "http://localhost/callback")
        self.mcp_server = env.get("FAKEENTRA_MCP_SERVER")
        self.mcp_scopes = env.get("FAKEENTRA_MCP_SCOPES", "").split()
        self.mcp_api_id = env.get("FAKEENTRA_MCP_API_ID")
        self.mcp_issuer = env.get("FAKEENTRA_MCP_ISSUER")


class EntraTokenVerifier:
    """What an MCP server protected by Entra checks: the tenant's signature, issuer and id, its own audience
    (the app id in a v2.0 token, the Application ID URI in a v1.0 one), and its scope in `scp`. `scp` holds the
    short names the registration exposes; `short_scopes` False names them in full (`{resource}/name`), as the
    server's metadata does."""

    def __init__(self, issuer, ca, api_id, resource, short_scopes=False):
        issuer = issuer.rstrip("/")
        self.tenant_id = issuer.split("/")[-2]
        origin = issuer.removesuffix(f"/{self.tenant_id}/v2.0")
        self.keys = jwt.PyJWKClient(f"{origin}/{self.tenant_id}/discovery/v2.0/keys", ssl_context=ssl.create_default_context(cafile=ca))
        # The tenant's v2.0 issuer, or its v1.0 one: a registration that does not ask for v2.0 tokens gets v1.0's.
        self.issuers = [issuer, f"https://sts.windows.net/{self.tenant_id}/"]
        self.audiences, self.resource, self.short_scopes = [api_id, resource], resource, short_scopes

    async def verify_token(self, token):
        try:
            key = await asyncio.to_thread(lambda: self.keys.get_signing_key_from_jwt(token).key)
            claims = jwt.decode(token, key, algorithms=["RS256"], audience=self.audiences, issuer=self.issuers,
                                options={"require": ["exp", "aud", "iss", "tid"]})
        except jwt.PyJWTError:
            return None
        if claims["tid"] != self.tenant_id:
            return None
        scopes = [name if self.short_scopes else f"{self.resource}/{name}" for name in claims.get("scp", "").split()]
        return AccessToken(token=token, client_id=claims.get("azp") or claims.get("appid"), scopes=scopes,
                           expires_at=claims["exp"], resource=self.resource, subject=claims.get("sub"), claims=claims)


class ServerThread:
    """An MCP server protected by Entra, the SDK's own, on `resource` (its URL) until `stop`. Its one tool,
    `whoami`, answers the signed-in user's name."""

    def __init__(self, resource, issuer, scopes, verifier):
        url = urllib.parse.urlsplit(resource)
        # The audience check is the verifier's (`aud` is the registration's app id or its Application ID URI),
        # so the SDK's own comparison of a resource is left off, as its settings advise for such a verifier.
        server = MCPServer("conformance", token_verifier=verifier,
                           auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=scopes,
                                             validate_token_resource=False))

        @server.tool()
        def whoami() -> str:
            """The signed-in user, as the token names them."""
            claims = get_access_token().claims
            return claims.get("preferred_username") or claims.get("upn") or claims.get("unique_name") or ""

        self.server = uvicorn.Server(uvicorn.Config(server.streamable_http_app(streamable_http_path=url.path or "/mcp"), host=url.hostname, port=url.port,
                                                    log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the MCP server did not start on {resource}")
            time.sleep(0.02)

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=10)


class RedirectListener:
    """The loopback listener the sign-in's redirect comes back to (any port: Entra ignores a loopback's)."""

    def __init__(self, redirect_uri):
        self.path = urllib.parse.urlsplit(redirect_uri).path or "/"
        self.answers = queue.Queue()
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                target = urllib.parse.urlsplit(self.path)
                if target.path != listener.path:
                    self.send_error(404)
                    return
                listener.answers.put(urllib.parse.parse_qs(target.query))
                body = b"Signed in. You can close this window."
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.redirect_uri = f"http://localhost:{self.http.server_address[1]}{self.path}"

    def wait(self, timeout):
        try:
            return self.answers.get(timeout=timeout)
        except queue.Empty:
            raise StepFailure("timeout", "the sign-in's redirect never came back") from None


class PreRegistered(TokenStorage):
    """Entra has no dynamic registration: the client id comes from the app's registration."""

    def __init__(self, client_id, redirect_uri):
        self.tokens = None
        self.client = OAuthClientInformationFull(client_id=client_id, redirect_uris=[redirect_uri], token_endpoint_auth_method="none",
                                                 grant_types=["authorization_code", "refresh_token"], response_types=["code"])

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


class MCPClientApp(protocol.AdapterApp):
    environment_class = Environment
    storage_class = PreRegistered

    def __init__(self, env):
        super().__init__(env)
        self.listener = RedirectListener(env.redirect_uri)
        self.storage = self.storage_class(env.client_id, self.listener.redirect_uri)
        self.server = None
        if env.mcp_server:
            verifier = EntraTokenVerifier(env.mcp_issuer, env.ca, env.mcp_api_id, env.mcp_server)
            self.server = ServerThread(env.mcp_server, env.mcp_issuer, env.mcp_scopes, verifier)

    def call_mcp(self, step, deadline):
        if self.server is None:
            raise StepFailure("unsupported", "the case named no MCP server (FAKEENTRA_MCP_SERVER)")
        try:
            result = asyncio.run(asyncio.wait_for(self._call(step.get("tool") or "whoami", deadline), max(1, deadline - time.monotonic())))
        except StepFailure:
            raise
        except (asyncio.TimeoutError, TimeoutError) as exc:
            raise StepFailure("timeout", f"the MCP call did not finish in time: {exc!r}") from exc
        except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 (the SDK raises exception groups out of its task groups)
            raise self._failure(exc) from exc
        if result.is_error:
            raise StepFailure("other", f"the tool answered an error: {result.content}")
        return {"account": result.content[0].text if result.content else ""}

    async def _call(self, tool, deadline):
        async def open_browser(url):
            webbrowser.open(url)

        async def read_redirect():
            query = await asyncio.to_thread(self.listener.wait, max(1, deadline - time.monotonic()))
            if "error" in query:
                raise protocol.classify({"error": query["error"][0], "error_description": query.get("error_description", [""])[0]})
            return AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0])

        metadata = OAuthClientMetadata(client_name="FakeEntra conformance MCP client", redirect_uris=[self.listener.redirect_uri],
                                       token_endpoint_auth_method="none", grant_types=["authorization_code", "refresh_token"],
                                       response_types=["code"])
        auth = OAuthClientProvider(self.env.mcp_server, metadata, self.storage, redirect_handler=open_browser, callback_handler=read_redirect)
        async with httpx2.AsyncClient(auth=auth, verify=ssl.create_default_context(cafile=self.env.ca), timeout=self.env.timeout) as http:
            async with streamable_http_client(self.env.mcp_server, http_client=http) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool(tool, {})

    @staticmethod
    def _failure(exc):
        """The first StepFailure inside the SDK's exception groups, else the first error they hold."""
        pending, leaves = [exc], []
        while pending:
            current = pending.pop(0)
            if isinstance(current, StepFailure):
                return current
            inner = list(getattr(current, "exceptions", None) or [])
            pending += inner
            if current.__cause__ is not None:
                pending.append(current.__cause__)
            elif not inner:
                leaves.append(current)
        leaf = leaves[0] if leaves else exc
        text = f"{type(leaf).__name__}: {leaf}"
        if isinstance(leaf, httpx2.TimeoutException):
            return StepFailure("timeout", text)
        if isinstance(leaf, httpx2.ConnectError):
            return StepFailure("network", text)
        return StepFailure("other", text)


def main(storage_class=PreRegistered):
    MCPClientApp.storage_class = storage_class
    protocol.serve(MCPClientApp)


if __name__ == "__main__":
    main()
