"""The dev container feature (clients/devcontainer/fakeentra) installed as the devcontainer CLI installs it:
its install.sh run as root in an image build, the options as upper-case variables, the container's user as
_REMOTE_USER; then, as that user in the container, fakeentra serves with the certificates the feature made
and curl trusts it through the system's store, with the feature's containerEnv. The base is Debian bookworm
(what mcr.microsoft.com/devcontainers/base is built on), made here with mmdebstrap and imported into the
engine, as no registry is reachable."""
import json
import pathlib
import shutil
import subprocess
import tarfile
import uuid

import pytest

from test_docker import docker, engine_answers, free_port

ROOT = pathlib.Path(__file__).resolve().parents[2]
FEATURE = ROOT / "clients" / "devcontainer" / "fakeentra"
BINARY = ROOT / ".build-release" / "release" / "fakeentra"
BASE = "fakeentra-test/debian:bookworm"

pytestmark = [
    pytest.mark.skipif(not BINARY.exists(), reason="no static release binary: scripts/build-release (or scripts/image) builds it"),
    pytest.mark.skipif(not engine_answers(), reason="no Docker engine answers (scripts/docker-engine starts one as root)"),
    pytest.mark.skipif(not shutil.which("mmdebstrap"), reason="needs mmdebstrap (scripts/setup --image installs it) to make a Debian base image"),
]


@pytest.fixture(scope="module")
def base_image(tmp_path_factory):
    if docker("image", "inspect", BASE, check=False).returncode != 0:
        rootfs = tmp_path_factory.mktemp("rootfs") / "bookworm.tar"
        subprocess.run(["mmdebstrap", "--quiet", "--variant=apt", "--include=ca-certificates,curl,passwd", "bookworm", str(rootfs),
                        "http://deb.debian.org/debian"], check=True, timeout=600)
        docker("import", str(rootfs), BASE)
    return BASE


def build(context, base, options, user="vscode"):
    """The image the devcontainer CLI would build: the base, the user, then the feature's install.sh."""
    shutil.copytree(FEATURE, context / "feature")
    variables = " ".join(f"{name.upper()}='{value}'" for name, value in options.items())
    (context / "Dockerfile").write_text(f"""FROM {base}
RUN useradd --create-home --shell /bin/bash {user}
COPY dist /tmp/dist
COPY feature /tmp/feature
RUN cd /tmp/feature && {variables} _REMOTE_USER={user} sh ./install.sh
""")
    tag = f"fakeentra-test/devcontainer-{uuid.uuid4().hex[:8]}"
    result = docker("build", "--network", "host", "--quiet", "-t", tag, str(context), check=False)
    return tag, result


def test_the_feature_installs_fakeentra_and_the_container_trusts_it(tmp_path, base_image):
    (tmp_path / "dist").mkdir()
    with tarfile.open(tmp_path / "dist" / "fakeentra-linux.tar.gz", "w:gz") as archive:
        archive.add(BINARY, arcname="fakeentra-linux/fakeentra")
    tag, result = build(tmp_path, base_image, {"binaryUrl": "file:///tmp/dist/fakeentra-linux.tar.gz",
                                               "hostnames": "login.microsoftonline.com, graph.microsoft.com"})
    assert result.returncode == 0, result.stderr
    try:
        # The feature's containerEnv, and the same names in devcontainer.json's, for serve's certificate.
        environment = {**json.loads((FEATURE / "devcontainer-feature.json").read_text())["containerEnv"],
                       "FAKEENTRA_HOSTNAMES": "login.microsoftonline.com,graph.microsoft.com"}
        port = free_port()
        script = f"""set -e
fakeentra serve --port {port} > /tmp/serve.log 2>&1 &
for i in $(seq 100); do curl -sf https://127.0.0.1:{port}/_fakeentra/health >/dev/null && break; sleep 0.1; done
curl -sf https://127.0.0.1:{port}/common/v2.0/.well-known/openid-configuration | grep -o '"issuer":"[^"]*"'
curl -sf --resolve login.microsoftonline.com:{port}:127.0.0.1 'https://login.microsoftonline.com:{port}/common/discovery/instance?api-version=1.1&authorization_endpoint=https://login.microsoftonline.com/common/oauth2/v2.0/authorize' | grep -o '"tenant_discovery_endpoint"'
grep -c "created a new local CA" /tmp/serve.log || true
id -un
"""
        run = docker("run", "--rm", "--network", "host", "--user", "vscode",
                     *[arg for name, value in environment.items() for arg in ("-e", f"{name}={value}")], tag, "sh", "-c", script, check=False)
        assert run.returncode == 0, run.stdout + run.stderr
        assert '"issuer":"https://127.0.0.1:' in run.stdout, "curl verified the server through the system's trust store"
        assert '"tenant_discovery_endpoint"' in run.stdout, "a name given at serve time is served under the trusted CA"
        assert run.stdout.strip().endswith("0\nvscode"), "the container's user serves under the feature's CA, not a new one"
    finally:
        docker("rmi", "-f", tag, check=False)


def test_without_a_binary_the_feature_says_what_to_give(tmp_path, base_image):
    (tmp_path / "dist").mkdir()
    tag, result = build(tmp_path, base_image, {})
    docker("rmi", "-f", tag, check=False)
    assert result.returncode != 0
    assert "give the feature's binaryUrl option" in result.stdout + result.stderr
