"""A running `fakeentra serve` process: started on a free port, ready when it says so, stopped cleanly.

Readiness is an event, never a sleep: `serve --ready-file` writes the base URL atomically and then
prints its banner on stdout in one write, so the first stdout line means the file is there."""
import base64
import hashlib
import json
import os
import pathlib
import secrets
import select
import shlex
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
import uuid

import requests

from .signin import drive, drive_response, parse_forms

DEMO_PASSWORD = "Passw0rd!"
B2C_TENANT = "fabrikamb2c.onmicrosoft.com"


class FakeEntraError(RuntimeError):
    """The binary is missing, would not start, or a control call failed."""


def find_binary(explicit=None):
    """`explicit`, else $FAKEENTRA_BINARY, else `fakeentra` on the PATH."""
    candidate = explicit or os.environ.get("FAKEENTRA_BINARY") or shutil.which("fakeentra")
    if not candidate:
        raise FakeEntraError("no fakeentra binary: set FAKEENTRA_BINARY (e.g. .build/debug/fakeentra), put fakeentra on the PATH "
                             "(scripts/install), or have docker or podman with FakeEntra's image (scripts/image)")
    if not os.access(candidate, os.X_OK):
        raise FakeEntraError(f"FAKEENTRA_BINARY {candidate} is not an executable file")
    return candidate


_user_certs_dirs = {}

# What `fakeentra serve` takes from the environment when its command line does not say (docs/container.md).
SERVE_VARIABLES = ("FAKEENTRA_HOST", "FAKEENTRA_PORT", "FAKEENTRA_HTTP_PORT", "FAKEENTRA_CONTROL_SECRET", "FAKEENTRA_HOSTNAMES",
                   "FAKEENTRA_CONFIG", "FAKEENTRA_STATE", "FAKEENTRA_SCENARIO", "FAKEENTRA_AUTO_LOGIN", "FAKEENTRA_STRICT", "FAKEENTRA_QUIET")


def fixture_certs_dir(binary=None, args=()):
    """The per-user CA and key set for servers started with `args`: generated once, reused by every
    later server (a fresh folder costs RSA key generation, a third of a second). One set per list of
    `--hostname`s, apart from the folder `fakeentra serve` uses, so a test never makes a person's
    trusted CA be regenerated. The user folder is the binary's own rule (`certs --print-directory`)."""
    binary = find_binary(binary)
    if binary not in _user_certs_dirs:
        printed = subprocess.run([binary, "certs", "--print-directory"], capture_output=True, text=True, timeout=30)
        if printed.returncode != 0 or not printed.stdout.strip():
            raise FakeEntraError(f"{binary} certs --print-directory failed: {printed.stderr.strip()}")
        _user_certs_dirs[binary] = printed.stdout.strip()
    args = [str(a) for a in args]
    names = sorted(args[i + 1].lower() for i, a in enumerate(args[:-1]) if a == "--hostname")
    names += sorted(a.split("=", 1)[1].lower() for a in args if a.startswith("--hostname="))
    key = hashlib.sha256(" ".join(sorted(names)).encode()).hexdigest()[:12] if names else "default"
    return pathlib.Path(_user_certs_dirs[binary]) / "fixtures" / key


class FakeEntra:
    """One server. `args` are extra `serve` options (`--auto-login`, `--scenario NAME`, `--strict`…);
    `config` a dict written to a temporary `--config` file; `certs_dir` where its CA lives (default: the
    user's fixture set for these host names, `fixture_certs_dir`: servers with the same names share a CA)."""

    def __init__(self, *args, config=None, certs_dir=None, port=0, binary=None, timeout=30, env=None):
        self.certs_dir = pathlib.Path(certs_dir) if certs_dir else fixture_certs_dir(binary, args)
        self._scratch = pathlib.Path(tempfile.mkdtemp(prefix="fakeentra-"))
        self.ca = str(self.certs_dir / "ca.pem")
        self.log_path = self._scratch / "server.log"
        ready_file = self._scratch / "ready"
        self.binary = find_binary(binary)
        command = [self.binary, "serve", "--port", str(port), "--certs", str(self.certs_dir),
                   "--ready-file", str(ready_file)] + [str(a) for a in args]
        if config is not None:
            config_path = self._scratch / "config.json"
            config_path.write_text(json.dumps(config))
            command += ["--config", str(config_path)]
        self._log = open(self.log_path, "w")
        # `serve` reads FAKEENTRA_* variables as its options (for containers): a test's server is what its
        # arguments say, not what the developer's shell exported (a --state folder, a secret).
        inherited = {k: v for k, v in os.environ.items() if k not in SERVE_VARIABLES}
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self._log, stdin=subprocess.DEVNULL,
                                        env={**inherited, **(env or {})})
        self._wait_until_ready(timeout)
        self.url = ready_file.read_text().strip()
        # The banner is read; later output (none expected) must not fill the pipe and block the server.
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()

    # Sent as `Authorization: Bearer …` on control API calls; a server started with a control secret
    # (a container, a CI service) refuses them without it.
    control_secret = None

    @classmethod
    def attach(cls, url, ca, control_secret=None):
        """A server someone else started (a CI step, `scripts/serve`, a container): same methods, and
        `stop()` leaves it running. `control_secret` is the one it was started with, if any."""
        server = cls.__new__(cls)
        server.url, server.ca, server.process = url.rstrip("/"), ca, None
        server.certs_dir = pathlib.Path(ca).parent
        server.control_secret = control_secret or None
        return server

    def _wait_until_ready(self, timeout):
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else b""
        if not line.strip():
            self.process.kill()
            self.process.wait()
            self.process.stdout.close()
            self._log.close()
            raise FakeEntraError("fakeentra did not become ready:\n" + self.log_path.read_text(errors="replace"))

    def _drain(self):
        for _ in iter(self.process.stdout.readline, b""):
            pass

    # MARK: where clients point

    @property
    def host(self):
        """host:port, for Host-header and hosts-file set-ups."""
        return urllib.parse.urlsplit(self.url).netloc

    def authority(self, tenant="common"):
        """The MSAL authority (v2.0 endpoints) and ADAL authority (v1.0): `{url}/{tenant}`."""
        return f"{self.url}/{tenant}"

    def v2_issuer_authority(self, tenant="common"):
        """The OpenID Connect authority of the v2.0 endpoints: its metadata is `…/.well-known/openid-configuration`."""
        return f"{self.url}/{tenant}/v2.0"

    def b2c_authority(self, policy="B2C_1_susi", tenant=B2C_TENANT):
        """An Azure AD B2C policy authority, in the `/{tenant}/{policy}` form MSAL recognises as B2C."""
        return f"{self.url}/{tenant}/{policy}"

    @property
    def authorities(self):
        return {"v2": self.v2_issuer_authority(), "v1": self.authority(), "msal": self.authority(), "b2c": self.b2c_authority()}

    @property
    def ca_environment(self):
        """Variables that make requests, httpx and OpenSSL-based clients trust this server's CA (only it)."""
        return {"REQUESTS_CA_BUNDLE": self.ca, "SSL_CERT_FILE": self.ca, "CURL_CA_BUNDLE": self.ca}

    def browser_environment(self, username, password=DEMO_PASSWORD, log=None, binary=None):
        """The variables that make Python's `webbrowser` (MSAL's `acquire_token_interactive`, the Azure
        CLI's `az login`) sign `username` in headlessly with `fakeentra browse`: `BROWSER`, and the user,
        password and CA it reads. A problem (a wrong password, a page it cannot pass) reaches the app at
        once as an `access_denied` error naming it, instead of the app waiting for its timeout."""
        command = [find_binary(binary or getattr(self, "binary", None)), "browse", "%s"]
        if log:
            command += ["--log", str(log)]
        return {"BROWSER": " ".join(shlex.quote(part) if part != "%s" else part for part in command),
                "FAKEENTRA_USERNAME": username, "FAKEENTRA_PASSWORD": password, "FAKEENTRA_CA": self.ca}

    # MARK: control API

    def control(self, method, path, **kwargs):
        """A call to the control API (`/_fakeentra/…`); returns the `requests` response."""
        if self.control_secret:
            kwargs["headers"] = {"Authorization": f"Bearer {self.control_secret}", **kwargs.get("headers", {})}
        return requests.request(method, self.url + path, verify=self.ca, timeout=30, **kwargs)

    def http_session(self):
        """A requests session trusting this server's CA (a REQUESTS_CA_BUNDLE in the environment would
        otherwise win over a session's `verify`)."""
        session = requests.Session()
        session.verify = self.ca
        session.trust_env = False
        return session

    def _expect(self, response, *statuses):
        if response.status_code not in statuses:
            raise FakeEntraError(f"{response.request.method} {response.request.path_url}: {response.status_code} {response.text}")
        return response.json() if response.content else None

    def bind(self, scenario, client_id=None, user=None, tenant_alias=None, tenant=None):
        """Binds a scenario to a client id, a user, a tenant alias (with `tenant`), or with none of them
        to the whole server; returns the binding id."""
        target = {"clientId": client_id, "user": user, "tenantAlias": tenant_alias, "tenant": tenant}
        body = {"scenario": scenario, **{k: v for k, v in target.items() if v is not None}}
        return self._expect(self.control("POST", "/_fakeentra/bindings", json=body), 201)["id"]

    def binding(self, binding_id):
        """A binding with each rule's {matched, fired, times}."""
        return self._expect(self.control("GET", f"/_fakeentra/bindings/{binding_id}"), 200)

    def unbind(self, binding_id):
        self._expect(self.control("DELETE", f"/_fakeentra/bindings/{binding_id}"), 204)

    def reset(self, binding=None):
        """Restores the start state (of one binding's world, or of everything)."""
        return self._expect(self.control("POST", "/_fakeentra/reset", json={"binding": binding} if binding else {}), 200)

    def clock(self, binding=None):
        """{"now", "offsetSeconds", "elapsedSeconds"} of the default world or a binding's."""
        return self._expect(self.control("GET", "/_fakeentra/clock", params={"binding": binding} if binding else None), 200)

    def advance_clock(self, seconds, binding=None):
        body = {"seconds": seconds, **({"binding": binding} if binding else {})}
        return self._expect(self.control("POST", "/_fakeentra/clock/advance", json=body), 200)

    def outbox(self, address, binding=None):
        """The messages sent to `address`, an email address or a phone number (External ID's one-time codes
        by email or text message), oldest first; the code a person would read is `outbox(address)[-1]["code"]`."""
        params = {"to": address, **({"binding": binding} if binding else {})}
        return self._expect(self.control("GET", "/_fakeentra/outbox", params=params), 200)["messages"]

    def journal(self, **filters):
        """The journal's entries (requests and responses, secrets redacted), filtered as the API allows."""
        return self._expect(self.control("GET", "/_fakeentra/journal", params=filters), 200)

    # MARK: signing in without a browser

    def authorize(self, user, password=DEMO_PASSWORD, scopes=("openid", "profile", "offline_access"), client_id=None,
                  tenant="common", policy=None, redirect_uri="http://localhost/callback", **parameters):
        """Runs /authorize through the sign-in pages with form posts and returns what reached the
        redirect URI (`code`, `state`, … or `error`), plus the PKCE verifier under `code_verifier`."""
        client_id = client_id or str(uuid.uuid4())
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = {"client_id": client_id, "response_type": "code", "redirect_uri": redirect_uri, "scope": " ".join(scopes),
                 "state": secrets.token_urlsafe(12), "nonce": secrets.token_urlsafe(12), "code_challenge": challenge,
                 "code_challenge_method": "S256", **parameters}
        base = self.b2c_authority(policy, tenant if tenant != "common" else B2C_TENANT) if policy else self.authority(tenant)
        url = f"{base}/oauth2/v2.0/authorize?" + urllib.parse.urlencode(query)
        final, fields, _ = drive(url, user, password, redirect_uri, session=self.http_session())
        result = fields if fields is not None else dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(final).query))
        if result.get("state") != query["state"] and "error" not in result:
            raise FakeEntraError(f"the state came back changed: {result}")
        return {**result, "code_verifier": verifier, "client_id": client_id, "redirect_uri": redirect_uri, "token_endpoint": base + "/oauth2/v2.0/token"}

    def sign_in(self, user, password=DEMO_PASSWORD, scopes=("openid", "profile", "offline_access"), **kwargs):
        """A whole authorization-code sign-in with PKCE: the token response (`access_token`, `id_token`,
        `refresh_token`…). Raises FakeEntraError with the service's error if it fails."""
        reply = self.authorize(user, password, scopes, **kwargs)
        if "code" not in reply:
            raise FakeEntraError(f"/authorize answered with an error: {reply}")
        token = requests.post(reply["token_endpoint"], verify=self.ca, timeout=30, data={
            "grant_type": "authorization_code", "client_id": reply["client_id"], "code": reply["code"],
            "redirect_uri": reply["redirect_uri"], "code_verifier": reply["code_verifier"], "scope": " ".join(scopes)})
        body = token.json()
        if token.status_code != 200:
            raise FakeEntraError(f"/token answered {token.status_code}: {body}")
        return body

    def complete_device_login(self, flow, user, password=DEMO_PASSWORD, consent="accept"):
        """Does what the person on the other device does in the device code flow: opens the flow's
        `verification_uri`, types its `user_code` and signs in as `user`. `flow` is the /devicecode answer
        (MSAL's `initiate_device_flow()` dict works as is); the client's next poll then gets its tokens.
        Returns the text of the page the walk ended on ("You have signed in…")."""
        session = self.http_session()
        page = session.get(flow["verification_uri"])
        form = parse_forms(page.text)[0]
        fields = {i["name"]: i["value"] for i in form["inputs"] if i.get("name")}
        code_field = next(i["name"] for i in form["inputs"] if i["type"] in ("text", "tel") and i.get("name"))
        fields[code_field] = flow["user_code"]
        action = urllib.parse.urljoin(page.url, form["action"] or page.url)
        response = session.post(action, data=fields, allow_redirects=False)
        kind, text, _ = drive_response(response, user, password, "https://never-reached.invalid/", session, consent=consent, until_final_page=True)
        if kind != "page":
            raise FakeEntraError(f"the device login did not end on a page: {kind} {text!r:.300}")
        return text

    # MARK: stopping

    def stop(self):
        """SIGTERM (the server finishes in-flight requests and exits 0), then cleans up its files."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # Its stdout ends with the process; closed once the drain has read to the end (a read still
        # under way would hold the pipe's lock).
        self._drainer.join(timeout=5)
        if not self._drainer.is_alive():
            self.process.stdout.close()
        self._log.close()
        # The certificate directory stays for the next server; our own scratch (log, ready file, config) goes.
        shutil.rmtree(self._scratch, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def __repr__(self):
        return f"<FakeEntra {getattr(self, 'url', '(starting)')}>"
