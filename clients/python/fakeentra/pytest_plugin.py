"""pytest fixtures for FakeEntra.

    fakeentra           one server for the whole session (embedded defaults)
    fakeentra_factory   a function starting servers with their own options, stopped after the test
    fakeentra_certs     the session's certificate directory: every server shares one CA

The binary is `--fakeentra-binary`, else $FAKEENTRA_BINARY, else `fakeentra` on the PATH. With
$FAKEENTRA_URL (and $FAKEENTRA_CA) set, `fakeentra` is that already running server instead (a CI job
that started one, see docs/ci.md)."""
import os
import shutil
import tempfile

import pytest

from .server import FakeEntra


def pytest_addoption(parser):
    group = parser.getgroup("fakeentra")
    group.addoption("--fakeentra-binary", default=None, help="the fakeentra binary to run (default: $FAKEENTRA_BINARY, then PATH)")
    parser.addini("fakeentra_args", type="args", default=[], help="extra `fakeentra serve` options for the session server")


@pytest.fixture(scope="session")
def fakeentra_binary(pytestconfig):
    return pytestconfig.getoption("--fakeentra-binary")


@pytest.fixture(scope="session")
def fakeentra_certs():
    """A certificate directory for the session: the first server creates the CA, the others reuse it."""
    path = tempfile.mkdtemp(prefix="fakeentra-certs-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def fakeentra(fakeentra_certs, fakeentra_binary, pytestconfig):
    """One FakeEntra for the session: `.url`, `.ca`, `.authority()`, `.b2c_authority()`, `.sign_in()`,
    `.bind()`, `.advance_clock()`, `.control()`. Tests sharing it should bind scenarios to their own
    client ids rather than change the server's state."""
    if os.environ.get("FAKEENTRA_URL"):
        yield FakeEntra.attach(os.environ["FAKEENTRA_URL"], os.environ.get("FAKEENTRA_CA") or os.path.join(fakeentra_certs, "ca.pem"))
        return
    server = FakeEntra(*pytestconfig.getini("fakeentra_args"), certs_dir=fakeentra_certs, binary=fakeentra_binary)
    yield server
    server.stop()


@pytest.fixture
def fakeentra_factory(fakeentra_certs, fakeentra_binary):
    """`fakeentra_factory("--auto-login", config={...}, port=0)` starts a server for this test only."""
    started = []

    def start(*args, **kwargs):
        kwargs.setdefault("certs_dir", fakeentra_certs)
        kwargs.setdefault("binary", fakeentra_binary)
        server = FakeEntra(*args, **kwargs)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def fakeentra_function(fakeentra_factory):
    """A fresh server with the embedded defaults for one test (its own directory, sessions and clock)."""
    return fakeentra_factory()


def pytest_report_header(config):
    binary = config.getoption("--fakeentra-binary") or os.environ.get("FAKEENTRA_BINARY") or shutil.which("fakeentra")
    return f"fakeentra: {binary or 'no binary found (set FAKEENTRA_BINARY)'}"
