"""FakeEntra's image as a Testcontainers container (testcontainers-python 4):

    from fakeentra.testcontainers import FakeEntraTestcontainer

    with FakeEntraTestcontainer() as fakeentra:
        app = msal.PublicClientApplication(client_id, authority=fakeentra.authority("contoso.onmicrosoft.com"),
                                           instance_discovery=False, verify=fakeentra.ca_path)
        fakeentra.server.bind("mfa-required", client_id=client_id)   # the control API, with the secret

It waits for the image's health check, copies the container's CA out, and names the authority, Graph's URL
and the CA. On an engine without a bridge network (a CI runner started with `--bridge=none`) it runs on the
host's network, on a free port."""
import io
import os
import secrets
import socket
import tarfile
import tempfile

from testcontainers.core.container import DockerContainer
from testcontainers.core.wait_strategies import HealthcheckWaitStrategy

from .server import FakeEntra

DEFAULT_IMAGE = os.environ.get("FAKEENTRA_IMAGE", "fakeentra:latest")
PORT = 8443


class FakeEntraTestcontainer(DockerContainer):
    """FakeEntra in a container: `url`, `authority(tenant)`, `graph_url`, `ca_path`, `control_secret`, and
    `server`, a `fakeentra.FakeEntra` attached to it (sign_in, bind, advance_clock, outbox, journal…).
    `environment` takes the image's FAKEENTRA_* variables (docs/container.md)."""

    def __init__(self, image=DEFAULT_IMAGE, environment=None, host_network=None, startup_timeout=60, **kwargs):
        super().__init__(image, **kwargs)
        self.control_secret = secrets.token_urlsafe(24)
        self._host_network = host_network
        self._startup_timeout = startup_timeout
        self._scratch = tempfile.mkdtemp(prefix="fakeentra-testcontainer-")
        self.ca_path = os.path.join(self._scratch, "ca.pem")
        self.with_env("FAKEENTRA_CONTROL_SECRET", self.control_secret)
        for name, value in (environment or {}).items():
            self.with_env(name, str(value))
        self.waiting_for(HealthcheckWaitStrategy().with_startup_timeout(startup_timeout))

    def _configure(self):
        super()._configure()
        if self._host_network is None:
            # An engine without the default bridge publishes no ports: the host's network it is.
            self._host_network = not self.get_docker_client().client.networks.list(names=["bridge"])
        if self._host_network:
            self._port = _free_port()
            self.with_env("FAKEENTRA_PORT", str(self._port))
            self.with_kwargs(network_mode="host")
        else:
            self._port = None
            self.with_exposed_ports(PORT)

    def start(self):
        super().start()
        archive, _ = self.get_wrapped_container().get_archive("/certs/ca.pem")
        with tarfile.open(fileobj=io.BytesIO(b"".join(archive))) as tar:
            with open(self.ca_path, "wb") as out:
                out.write(tar.extractfile("ca.pem").read())
        return self

    @property
    def url(self):
        """The server's base URL, as the host reaches it."""
        if self._host_network:
            return f"https://127.0.0.1:{self._port}"
        return f"https://{self.get_container_host_ip()}:{self.get_exposed_port(PORT)}"

    def authority(self, tenant="common"):
        """The MSAL authority for `tenant` (common, organizations, consumers, a domain or a tenant id)."""
        return f"{self.url}/{tenant}"

    @property
    def graph_url(self):
        return f"{self.url}/v1.0"

    @property
    def ca_environment(self):
        """Variables that make requests, httpx, curl and OpenSSL-based clients trust this container's CA."""
        return {"REQUESTS_CA_BUNDLE": self.ca_path, "SSL_CERT_FILE": self.ca_path, "CURL_CA_BUNDLE": self.ca_path,
                "NODE_EXTRA_CA_CERTS": self.ca_path}

    @property
    def server(self):
        """The pytest plugin's client of this server: the same methods, the control secret sent with each call."""
        return FakeEntra.attach(self.url, self.ca_path, control_secret=self.control_secret)


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
