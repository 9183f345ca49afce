#!/usr/bin/env python3
"""FakeEntra conformance adapter (protocol 1.2) for azure-identity + msgraph-sdk: an app that signs in
with InteractiveBrowserCredential and reads Graph through the Graph SDK (kiota), the way the SDK's
samples do. It answers the steps the SDKs can express and `unsupported` for the others:

- signIn  → credential.authenticate(scopes, enable_cae=True)  (B2C: unsupported, azure-identity has no B2C policies)
- getToken → credential.get_token(…, enable_cae=True): azure-identity's own silent-then-interactive
- callGraph → GraphServiceClient: only `/v1.0/me`; the SDK answers claims challenges and 429s itself
- listGraph → the SDK's PageIterator over `/v1.0/me/events` (its `$top` and `$select` kept)
- signOut → unsupported (azure-identity has no sign-out)
- signInDevice → unsupported (this app signs in through the browser; azure-identity's DeviceCodeCredential
  is a separate credential it does not use)

azure-identity does not say which scopes a token was granted, so replies carry no `scopes`.

One credential for the app, and every call with enable_cae=True: azure-identity keeps CAE and non-CAE
tokens in two separate MSAL caches (_internal/msal_credentials.py, _get_app), so an app that signs in
without CAE and then asks with it (as the Graph SDK's provider does) signs the user in twice. A claims
challenge from the token endpoint (Conditional Access on the code redemption) reaches the app as a
ClientAuthenticationError whose `response` is the token endpoint's error body: the app signs in again with
`authenticate(claims=…)`, once, as MSAL's samples do with `claims_challenge`.

The protocol loop, the error vocabulary and the FAKEENTRA_* settings come from msal-python/adapter_protocol.py
next door (one implementation of the protocol)."""
import asyncio
import json
import pathlib
import re
import ssl
import sys
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "msal-python"))
import adapter_protocol as protocol  # noqa: E402

import httpx  # noqa: E402
from azure.core.exceptions import ClientAuthenticationError  # noqa: E402
from azure.identity import InteractiveBrowserCredential  # noqa: E402
from kiota_abstractions.api_error import APIError  # noqa: E402
from kiota_authentication_azure.azure_identity_authentication_provider import AzureIdentityAuthenticationProvider  # noqa: E402
from kiota_abstractions.base_request_configuration import RequestConfiguration  # noqa: E402
from msgraph import GraphRequestAdapter, GraphServiceClient  # noqa: E402
from msgraph.generated.users.item.events.events_request_builder import EventsRequestBuilder  # noqa: E402
from msgraph_core.tasks.page_iterator import PageIterator  # noqa: E402
from msgraph.graph_request_adapter import options as sdk_default_options  # noqa: E402
from msgraph_core import GraphClientFactory  # noqa: E402

StepFailure = protocol.StepFailure


def failure_from_authentication(error):
    """azure-identity wraps MSAL's error dicts in ClientAuthenticationError's text: find the OAuth error."""
    text = str(error)
    for name in ("interaction_required", "consent_required", "invalid_grant", "invalid_client", "access_denied",
                 "temporarily_unavailable", "server_error"):
        if name in text:
            return protocol.classify({"error": name, "error_description": text})
    if re.search(r"nonce|state mismatch", text, re.I):
        return StepFailure("rejected_token", text)
    if re.search(r"timed? ?out", text, re.I):
        return StepFailure("timeout", text)
    return StepFailure("other", text)


def claims_challenge(error):
    """The `claims` of the token endpoint's error body that ClientAuthenticationError carries, or None."""
    response = getattr(error, "response", None)
    if response is None:
        return None
    try:
        body = json.loads(response.text())
    except (ValueError, TypeError, AttributeError):
        return None
    return body.get("claims") if isinstance(body, dict) else None


class AzureIdentityApp(protocol.AdapterApp):
    def __init__(self, env):
        super().__init__(env)
        authority = urllib.parse.urlsplit(env.authority)
        tenant = authority.path.strip("/").split("/")[0]
        if not tenant and authority.hostname.endswith(".ciamlogin.com"):
            # An External ID authority names its tenant by subdomain (https://woodgrove.ciamlogin.com/), as MSAL reads it.
            tenant = authority.hostname.split(".")[0] + ".onmicrosoft.com"
        self.credential = InteractiveBrowserCredential(
            client_id=env.client_id, authority=authority.netloc, tenant_id=tenant,
            disable_instance_discovery=True, timeout=int(env.timeout * 3),   # `timeout`: how long to wait for the browser
            connection_timeout=env.timeout, read_timeout=env.timeout)           # the HTTP timeouts (azure-core's default: 300 s)
        self.loop = asyncio.new_event_loop()

    def sign_in(self, step, deadline):
        if step.get("policy"):
            raise StepFailure("unsupported", "azure-identity has no Azure AD B2C user flows")
        scopes = protocol.app_scopes(step.get("scopes") or self.env.scopes)
        try:
            try:
                record = self.credential.authenticate(scopes=scopes, enable_cae=True)
            except ClientAuthenticationError as error:
                claims = claims_challenge(error)
                if not claims:
                    raise
                # Conditional Access at the token endpoint: sign in again with the policy's claims.
                record = self.credential.authenticate(scopes=scopes, claims=claims, enable_cae=True)
        except ClientAuthenticationError as error:
            raise failure_from_authentication(error) from error
        return {"account": record.username}

    def get_token(self, step, deadline):
        try:
            self.credential.get_token(*protocol.app_scopes(step.get("scopes") or self.env.scopes), enable_cae=True)
        except ClientAuthenticationError as error:
            raise failure_from_authentication(error) from error
        return {}

    def graph_client(self, step):
        scopes = protocol.app_scopes(step.get("scopes") or self.env.scopes)
        host = urllib.parse.urlsplit(self.env.graph).hostname
        auth = AzureIdentityAuthenticationProvider(self.credential, scopes=scopes, allowed_hosts=[host], is_cae_enabled=True)
        http = GraphClientFactory.create_with_default_middleware(
            client=httpx.AsyncClient(verify=ssl.create_default_context(cafile=self.env.ca), timeout=self.env.timeout),
            options=sdk_default_options)
        adapter = GraphRequestAdapter(auth, client=http)
        adapter.base_url = f"{self.env.graph}/v1.0"
        return GraphServiceClient(request_adapter=adapter)

    def run_graph(self, call):
        """Runs one SDK coroutine; its errors as the protocol's."""
        try:
            return self.loop.run_until_complete(call)
        except APIError as error:
            status = error.response_status_code
            raise StepFailure("throttled" if status == 429 else "graph_error", str(error)[:500], status=status) from error
        except ClientAuthenticationError as error:
            raise failure_from_authentication(error) from error

    def call_graph(self, step, deadline):
        if step.get("path", "/v1.0/me") != "/v1.0/me":
            raise StepFailure("unsupported", f"this adapter reads /v1.0/me only, not {step.get('path')}")
        self.run_graph(self.graph_client(step).me.get())
        return {"status": 200}

    def list_graph(self, step, deadline):
        target = urllib.parse.urlsplit(step["path"])
        if target.path != "/v1.0/me/events":
            raise StepFailure("unsupported", f"this adapter lists /v1.0/me/events only, not {step['path']}")
        query = dict(urllib.parse.parse_qsl(target.query))
        parameters = EventsRequestBuilder.EventsRequestBuilderGetQueryParameters(
            top=int(query["$top"]) if "$top" in query else None, select=query["$select"].split(",") if "$select" in query else None)
        client = self.graph_client(step)
        first = self.run_graph(client.me.events.get(request_configuration=RequestConfiguration(query_parameters=parameters)))
        items = []
        iterator = PageIterator(first, client.request_adapter)
        self.run_graph(iterator.iterate(lambda event: items.append(event) or True))
        return {"status": 200, "count": len(items)}

if __name__ == "__main__":
    protocol.serve(AzureIdentityApp)
