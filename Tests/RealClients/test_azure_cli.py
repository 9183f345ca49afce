"""The unmodified Azure CLI (PyPI `azure-cli`, `az`; checked with 2.91.0) against FakeEntra's Entra ID, its
Azure Resource Manager (`{base}/arm/`) and its Graph.

What `az` needs, every bit of it standard configuration:

* a custom cloud registered from FakeEntra's ARM: `az cloud register -n FakeEntra --endpoint-resource-manager
  {base}/arm/` reads the rest (login endpoint, ARM's audience, Graph's resource id) from
  `{arm}/metadata/endpoints?api-version=2022-09-01` -- az joins it naively into `/arm//metadata/endpoints`;
* `core.instance_discovery=false` (else MSAL asks login.microsoftonline.com about the authority), given here as
  AZURE_CORE_INSTANCE_DISCOVERY=false;
* REQUESTS_CA_BUNDLE = the server's CA (az, MSAL and azure-core all use requests);
* its own AZURE_CONFIG_DIR (one per test, under tmp_path);
* an HTTPS CONNECT proxy on loopback (HTTPS_PROXY) that maps graph.microsoft.com:443 onto the server (started with
  `--hostname graph.microsoft.com`: `az ad` calls {microsoftGraphResourceId}v1.0/...) and 127.0.0.1:443 onto it too
  (MSAL's username/password flow asks https://<authority host>:443/common/userrealm/<upn> whatever the authority's
  port), passes other loopback targets through and refuses everything else: nothing leaves the machine.

az: $AZ_CLI, else .venv-az/bin/az (scripts/setup installs azure-cli there: it pins its own msal and
azure-identity, so it does not share .venv)."""
import base64
import json
import os
import pathlib
import re
import subprocess
import time
import uuid

import pytest

from connect_proxy import ConnectProxy

ROOT = pathlib.Path(__file__).resolve().parents[2]
AZ = os.environ.get("AZ_CLI") or str(ROOT / ".venv-az" / "bin" / "az")

pytestmark = pytest.mark.skipif(not os.access(AZ, os.X_OK), reason="no Azure CLI (scripts/setup installs it in .venv-az)")

CONTOSO = "contoso.onmicrosoft.com"
CONTOSO_ID = "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"
# Each organisation's one demo subscription: its id is derived from the tenant's ("fakeentra-subscription:<tid>").
DEMO_SUBSCRIPTION = ("7cafc807-264c-4426-a01e-08f16d949138", "Contoso demo subscription", "Enabled")
ADELE = "adele.vance@contoso.onmicrosoft.com"
PASSWORD = "Passw0rd!"
AZURE_CLI_CLIENT_ID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
ARM_AUDIENCE = "https://management.core.windows.net/"   # the cloud's activeDirectoryResourceId (audiences[0])
ARM_SCOPE = ARM_AUDIENCE + "/.default"                   # az: resource + "/.default", the double slash kept
ARM_API_VERSION = "2022-12-01"                           # azure-mgmt-resource's SubscriptionClient, as az uses it
GRAPH_AUDIENCES = ("https://graph.microsoft.com", "https://graph.microsoft.com/", "00000003-0000-0000-c000-000000000000")
TIMEOUT = 90                                             # seconds any one az command may take


def jwt_claims(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))



# MARK: fixtures

@pytest.fixture(scope="module")
def az_certs(tmp_path_factory):
    """This module's own CA: its servers name graph.microsoft.com, outside the session CA's names."""
    return str(tmp_path_factory.mktemp("az-certs"))


@pytest.fixture
def server(fakeentra_factory, az_certs):
    return fakeentra_factory("--hostname", "graph.microsoft.com", "--hostname", "management.azure.com", certs_dir=az_certs)


def server_port(server):
    return int(server.host.rsplit(":", 1)[1])


@pytest.fixture
def proxy(server):
    p = ConnectProxy({"127.0.0.1:443": ("127.0.0.1", server_port(server)),
                      "graph.microsoft.com:443": ("127.0.0.1", server_port(server)),
                      "management.azure.com:443": ("127.0.0.1", server_port(server))})
    yield p
    p.stop()
    assert not p.refused(), f"something tried to leave the machine: {p.refused()}"


def journal_mark(server):
    entries = server.journal()["entries"]
    return entries[-1]["id"] if entries else 0


def journal_since(server, mark):
    return [e for e in server.journal()["entries"] if e["id"] > mark]


class Az:
    """The real `az` with its own config dir, trusting only the server's CA, every connection through the proxy."""

    def __init__(self, server, proxy, workdir):
        self.server, self.proxy, self.workdir = server, proxy, pathlib.Path(workdir)
        self.config_dir = self.workdir / "azure-config"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("AZURE_", "FAKEENTRA_", "MSAL_")) and k not in (
                    "BROWSER", "IDENTITY_ENDPOINT", "IDENTITY_HEADER", "MSI_ENDPOINT", "MSI_SECRET", "SSL_CERT_FILE")}
        self.env.update(proxy.environment)
        self.env.update({
            "AZURE_CONFIG_DIR": str(self.config_dir),
            "REQUESTS_CA_BUNDLE": server.ca,
            "AZURE_CORE_INSTANCE_DISCOVERY": "false",
            "AZURE_CORE_COLLECT_TELEMETRY": "false",
            "AZURE_CORE_SURVEY_MESSAGE": "false",
            "AZURE_CORE_LOGIN_EXPERIENCE_V2": "false",     # no interactive subscription picker after login
            "AZURE_CORE_NO_COLOR": "true",
            "AZURE_CORE_ONLY_SHOW_ERRORS": "false",
        })
        self.runs = 0

    def command(self, args):
        return [AZ, *args, "--output", "json"]

    def run(self, *args, check=True, env=None, timeout=TIMEOUT):
        """Runs az to completion; with check, asserts it succeeded and returns its JSON output (warnings go to stderr)."""
        result = subprocess.run(self.command(args), env={**self.env, **(env or {})}, capture_output=True, text=True,
                                timeout=timeout, stdin=subprocess.DEVNULL)
        if not check:
            return result
        assert result.returncode == 0, f"az {' '.join(args)} -> {result.returncode}\n{result.stderr}"
        return json.loads(result.stdout) if result.stdout.strip() else None

    def start(self, *args, env=None):
        """Starts az in the background, its output in files (read by `wait_for` and `finish`)."""
        return AzProcess(self, args, env)

    def register_cloud(self, arm=None, *endpoints):
        """The custom cloud from FakeEntra's ARM metadata: only the ARM endpoint given (FakeEntra's /arm/ unless
        `arm`), the rest discovered, then overridden by `endpoints` (more `--endpoint-…` options)."""
        self.run("cloud", "register", "-n", "FakeEntra", "--endpoint-resource-manager", arm or self.server.url + "/arm/", *endpoints)
        self.run("cloud", "set", "-n", "FakeEntra")

    def accounts(self):
        return self.run("account", "list")

    def account(self):
        return self.run("account", "show")


class AzProcess:
    def __init__(self, az, args, env):
        self.az, self.args = az, args
        az.runs += 1
        self.out_path = az.workdir / f"az-{az.runs}.out"
        self.err_path = az.workdir / f"az-{az.runs}.err"
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.process = subprocess.Popen(az.command(args), env={**az.env, **(env or {})}, text=True,
                                            stdin=subprocess.DEVNULL, stdout=out, stderr=err)

    def stderr(self):
        return self.err_path.read_text(errors="replace")

    def wait_for(self, pattern, timeout=60):
        """The first match of `pattern` in az's stderr, once it appears."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(pattern, self.stderr())
            if match:
                return match
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        self.kill()
        raise AssertionError(f"az {' '.join(self.args)} never printed {pattern!r}:\n{self.stderr()}")

    def finish(self, timeout=TIMEOUT):
        """Waits for az, asserts it succeeded, returns its JSON output."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"az {' '.join(self.args)} did not finish in {timeout}s:\n{self.stderr()}")
        assert self.process.returncode == 0, f"az {' '.join(self.args)} -> {self.process.returncode}\n{self.stderr()}"
        out = self.out_path.read_text()
        return json.loads(out) if out.strip() else None

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def az(server, proxy, tmp_path):
    cli = Az(server, proxy, tmp_path)
    cli.register_cloud()
    yield cli


def assert_signed_in(az, user_name, user_type):
    """`az account list` and `az account show`: the demo subscription of Contoso, signed in as `user_name`."""
    accounts = az.accounts()
    assert [(a["id"], a["name"], a["state"]) for a in accounts] == [DEMO_SUBSCRIPTION], accounts
    (account,) = accounts
    assert account["tenantId"] == CONTOSO_ID and account["homeTenantId"] == CONTOSO_ID, account
    assert account["cloudName"] == "FakeEntra" and account["isDefault"] is True, account
    assert account["user"] == {"name": user_name, "type": user_type}, account
    shown = az.account()
    assert shown["id"] == DEMO_SUBSCRIPTION[0] and shown["tenantId"] == CONTOSO_ID, shown
    assert shown["user"]["name"] == user_name, shown
    return shown


def arm_requests(server, mark):
    """(path, query, status) of each ARM request since `mark`."""
    return [(e["path"], e.get("query") or {}, e["status"]) for e in journal_since(server, mark) if e["path"].startswith("/arm/")]


# MARK: cloud registration

def test_cloud_register_discovers_the_endpoints_from_fakeentra_arm_metadata(server, proxy, tmp_path):
    cli = Az(server, proxy, tmp_path)
    mark = journal_mark(server)
    cli.register_cloud()
    # az: arm_endpoint + '/metadata/endpoints?api-version=2022-09-01', so the trailing slash doubles.
    assert arm_requests(server, mark) == [("/arm//metadata/endpoints", {"api-version": "2022-09-01"}, 200)]
    cloud = cli.run("cloud", "show", "-n", "FakeEntra")
    assert cloud["isActive"] is True
    endpoints = cloud["endpoints"]
    assert endpoints["activeDirectory"].rstrip("/") == server.url              # authentication.loginEndpoint
    assert endpoints["resourceManager"] == server.url + "/arm/"
    assert endpoints["activeDirectoryResourceId"] == ARM_AUDIENCE               # authentication.audiences[0]
    assert endpoints["microsoftGraphResourceId"] == "https://graph.microsoft.com/"
    assert endpoints["activeDirectoryGraphResourceId"] == "https://graph.windows.net/"


def test_arm_on_its_own_host_name_management_azure_com(server, proxy, tmp_path):
    # The server named management.azure.com (--hostname), the proxy mapping it: ARM at its real address, every
    # path on that host. Here the login endpoint is given explicitly.
    cli = Az(server, proxy, tmp_path)
    cli.register_cloud("https://management.azure.com/", "--endpoint-active-directory", server.url)
    assert cli.run("cloud", "show", "-n", "FakeEntra")["endpoints"]["resourceManager"] == "https://management.azure.com/"
    client_id = str(uuid.uuid4())
    mark = journal_mark(server)
    cli.run("login", "--service-principal", "-u", client_id, "-p", "s3cret", "--tenant", CONTOSO)
    assert_signed_in(cli, client_id, "servicePrincipal")
    listing = [e for e in journal_since(server, mark) if e["path"] == "/subscriptions"]
    assert listing and listing[0]["request"]["headers"]["Host"] == "management.azure.com" and listing[0]["status"] == 200, listing
    assert ("CONNECT", "management.azure.com:443", ("127.0.0.1", server_port(server))) in proxy.log


# Discovered on ARM's host name alone: the document names the listener (localhost) as the login endpoint,
# since every path on management.azure.com is ARM's.
def test_cloud_discovered_from_management_azure_com_signs_in(server, proxy, tmp_path):
    cli = Az(server, proxy, tmp_path)
    cli.register_cloud("https://management.azure.com/")
    login = cli.run("login", "--service-principal", "-u", str(uuid.uuid4()), "-p", "s3cret", "--tenant", CONTOSO, check=False)
    assert login.returncode == 0, login.stderr
    assert_signed_in(cli, json.loads(login.stdout)[0]["user"]["name"], "servicePrincipal")


# MARK: the sign-in kinds

def test_service_principal_login(server, az):
    client_id = str(uuid.uuid4())                      # an unknown id with a secret: a new confidential client
    mark = journal_mark(server)
    accounts = az.run("login", "--service-principal", "-u", client_id, "-p", "s3cret-" + client_id[:8], "--tenant", CONTOSO)
    assert [a["id"] for a in accounts] == [DEMO_SUBSCRIPTION[0]]
    seen = journal_since(server, mark)
    token = [e for e in seen if e["path"] == f"/{CONTOSO_ID}/oauth2/v2.0/token"]
    assert token and token[0]["request"]["body"]["grant_type"] == "client_credentials", token
    assert token[0]["request"]["body"]["scope"] == ARM_SCOPE
    # --tenant: no /tenants, only the subscriptions of that tenant
    assert arm_requests(server, mark) == [("/arm/subscriptions", {"api-version": ARM_API_VERSION}, 200)]
    assert_signed_in(az, client_id, "servicePrincipal")
    claims = jwt_claims(az.run("account", "get-access-token")["accessToken"])
    assert claims["appid"] == client_id and claims["idtyp"] == "app" and claims["tid"] == CONTOSO_ID, claims
    # The registration lenient mode made on first use, as `az ad app show` looks it up in Graph.
    app = az.run("ad", "app", "show", "--id", client_id)
    assert app["appId"] == client_id and app["id"] != client_id and app["passwordCredentials"][0]["hint"] == "s3c", app


DEVICE_PROMPT = r"open the page (\S+) and enter the code (\S+) to authenticate"


def test_device_code_login(server, az):
    mark = journal_mark(server)
    login = az.start("login", "--use-device-code")
    url, code = login.wait_for(DEVICE_PROMPT).groups()
    assert url == server.url + "/devicelogin"
    # The person on the other device: the plugin types the code and signs in.
    page = server.complete_device_login({"verification_uri": url, "user_code": code}, ADELE)
    assert "signed in" in page.lower(), page[:300]
    accounts = login.finish()
    assert [a["id"] for a in accounts] == [DEMO_SUBSCRIPTION[0]]
    seen = [(e["method"], e["path"]) for e in journal_since(server, mark)]
    assert ("POST", "/organizations/oauth2/v2.0/devicecode") in seen
    # No --tenant: az lists the user's tenants, then each one's subscriptions.
    assert [p for p, _, _ in arm_requests(server, mark)] == ["/arm/tenants", "/arm/subscriptions"]
    shown = assert_signed_in(az, ADELE, "user")
    assert shown["tenantDefaultDomain"] == CONTOSO and shown["tenantDisplayName"], shown


def fakeentra_binary(server):
    return server.process.args[0]


def test_device_code_login_completed_by_fakeentra_browse(server, az, tmp_path):
    login = az.start("login", "--use-device-code", "--tenant", CONTOSO)
    url, code = login.wait_for(DEVICE_PROMPT).groups()
    browse = subprocess.run([fakeentra_binary(server), "browse", url, "--user-code", code, "--foreground",
                             "--log", str(tmp_path / "browse.log")], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "FAKEENTRA_USERNAME": ADELE, "FAKEENTRA_PASSWORD": PASSWORD, "FAKEENTRA_CA": server.ca})
    assert browse.returncode == 0, (browse.stdout, browse.stderr)
    login.finish()
    assert_signed_in(az, ADELE, "user")


def test_interactive_login_through_the_browser_variable(server, az, tmp_path):
    log = tmp_path / "browse.log"
    mark = journal_mark(server)
    # webbrowser runs $BROWSER with the URL for %s; `fakeentra browse` drives the sign-in pages and posts the
    # answer (response_mode=form_post) to MSAL's listener on http://localhost:<port>.
    login = az.start("login", env={"BROWSER": f"{fakeentra_binary(server)} browse %s --log {log}",
                                   "FAKEENTRA_USERNAME": ADELE, "FAKEENTRA_PASSWORD": PASSWORD, "FAKEENTRA_CA": server.ca})
    try:
        accounts = login.finish()
    except AssertionError as failure:
        raise AssertionError(f"{failure}\nbrowse log:\n{log.read_text() if log.exists() else '(none)'}") from None
    assert "A web browser has been opened at " + server.url + "/organizations/oauth2/v2.0/authorize" in login.stderr()
    assert [a["id"] for a in accounts] == [DEMO_SUBSCRIPTION[0]]
    authorize = [e for e in journal_since(server, mark) if e["method"] == "GET" and e["path"] == "/organizations/oauth2/v2.0/authorize"]
    query = authorize[0]["query"]
    assert query["client_id"] == AZURE_CLI_CLIENT_ID and query["response_mode"] == "form_post", query
    assert query["code_challenge_method"] == "S256" and re.fullmatch(r"http://localhost:\d+", query["redirect_uri"]), query
    assert query["scope"].split()[0] == ARM_SCOPE, query
    assert_signed_in(az, ADELE, "user")


def test_username_password_login_through_the_proxy_on_443(server, az):
    # MSAL asks https://127.0.0.1:443/common/userrealm/<upn> (the authority's port dropped): the proxy maps
    # 127.0.0.1:443 onto the server, so this runs without root or a server on port 443.
    mark = journal_mark(server)
    login = az.run("login", "-u", ADELE, "-p", PASSWORD, check=False)
    assert login.returncode == 0, login.stderr
    assert [a["id"] for a in json.loads(login.stdout)] == [DEMO_SUBSCRIPTION[0]]
    assert ("CONNECT", "127.0.0.1:443", ("127.0.0.1", server_port(server))) in az.proxy.log
    seen = journal_since(server, mark)
    assert ("GET", f"/common/userrealm/{ADELE}") in [(e["method"], e["path"]) for e in seen]
    grants = [e["request"]["body"]["grant_type"] for e in seen if e["path"] == "/organizations/oauth2/v2.0/token"]
    assert grants[:1] == ["password"], grants
    assert_signed_in(az, ADELE, "user")


# MARK: after signing in

@pytest.fixture
def signed_in(server, az):
    """Adele signed in by device code (the plugin playing the person), tenant Contoso."""
    login = az.start("login", "--use-device-code", "--tenant", CONTOSO_ID)
    url, code = login.wait_for(DEVICE_PROMPT).groups()
    server.complete_device_login({"verification_uri": url, "user_code": code}, ADELE)
    login.finish()
    return az


def test_get_access_token_for_arm_and_for_graph(signed_in):
    arm = signed_in.run("account", "get-access-token")
    claims = jwt_claims(arm["accessToken"])
    assert claims["aud"] == ARM_AUDIENCE, claims
    assert claims["upn"] == ADELE and claims["tid"] == CONTOSO_ID and claims["appid"] == AZURE_CLI_CLIENT_ID, claims
    assert claims["iss"] == f"https://sts.windows.net/{CONTOSO_ID}/" and claims["ver"] == "1.0", claims
    assert arm["tenant"] == CONTOSO_ID and arm["subscription"] == DEMO_SUBSCRIPTION[0] and arm["tokenType"] == "Bearer", arm
    assert isinstance(arm["expires_on"], int) and arm["expires_on"] > time.time()
    graph = signed_in.run("account", "get-access-token", "--resource", "https://graph.microsoft.com")
    graph_claims = jwt_claims(graph["accessToken"])
    assert graph_claims["aud"] in GRAPH_AUDIENCES and graph_claims["upn"] == ADELE, graph_claims
    by_type = signed_in.run("account", "get-access-token", "--resource-type", "ms-graph")
    assert jwt_claims(by_type["accessToken"])["aud"] in GRAPH_AUDIENCES


def test_az_ad_signed_in_user_show_reaches_fakeentra_graph(server, signed_in):
    # az ad calls {microsoftGraphResourceId}v1.0/me with a token for that resource: graph.microsoft.com, which the
    # proxy maps onto the server (its certificate names graph.microsoft.com).
    mark = journal_mark(server)
    me = signed_in.run("ad", "signed-in-user", "show")
    assert me["userPrincipalName"] == ADELE and me["displayName"] == "Adele Vance", me
    graph = [e for e in journal_since(server, mark) if e["path"] == "/v1.0/me"]
    assert graph and graph[0]["request"]["headers"].get("Host") == "graph.microsoft.com", graph
    assert ("CONNECT", "graph.microsoft.com:443", ("127.0.0.1", server_port(server))) in signed_in.proxy.log


def test_azure_identity_cli_credential_gets_an_arm_token_through_az(signed_in, monkeypatch):
    identity = pytest.importorskip("azure.identity")
    for name in [n for n in os.environ if n.startswith(("AZURE_", "IDENTITY_", "MSI_"))]:
        monkeypatch.delenv(name)
    for name, value in signed_in.env.items():
        if name.startswith(("AZURE_", "REQUESTS_")) or name.lower().endswith("_proxy"):
            monkeypatch.setenv(name, value)
    # AzureCliCredential runs the `az` it finds on the PATH.
    monkeypatch.setenv("PATH", os.path.dirname(AZ) + os.pathsep + os.environ["PATH"])
    credential = identity.AzureCliCredential(process_timeout=60)
    token = credential.get_token("https://management.azure.com/.default")
    claims = jwt_claims(token.token)
    assert claims["aud"].rstrip("/") == "https://management.azure.com", claims
    assert claims["upn"] == ADELE and claims["tid"] == CONTOSO_ID and token.expires_on > time.time(), claims
