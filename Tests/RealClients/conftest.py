"""Starts the real `fakeentra` binary for tests driven by third-party clients (MSAL for Python,
azure-identity, msgraph-sdk, Authlib, curl, openssl). Nothing here sleeps: the server writes its URL
to a ready file and the fixture waits for that file with inotify-free polling on the process."""
import json
import os
import pathlib
import select
import shutil
import socket
import subprocess
import tempfile

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary_path():
    explicit = os.environ.get("FAKEENTRA_BINARY")
    if explicit:
        return explicit
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True)
    return str(pathlib.Path(out.stdout.strip()) / "fakeentra")


def port_443_available():
    """MSAL Python's username/password flow asks /common/userrealm on port 443 whatever the authority's
    port, so those tests need a server there: root, or a free unprivileged 443."""
    if os.geteuid() == 0:
        return True
    probe = socket.socket()
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", 443))
        return True
    except OSError:
        return False
    finally:
        probe.close()


class RunningServer:
    def __init__(self, args, certs_dir, port=0, env=None):
        self.certs_dir = pathlib.Path(certs_dir)
        cmd = [binary_path(), "serve", "--port", str(port), "--certs", str(self.certs_dir)] + list(args)
        self.process = subprocess.Popen(
            cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **(env or {})})
        self.url = self._read_url()
        self.ca = str(self.certs_dir / "ca.pem")

    def _read_url(self):
        # The server prints its base URL on a stdout line of its own once it accepts connections.
        deadline_lines = 200
        for _ in range(deadline_lines):
            ready, _, _ = select.select([self.process.stdout], [], [], 30)
            if not ready:
                break
            line = self.process.stdout.readline()
            if not line:
                break
            line = line.strip()
            if line.startswith("https://") or line.startswith("http://"):
                return line
        self.process.kill()
        raise RuntimeError("fakeentra did not become ready: " + self.process.stderr.read())

    @property
    def host(self):
        return self.url.split("://", 1)[1]

    def control(self, method, path, **kwargs):
        return requests.request(method, self.url + path, verify=self.ca, timeout=30, **kwargs)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="session")
def certs_dir():
    path = tempfile.mkdtemp(prefix="fakeentra-certs-")
    # Every server of the session shares this CA; requests (under MSAL, azure-identity…) reads it lazily.
    os.environ["REQUESTS_CA_BUNDLE"] = os.path.join(path, "ca.pem")
    os.environ["SSL_CERT_FILE"] = os.path.join(path, "ca.pem")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def server(certs_dir):
    """A server with the embedded defaults, shared by tests that do not change its state."""
    s = RunningServer([], certs_dir)
    yield s
    s.stop()


@pytest.fixture
def make_server(certs_dir):
    """Starts extra servers with their own arguments (config files, --auto-login, --strict)."""
    started = []

    def start(*args, port=0, config=None):
        extra = list(args)
        if config is not None:
            config_path = pathlib.Path(tempfile.mkdtemp(prefix="fakeentra-config-")) / "config.json"
            config_path.write_text(json.dumps(config))
            extra += ["--config", str(config_path)]
        s = RunningServer(extra, certs_dir, port=port)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


def bind_scenario(server, scenario, **target):
    """POST /_fakeentra/bindings: binds `scenario` to a clientId, user or tenantAlias+tenant; returns the id."""
    response = server.control("POST", "/_fakeentra/bindings", json={"scenario": scenario, **target})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def binding_rules(server, binding_id):
    """Each rule's {matched, fired, times} of a binding, in the scenario's order."""
    response = server.control("GET", f"/_fakeentra/bindings/{binding_id}")
    assert response.status_code == 200, response.text
    return response.json()["rules"]


def bound_app(server, scenario, **kwargs):
    """A public MSAL app with a fresh client id, and the id of the binding of `scenario` to that client."""
    import uuid
    from test_msal_public_client import public_app
    client_id = str(uuid.uuid4())
    binding = bind_scenario(server, scenario, clientId=client_id)
    return public_app(server, client_id=client_id, **kwargs), binding


@pytest.fixture(scope="session")
def shared_scenario_server(certs_dir):
    """One server shared by the scenario tests; each test binds its scenario to its own client, user or alias."""
    s = RunningServer([], certs_dir)
    yield s
    s.stop()
