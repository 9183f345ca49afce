"""The real-client tests run the real `fakeentra` binary through the project's own pytest plugin
(clients/python, `fakeentra` fixtures): this file only picks the build and names the fixtures the
tests use."""
import os
import pathlib
import sys
import socket

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import fakeentra_build  # noqa: E402,F401  (picks the fakeentra binary)

from fakeentra import FakeEntra




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


def RunningServer(args, certs_dir, port=0):
    """A server with extra `serve` options, for module-scoped fixtures (the factory is per test)."""
    return FakeEntra(*args, certs_dir=certs_dir, port=port)


def RunningServerWithConfig(config, certs_dir, folder):
    """A server reading `config` (a dict, written as config.json in `folder`) on top of the embedded defaults."""
    import json
    path = pathlib.Path(folder) / "config.json"
    path.write_text(json.dumps(config))
    return RunningServer(["--config", str(path)], certs_dir)


@pytest.fixture(scope="session")
def certs_dir(fakeentra_certs):
    # Every server of the session shares this CA; requests (under MSAL, azure-identity…) reads it lazily.
    ca = os.path.join(fakeentra_certs, "ca.pem")
    os.environ["REQUESTS_CA_BUNDLE"] = ca
    os.environ["SSL_CERT_FILE"] = ca
    return fakeentra_certs


@pytest.fixture(scope="session")
def server(certs_dir, fakeentra):
    """A server with the embedded defaults, shared by tests that do not change its state."""
    return fakeentra


@pytest.fixture
def make_server(certs_dir, fakeentra_factory):
    """Starts extra servers with their own arguments (config files, --auto-login, --strict)."""
    return fakeentra_factory


def bind_scenario(server, scenario, **target):
    """POST /_fakeentra/bindings: binds `scenario` to a clientId, user or tenantAlias+tenant; returns the id."""
    return server.bind(scenario, client_id=target.get("clientId"), user=target.get("user"),
                       tenant_alias=target.get("tenantAlias"), tenant=target.get("tenant"))


def binding_rules(server, binding_id):
    """Each rule's {matched, fired, times} of a binding, in the scenario's order."""
    return server.binding(binding_id)["rules"]


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
