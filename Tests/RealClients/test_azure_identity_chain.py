"""azure-identity's DefaultAzureCredential links, unchanged and configured only through the environment as in
production, against FakeEntra: EnvironmentCredential (client secret, certificate), ManagedIdentityCredential (IMDS
through AZURE_POD_IDENTITY_AUTHORITY_HOST, App Service through IDENTITY_ENDPOINT / IDENTITY_HEADER) and
DefaultAzureCredential picking the first link that works.

azure-identity leaves MSAL's instance discovery on (no variable turns it off): for an authority it does not know,
MSAL asks https://login.microsoftonline.com/common/discovery/instance. The server here is started with
`--hostname login.microsoftonline.com` and every connection goes through a loopback CONNECT proxy (HTTPS_PROXY) that
maps login.microsoftonline.com:443 onto it and refuses any other non-loopback target, so FakeEntra answers the
discovery and nothing leaves the machine. Each test sets its variables with monkeypatch (undone after it)."""
import hashlib
import os
import ssl
import time
import uuid

import pytest
from azure.core.exceptions import ClientAuthenticationError

from real_servers import RunningServer
from test_azure_cli import CONTOSO, CONTOSO_ID, DEMO_SUBSCRIPTION, ConnectProxy, jwt_claims
from test_msal_confidential_client import self_signed_certificate

identity = pytest.importorskip("azure.identity")

ARM_SCOPE = "https://management.azure.com/.default"
GRAPH_SCOPE = "https://graph.microsoft.com/.default"
GRAPH_AUDIENCES = ("https://graph.microsoft.com", "https://graph.microsoft.com/", "00000003-0000-0000-c000-000000000000")
SYSTEM_ASSIGNED = {"client_id": "5f1d3a2b-8c4e-4d6f-9a1b-2c3d4e5f6a7b", "oid": "a1b2c3d4-5e6f-4a8b-9c0d-1e2f3a4b5c6d",
                   "mirid": "/Microsoft.Compute/virtualMachines/demo-vm"}
USER_ASSIGNED = {"client_id": "7e2c4b6a-1d3f-4e5a-8b9c-0d1e2f3a4b5c", "oid": "c2d3e4f5-6a7b-4c8d-9e0f-1a2b3c4d5e6f",
                 "mirid": "/Microsoft.ManagedIdentity/userAssignedIdentities/demo-identity"}
IDENTITY_HEADER = "fakeentra-identity-header"       # FakeEntra's default managedIdentityHeader option
SERVER_ARGS = ["--hostname", "login.microsoftonline.com"]


@pytest.fixture(scope="module")
def chain_certs(tmp_path_factory):
    """This module's own CA: its servers name login.microsoftonline.com, outside the session CA's names."""
    return str(tmp_path_factory.mktemp("identity-chain-certs"))


@pytest.fixture(scope="module")
def server(chain_certs):
    s = RunningServer(SERVER_ARGS, chain_certs)
    yield s
    s.stop()


class Environment:
    """The process environment of one test: every Azure identity variable cleared, FakeEntra's CA trusted, every
    connection through a proxy that maps login.microsoftonline.com onto `server` and refuses other hosts."""

    CLEARED_PREFIXES = ("AZURE_", "IDENTITY_", "MSI_", "IMDS_")

    def __init__(self, monkeypatch, server):
        self.monkeypatch, self.server = monkeypatch, server
        port = int(server.host.rsplit(":", 1)[1])
        self.proxy = ConnectProxy({"login.microsoftonline.com:443": ("127.0.0.1", port)})
        for name in [n for n in os.environ if n.startswith(self.CLEARED_PREFIXES)]:
            monkeypatch.delenv(name)
        self.set(REQUESTS_CA_BUNDLE=server.ca, SSL_CERT_FILE=server.ca, **self.proxy.environment)

    def set(self, **variables):
        for name, value in variables.items():
            self.monkeypatch.setenv(name, value)

    def client_secret(self, client_id=None, secret="s3cret"):
        """EnvironmentCredential's client-secret variables for a new (unknown) client: FakeEntra binds the secret."""
        client_id = client_id or str(uuid.uuid4())
        self.set(AZURE_TENANT_ID=CONTOSO, AZURE_CLIENT_ID=client_id, AZURE_CLIENT_SECRET=secret, AZURE_AUTHORITY_HOST=self.server.url)
        return client_id

    def imds(self):
        self.set(AZURE_POD_IDENTITY_AUTHORITY_HOST=self.server.url)

    def app_service(self, header=IDENTITY_HEADER):
        self.set(IDENTITY_ENDPOINT=self.server.url + "/msi/token", IDENTITY_HEADER=header)

    def stop(self):
        self.proxy.stop()


@pytest.fixture
def env(monkeypatch, server):
    e = Environment(monkeypatch, server)
    yield e
    e.stop()
    assert not e.proxy.refused(), f"azure-identity tried to leave the machine: {e.proxy.refused()}"


def journal_mark(server):
    entries = server.journal()["entries"]
    return entries[-1]["id"] if entries else 0


def journal_since(server, mark):
    return [e for e in server.journal()["entries"] if e["id"] > mark]


def arm_subscriptions(server, token):
    """What FakeEntra's ARM lists for the token: the proof the token is good for ARM."""
    session = server.http_session()
    response = session.get(server.url + "/arm/subscriptions", params={"api-version": "2022-12-01"},
                           headers={"Authorization": "Bearer " + token}, timeout=30)
    assert response.status_code == 200, response.text
    return [(s["subscriptionId"], s["displayName"], s["state"]) for s in response.json()["value"]]


def assert_app_token(token, client_id, audiences):
    claims = jwt_claims(token)
    assert claims["aud"] in audiences, claims
    assert claims["appid"] == client_id and claims["idtyp"] == "app" and claims["tid"] == CONTOSO_ID, claims
    return claims


# MARK: EnvironmentCredential

def test_environment_credential_with_a_client_secret_gets_arm_and_graph_tokens(server, env):
    client_id = env.client_secret()
    mark = journal_mark(server)
    credential = identity.EnvironmentCredential()
    arm = credential.get_token(ARM_SCOPE)
    assert_app_token(arm.token, client_id, ("https://management.azure.com", "https://management.azure.com/"))
    assert jwt_claims(arm.token)["appidacr"] == "1"                         # a secret
    assert arm_subscriptions(server, arm.token) == [DEMO_SUBSCRIPTION]
    graph = credential.get_token(GRAPH_SCOPE)
    assert_app_token(graph.token, client_id, GRAPH_AUDIENCES)
    seen = journal_since(server, mark)
    # MSAL's instance discovery, answered by FakeEntra as login.microsoftonline.com through the proxy
    discovery = [e for e in seen if e["path"] == "/common/discovery/instance"]
    assert discovery and discovery[0]["request"]["headers"]["Host"] == "login.microsoftonline.com", discovery
    grants = [e["request"]["body"] for e in seen if e["path"].endswith("/oauth2/v2.0/token")]
    assert [(g["grant_type"], g["scope"]) for g in grants] == [("client_credentials", ARM_SCOPE), ("client_credentials", GRAPH_SCOPE)], grants


def test_environment_credential_with_a_wrong_secret_fails(server, env):
    client_id = env.client_secret(secret="first")
    identity.EnvironmentCredential().get_token(GRAPH_SCOPE)              # binds "first" to the new client
    env.client_secret(client_id, secret="second")
    with pytest.raises(ClientAuthenticationError) as failure:
        identity.EnvironmentCredential().get_token(GRAPH_SCOPE)
    assert "AADSTS7000215" in str(failure.value), failure.value


def write_certificate(tmp_path, name="client.pem"):
    key_pem, cert_pem, _ = self_signed_certificate()
    path = tmp_path / name
    path.write_text(key_pem + cert_pem)            # what AZURE_CLIENT_CERTIFICATE_PATH names: key and certificate
    return path, cert_pem


def test_environment_credential_with_a_registered_certificate(fakeentra_factory, chain_certs, monkeypatch, tmp_path):
    path, cert_pem = write_certificate(tmp_path)
    client_id = str(uuid.uuid4())
    configured = fakeentra_factory(*SERVER_ARGS, certs_dir=chain_certs, config={"apps": [{
        "clientId": client_id, "displayName": "Deployment pipeline", "tenant": CONTOSO, "certificates": [cert_pem]}]})
    env = Environment(monkeypatch, configured)
    try:
        env.set(AZURE_TENANT_ID=CONTOSO_ID, AZURE_CLIENT_ID=client_id, AZURE_CLIENT_CERTIFICATE_PATH=str(path),
                AZURE_AUTHORITY_HOST=configured.url)
        token = identity.EnvironmentCredential().get_token(ARM_SCOPE)
        claims = assert_app_token(token.token, client_id, ("https://management.azure.com", "https://management.azure.com/"))
        assert claims["appidacr"] == "2", claims                           # a certificate
        assert arm_subscriptions(configured, token.token) == [DEMO_SUBSCRIPTION]
        # Another key under the same client id is refused.
        other, _ = write_certificate(tmp_path, "other.pem")
        env.set(AZURE_CLIENT_CERTIFICATE_PATH=str(other))
        with pytest.raises(ClientAuthenticationError) as failure:
            identity.EnvironmentCredential().get_token(GRAPH_SCOPE)
        assert "invalid_client" in str(failure.value) or "AADSTS" in str(failure.value), failure.value
    finally:
        env.stop()
    assert not env.proxy.refused(), env.proxy.refused()


def service_account_token(key_pem, issuer, subject, audience="api://AzureADTokenExchange", lifetime=3600):
    """What a Kubernetes cluster (or GitHub Actions) projects into the pod: its own RS256 token for the workload."""
    from joserfc import jwt
    from joserfc.jwk import RSAKey
    now = int(time.time())
    claims = {"iss": issuer, "sub": subject, "aud": [audience], "iat": now, "nbf": now, "exp": now + lifetime}
    return jwt.encode({"alg": "RS256", "kid": "cluster-key"}, claims, RSAKey.import_key(key_pem))


def test_workload_identity_exchanges_a_federated_token(fakeentra_factory, chain_certs, monkeypatch, tmp_path):
    """WorkloadIdentityCredential (DefaultAzureCredential's workload identity link) reads the projected token
    file and presents it as the client assertion; the app's federated credential names its issuer and subject."""
    key_pem, cert_pem, _ = self_signed_certificate()
    issuer, subject = "https://oidc.prod-aks.azure.com/8f2c1a3e-demo/", "system:serviceaccount:payments:api"
    client_id = str(uuid.uuid4())
    configured = fakeentra_factory(*SERVER_ARGS, certs_dir=chain_certs, config={"apps": [{
        "clientId": client_id, "displayName": "Payments API (AKS)", "tenant": CONTOSO,
        "federatedCredentials": [{"issuer": issuer, "subject": subject, "certificates": [cert_pem]}]}]})
    env = Environment(monkeypatch, configured)
    token_file = tmp_path / "azure-identity-token"
    try:
        token_file.write_text(service_account_token(key_pem, issuer, subject))
        env.set(AZURE_TENANT_ID=CONTOSO_ID, AZURE_CLIENT_ID=client_id, AZURE_FEDERATED_TOKEN_FILE=str(token_file),
                AZURE_AUTHORITY_HOST=configured.url)
        mark = journal_mark(configured)
        token = identity.WorkloadIdentityCredential().get_token(ARM_SCOPE)
        claims = assert_app_token(token.token, client_id, ("https://management.azure.com", "https://management.azure.com/"))
        assert claims["appidacr"] == "2", claims
        assert arm_subscriptions(configured, token.token) == [DEMO_SUBSCRIPTION]
        sent = [e for e in journal_since(configured, mark) if e["path"].endswith("/oauth2/v2.0/token")]
        assert sent and sent[0]["request"]["body"]["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", sent
        # DefaultAzureCredential finds the same link from the same variables.
        chain = identity.DefaultAzureCredential(exclude_cli_credential=True, exclude_powershell_credential=True,
                                                exclude_developer_cli_credential=True, exclude_shared_token_cache_credential=True,
                                                exclude_visual_studio_code_credential=True, exclude_interactive_browser_credential=True)
        assert jwt_claims(chain.get_token(GRAPH_SCOPE).token)["appid"] == client_id
        # Another subject, another issuer, another audience: each refused with its own code.
        for wrong, code in ((service_account_token(key_pem, issuer, "system:serviceaccount:payments:other"), "AADSTS700213"),
                            (service_account_token(key_pem, "https://token.actions.githubusercontent.com", subject), "AADSTS700211"),
                            (service_account_token(key_pem, issuer, subject, audience="api://other"), "AADSTS700212")):
            token_file.write_text(wrong)
            with pytest.raises(ClientAuthenticationError) as failure:
                identity.WorkloadIdentityCredential().get_token(GRAPH_SCOPE)
            assert code in str(failure.value), failure.value
        # A token the issuer did not sign.
        other_key, _, _ = self_signed_certificate()
        token_file.write_text(service_account_token(other_key, issuer, subject))
        with pytest.raises(ClientAuthenticationError) as failure:
            identity.WorkloadIdentityCredential().get_token("https://vault.azure.net/.default")
        assert "AADSTS7000274" in str(failure.value), failure.value
    finally:
        env.stop()
    assert not env.proxy.refused(), env.proxy.refused()


def test_environment_credential_with_a_certificate_sent_as_x5c_binds_it(server, env, tmp_path):
    # An unknown client whose assertion carries its certificate (x5c, AZURE_CLIENT_SEND_CERTIFICATE_CHAIN) gets
    # that certificate bound on first use, as an unknown client with a secret gets the secret.
    path, _ = write_certificate(tmp_path)
    client_id = str(uuid.uuid4())
    env.set(AZURE_TENANT_ID=CONTOSO, AZURE_CLIENT_ID=client_id, AZURE_CLIENT_CERTIFICATE_PATH=str(path),
            AZURE_CLIENT_SEND_CERTIFICATE_CHAIN="true", AZURE_AUTHORITY_HOST=server.url)
    token = identity.EnvironmentCredential().get_token(GRAPH_SCOPE)
    assert assert_app_token(token.token, client_id, GRAPH_AUDIENCES)["appidacr"] == "2"


# MARK: ManagedIdentityCredential

def assert_managed_identity_token(token, which):
    claims = assert_app_token(token, which["client_id"], ("https://management.azure.com", "https://management.azure.com/"))
    assert claims["appidacr"] == "2" and claims["oid"] == which["oid"] and claims["sub"] == which["oid"], claims
    assert claims["xms_mirid"] == f"/subscriptions/{DEMO_SUBSCRIPTION[0]}/resourcegroups/demo/providers{which['mirid']}", claims
    return claims


@pytest.mark.parametrize("which", [SYSTEM_ASSIGNED, USER_ASSIGNED], ids=["system-assigned", "user-assigned"])
def test_managed_identity_through_imds(server, env, which):
    env.imds()
    mark = journal_mark(server)
    credential = (identity.ManagedIdentityCredential() if which is SYSTEM_ASSIGNED
                  else identity.ManagedIdentityCredential(client_id=which["client_id"]))
    token = credential.get_token(ARM_SCOPE)
    assert_managed_identity_token(token.token, which)
    assert arm_subscriptions(server, token.token) == [DEMO_SUBSCRIPTION]
    (asked,) = [e for e in journal_since(server, mark) if e["path"] == "/metadata/identity/oauth2/token"]
    assert asked["status"] == 200, asked                 # (FakeEntra answers 400 without `Metadata: true`)
    expected = {"api-version": "2018-02-01", "resource": "https://management.azure.com"}
    if which is USER_ASSIGNED:
        expected["client_id"] = which["client_id"]
    assert asked["query"] == expected, asked["query"]


def test_managed_identity_through_app_service(server, env):
    env.app_service()
    mark = journal_mark(server)
    token = identity.ManagedIdentityCredential().get_token(ARM_SCOPE)
    assert_managed_identity_token(token.token, SYSTEM_ASSIGNED)
    assert token.expires_on > 0
    (asked,) = [e for e in journal_since(server, mark) if e["path"] == "/msi/token"]
    assert asked["query"]["api-version"] == "2019-08-01" and asked["status"] == 200, asked
    user = identity.ManagedIdentityCredential(client_id=USER_ASSIGNED["client_id"]).get_token(ARM_SCOPE)
    assert_managed_identity_token(user.token, USER_ASSIGNED)


def test_managed_identity_through_app_service_with_a_wrong_identity_header_fails(server, env):
    env.app_service(header="not-the-header")
    mark = journal_mark(server)
    with pytest.raises(ClientAuthenticationError) as failure:
        identity.ManagedIdentityCredential().get_token(ARM_SCOPE)
    assert "X-IDENTITY-HEADER" in str(failure.value) or "401" in str(failure.value), failure.value
    asked = [e for e in journal_since(server, mark) if e["path"] == "/msi/token"]
    assert asked and {e["status"] for e in asked} == {401}, asked


def test_managed_identity_through_service_fabric(server, env):
    """A Service Fabric node's agent: IDENTITY_ENDPOINT, IDENTITY_HEADER (sent as `Secret`) and the server
    thumbprint azure-identity requires to choose it (it then skips verifying the endpoint's certificate)."""
    host, port = server.host.rsplit(":", 1)
    leaf = ssl.PEM_cert_to_DER_cert(ssl.get_server_certificate((host, int(port))))
    env.set(IDENTITY_ENDPOINT=server.url + "/servicefabric/metadata/identity/oauth2/token", IDENTITY_HEADER=IDENTITY_HEADER,
            IDENTITY_SERVER_THUMBPRINT=hashlib.sha1(leaf).hexdigest())   # MSAL pins the endpoint's certificate by it
    mark = journal_mark(server)
    token = identity.ManagedIdentityCredential().get_token(ARM_SCOPE)
    assert_managed_identity_token(token.token, SYSTEM_ASSIGNED)
    (asked,) = [e for e in journal_since(server, mark) if e["path"].startswith("/servicefabric/")]
    assert asked["query"]["api-version"] == "2019-07-01-preview" and asked["status"] == 200, asked


def service_fabric(server, env):
    """A Service Fabric node's agent for MSAL: the endpoint, the secret and the pinned server thumbprint."""
    host, port = server.host.rsplit(":", 1)
    leaf = ssl.PEM_cert_to_DER_cert(ssl.get_server_certificate((host, int(port))))
    env.set(IDENTITY_ENDPOINT=server.url + "/servicefabric/metadata/identity/oauth2/token", IDENTITY_HEADER=IDENTITY_HEADER,
            IDENTITY_SERVER_THUMBPRINT=hashlib.sha1(leaf).hexdigest())


def test_a_revoked_managed_identity_token_is_replaced_after_a_claims_challenge(server, env):
    """Token revocation for managed identities, as MSAL for Python does it (managed_identity.py): a CAE-capable
    client (`xms_cc=cp1`) meets a claims challenge and asks again with `token_sha256_to_refresh`, the hash of the
    token the resource refused. The endpoint keeps handing out the token it issued until then (a second client
    with an empty cache gets the same one), and a new one after."""
    import requests
    msal = pytest.importorskip("msal")
    service_fabric(server, env)
    def client():
        return msal.ManagedIdentityClient(msal.SystemAssignedManagedIdentity(), http_client=requests.Session(),
                                          client_capabilities=["cp1"])
    mark = journal_mark(server)
    first = client()
    issued = first.acquire_token_for_client(resource="https://management.azure.com")
    assert "access_token" in issued, issued
    claims = assert_managed_identity_token(issued["access_token"], SYSTEM_ASSIGNED)
    assert claims["xms_cc"] == ["cp1"], claims
    again = client().acquire_token_for_client(resource="https://management.azure.com")
    assert again["access_token"] == issued["access_token"], "the endpoint hands out the token it keeps"
    challenge = '{"access_token":{"nbf":{"essential":true,"value":"%d"}}}' % int(time.time())
    renewed = first.acquire_token_for_client(resource="https://management.azure.com", claims_challenge=challenge)
    assert renewed["access_token"] != issued["access_token"], "a refused token is replaced"
    assert client().acquire_token_for_client(resource="https://management.azure.com")["access_token"] == renewed["access_token"]
    asked = [e for e in journal_since(server, mark) if e["path"].startswith("/servicefabric/")]
    refreshed = [e for e in asked if "token_sha256_to_refresh" in e["query"]]
    assert len(refreshed) == 1 and refreshed[0]["query"]["token_sha256_to_refresh"] == hashlib.sha256(issued["access_token"].encode()).hexdigest()
    assert all(e["query"].get("xms_cc") == "cp1" for e in asked), asked


def test_managed_identity_through_azure_ml(server, env):
    """Azure ML compute: MSI_ENDPOINT and MSI_SECRET, a user-assigned identity named by `clientid`."""
    env.set(MSI_ENDPOINT=server.url + "/azureml/msi/token", MSI_SECRET=IDENTITY_HEADER)
    mark = journal_mark(server)
    token = identity.ManagedIdentityCredential(client_id=USER_ASSIGNED["client_id"]).get_token(ARM_SCOPE)
    assert_managed_identity_token(token.token, USER_ASSIGNED)
    assert token.expires_on > 0
    (asked,) = [e for e in journal_since(server, mark) if e["path"] == "/azureml/msi/token"]
    assert asked["query"]["clientid"] == USER_ASSIGNED["client_id"] and asked["status"] == 200, asked


def test_managed_identity_through_azure_arc(server, env):
    """An Azure Arc-enabled server's agent: IDENTITY_ENDPOINT and IMDS_ENDPOINT. azure-identity (through MSAL)
    reads the key file the 401 names, which must lie in /var/opt/azcmagent/tokens, and sends it back; for a
    user-assigned identity MSAL also requires the agent to echo the identity it used."""
    if os.geteuid() != 0 and not os.access("/var/opt/azcmagent/tokens", os.W_OK):
        pytest.skip("the Arc key file's directory, /var/opt/azcmagent/tokens, is not writable by this user")
    env.set(IDENTITY_ENDPOINT=server.url + "/azurearc/metadata/identity/oauth2/token", IMDS_ENDPOINT=server.url)
    mark = journal_mark(server)
    token = identity.ManagedIdentityCredential().get_token(ARM_SCOPE)
    assert_managed_identity_token(token.token, SYSTEM_ASSIGNED)
    user = identity.ManagedIdentityCredential(client_id=USER_ASSIGNED["client_id"]).get_token(ARM_SCOPE)
    assert_managed_identity_token(user.token, USER_ASSIGNED)
    asked = [(e["status"], "authorization" in {k.lower() for k in e["request"]["headers"]})
             for e in journal_since(server, mark) if e["path"].startswith("/azurearc/")]
    assert asked == [(401, False), (200, True)] * 2, asked


def test_managed_identity_through_cloud_shell(server, env):
    """Cloud Shell: MSI_ENDPOINT without MSI_SECRET. azure-identity POSTs the resource as a form and gets the
    token of the person signed in to the shell (the first demo user), a delegated token of the Azure portal's
    console app; an audience the shell does not serve is refused with AudienceNotSupported."""
    env.set(MSI_ENDPOINT=server.url + "/cloudshell/oauth2/token")
    mark = journal_mark(server)
    token = identity.ManagedIdentityCredential().get_token(ARM_SCOPE)
    claims = jwt_claims(token.token)
    assert claims["upn"] == "adele.vance@contoso.onmicrosoft.com" and claims["idtyp"] == "user", claims
    assert claims["appid"] == "b677c290-cf4b-4a8e-a60e-91ba650a4abe" and claims["aud"] == "https://management.azure.com", claims
    assert token.expires_on > time.time() + 3000
    with pytest.raises(ClientAuthenticationError) as refused:
        identity.ManagedIdentityCredential().get_token("https://azconfig.io/.default")
    assert "AudienceNotSupported" in str(refused.value)
    asked = [(e["method"], e["status"]) for e in journal_since(server, mark) if e["path"] == "/cloudshell/oauth2/token"]
    assert asked == [("POST", 200), ("POST", 400)], asked


# MARK: Managed identity faults

# Each fault scenario, the statuses IMDS answers in turn, and the least time azure-identity waits in all.
MANAGED_IDENTITY_FAULTS = [
    ("managed-identity-imds-updating", [410, 200], 0),          # the first retry is at once
    ("managed-identity-throttled", [429, 200], 2),              # Retry-After: 2 honoured
    ("managed-identity-transient-500", [500, 500, 200], 1.6),   # back-off 0.8 s x 2 before the second retry
]


@pytest.mark.parametrize("scenario,statuses,least_wait", MANAGED_IDENTITY_FAULTS, ids=[f[0] for f in MANAGED_IDENTITY_FAULTS])
def test_managed_identity_retries_imds_faults(chain_certs, monkeypatch, scenario, statuses, least_wait):
    """azure-identity's IMDS retry policy (azure/identity/_credentials/imds.py: PIPELINE_SETTINGS and
    ImdsRetryPolicy retry 404, 410, 429 and 5xx up to five times, azure-core honouring Retry-After) meets each
    managed-identity fault scenario, bound to the whole server: the token arrives and no fault reaches the app."""
    scripted = RunningServer(SERVER_ARGS + ["--scenario", scenario], chain_certs)
    env = Environment(monkeypatch, scripted)
    try:
        env.imds()
        started = time.monotonic()
        token = identity.ManagedIdentityCredential().get_token(ARM_SCOPE)
        waited = time.monotonic() - started
        assert_managed_identity_token(token.token, SYSTEM_ASSIGNED)
        answered = [e["status"] for e in scripted.journal()["entries"] if e["path"] == "/metadata/identity/oauth2/token"]
        assert answered == statuses
        assert waited >= least_wait, f"retried after {waited:.2f} s"
        assert not env.proxy.refused(), env.proxy.refused()
    finally:
        env.stop()
        scripted.stop()


# MARK: DefaultAzureCredential

# The links that would reach outside the test (a developer's az, PowerShell, VS Code or shared cache) stay out.
QUIET = dict(exclude_cli_credential=True, exclude_powershell_credential=True, exclude_developer_cli_credential=True,
             exclude_shared_token_cache_credential=True, exclude_visual_studio_code_credential=True,
             exclude_interactive_browser_credential=True)


def successful_link(credential):
    return type(credential._successful_credential).__name__


def test_default_credential_picks_the_environment_link(server, env):
    env.imds()                                          # a managed identity is there too: the environment comes first
    client_id = env.client_secret()
    credential = identity.DefaultAzureCredential(**QUIET)
    token = credential.get_token(ARM_SCOPE)
    assert successful_link(credential) == "EnvironmentCredential"
    assert_app_token(token.token, client_id, ("https://management.azure.com", "https://management.azure.com/"))


@pytest.mark.parametrize("which", [SYSTEM_ASSIGNED, USER_ASSIGNED], ids=["system-assigned", "user-assigned-by-AZURE_CLIENT_ID"])
def test_default_credential_picks_the_managed_identity_link_when_only_imds_is_set(server, env, which):
    env.imds()
    if which is USER_ASSIGNED:
        env.set(AZURE_CLIENT_ID=which["client_id"])    # DefaultAzureCredential's managed_identity_client_id
    credential = identity.DefaultAzureCredential(**QUIET)
    token = credential.get_token(ARM_SCOPE)
    assert successful_link(credential) == "ManagedIdentityCredential"
    assert_managed_identity_token(token.token, which)
