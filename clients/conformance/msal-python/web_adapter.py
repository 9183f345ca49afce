#!/usr/bin/env python3
"""FakeEntra conformance adapter (protocol 1.2) for a confidential web app written with MSAL for Python's
`ConfidentialClientApplication`, the way Microsoft's web app samples use it: the authorization code flow
(`initiate_auth_code_flow`, the redirect posted to the app, `acquire_token_by_auth_code_flow`), silent
token calls afterwards, and a new sign-in only when MSAL says interaction is required.

The app proves who it is with a client secret (`FAKEENTRA_CLIENT_SECRET`) or with a certificate
(`FAKEENTRA_CLIENT_CERTIFICATE`: a PEM file holding the private key and its certificate). Like
Microsoft.Identity.Web, it loads the certificate again and retries once when the service refuses the
certificate (AADSTS700027, 700024, 7000214, 1000502, 7000274, 7000277), and never retries a refused secret.

Run it with `fakeentra conform --credential secret|certificate --client "python web_adapter.py"`."""
import hashlib
import os
import re
import ssl
import sys
import time

import msal
from msal.oauth2cli.authcode import AuthCodeReceiver

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from adapter import MsalApp  # noqa: E402
from adapter_protocol import Environment, StepFailure, app_scopes, serve, translated  # noqa: E402

# The refusals of a certificate that loading it again can cure: Microsoft.Identity.Web's list
# (its CertificateReloadLogicTests).
CERTIFICATE_REFUSALS = {700027, 700024, 7000214, 1000502, 7000274, 7000277}


class WebEnvironment(Environment):
    def __init__(self, env):
        super().__init__(env)
        self.client_secret = env.get("FAKEENTRA_CLIENT_SECRET")
        self.certificate_path = env.get("FAKEENTRA_CLIENT_CERTIFICATE")


def load_certificate(path):
    """MSAL's certificate credential from a PEM file holding the private key and the certificate."""
    with open(path, encoding="ascii") as pem_file:
        pem = pem_file.read()
    key = re.search(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.+?-----END [A-Z ]*PRIVATE KEY-----", pem, re.S)
    certificate = re.search(r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", pem, re.S)
    if not key or not certificate:
        raise StepFailure("other", f"{path} holds no private key and certificate")
    thumbprint = hashlib.sha1(ssl.PEM_cert_to_DER_cert(certificate.group(0))).hexdigest().upper()  # noqa: S324 (the registration's thumbprint)
    return {"private_key": key.group(0), "thumbprint": thumbprint}


class WebApp(MsalApp):
    """A web app's MSAL: one ConfidentialClientApplication per authority over one token cache."""

    environment_class = WebEnvironment

    # What a correct app does; Tests/Conformance/broken_adapter.py turns it off.
    reloads_refused_certificate = True

    def __init__(self, env):
        super().__init__(env)
        if not env.client_secret and not env.certificate_path:
            raise SystemExit("web_adapter.py needs FAKEENTRA_CLIENT_SECRET or FAKEENTRA_CLIENT_CERTIFICATE "
                             "(run it with fakeentra conform --credential secret|certificate)")
        self.credential = env.client_secret or load_certificate(env.certificate_path)

    def app(self, authority=None):
        authority = authority or self.env.authority
        if authority not in self.apps:
            self.apps[authority] = msal.ConfidentialClientApplication(
                self.env.client_id, client_credential=self.credential, token_cache=self.cache,
                client_capabilities=self.capabilities, timeout=self.env.timeout, verify=self.env.ca or True,
                **self.authority_settings(authority))
        return self.apps[authority]

    def using_credential(self, app, call):
        """`call(app)`, and once more with the certificate loaded again when the service refused it."""
        result = call(app)
        if (self.reloads_refused_certificate and self.env.certificate_path and isinstance(result, dict)
                and result.get("error") == "invalid_client" and CERTIFICATE_REFUSALS & set(result.get("error_codes") or [])):
            authority = next((name for name, built in self.apps.items() if built is app), None)
            self.credential = load_certificate(self.env.certificate_path)
            self.apps.clear()   # the token cache is shared: the signed-in account stays
            result = call(self.app(authority))
        return result

    def get_app_token(self, step, deadline):
        """A daemon's call: the app's own token (client credentials); MSAL serves it from its cache while it is fresh."""
        scopes = step.get("scopes") or ["https://graph.microsoft.com/.default"]
        with translated():
            result = self.using_credential(self.app(), lambda current: current.acquire_token_for_client(scopes))
        _, granted = self.outcome(result, scopes)
        return {"scopes": granted}

    def browser_sign_in(self, app, scopes, deadline, prompt=None, claims=None, login_hint=None):
        """The web app's sign-in: the user's browser goes to the authority and posts the code back to
        the app, which redeems it with its credential; MSAL's answer as is."""
        timeout = max(1, int(deadline - time.monotonic() - 1))
        with translated():
            with AuthCodeReceiver(port=0) as receiver:
                flow = app.initiate_auth_code_flow(
                    app_scopes(scopes), redirect_uri=f"http://localhost:{receiver.get_port()}", prompt=prompt,
                    login_hint=login_hint, claims_challenge=claims, response_mode="form_post")
                response = receiver.get_auth_response(auth_uri=flow["auth_uri"], timeout=timeout, state=flow["state"])
            if not response:
                raise StepFailure("timeout", "no redirect reached the app before the step's deadline")
            return self.using_credential(app, lambda current: current.acquire_token_by_auth_code_flow(flow, response))


if __name__ == "__main__":
    serve(WebApp)
