"""The real-client tests run the real `fakeentra` binary through the project's own pytest plugin
(clients/python, `fakeentra` fixtures): this file only picks the build and names the fixtures the
tests use."""
import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import fakeentra_build  # noqa: E402,F401  (picks the fakeentra binary)

from fakeentra import FakeEntra
from real_servers import RunningServer, RunningServerWithConfig, bind_scenario, binding_rules, bound_app, port_443_available  # noqa: F401


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


@pytest.fixture(scope="session")
def shared_scenario_server(certs_dir):
    """One server shared by the scenario tests; each test binds its scenario to its own client, user or alias."""
    s = RunningServer([], certs_dir)
    yield s
    s.stop()
