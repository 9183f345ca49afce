"""The image under a real Docker engine, as users run it: `docker run` with its health check, named volumes
for /certs and /state owned by the image's user and its FAKEENTRA_* variables; docs/container.md's Compose
file with Compose; and the Testcontainers module of clients/python. The engine is Debian's docker.io,
started by scripts/docker-engine without a bridge network, so containers run on the host's network."""
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import time
import uuid

import pytest
import requests

from fakeentra import FakeEntra

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / ".build-image" / "fakeentra.tar"
IMAGE = "fakeentra:latest"
ADELE = "adele.vance@contoso.onmicrosoft.com"


def engine_answers():
    return shutil.which("docker") is not None and subprocess.run(["docker", "info"], capture_output=True).returncode == 0


pytestmark = [
    pytest.mark.skipif(not ARCHIVE.exists(), reason="no image: scripts/image builds .build-image/fakeentra.tar"),
    pytest.mark.skipif(not engine_answers(), reason="no Docker engine answers (scripts/docker-engine starts one as root); test_image.py runs the image with runc"),
]


def docker(*arguments, check=True):
    result = subprocess.run(["docker", *arguments], capture_output=True, text=True, timeout=120)
    if check:
        assert result.returncode == 0, f"docker {' '.join(arguments)}: {result.stderr}"
    return result


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(container, timeout=60):
    """The image's own HEALTHCHECK decides; a container that exits or turns unhealthy fails at once."""
    deadline = time.monotonic() + timeout
    while True:
        state = json.loads(docker("inspect", "--format", "{{json .State}}", container).stdout)
        if state.get("Health", {}).get("Status") == "healthy":
            return state
        assert state["Status"] == "running" and state.get("Health", {}).get("Status") != "unhealthy", docker("logs", container, check=False).stderr
        assert time.monotonic() < deadline, f"not healthy in {timeout} s: {state.get('Health')}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def image():
    docker("load", "-i", str(ARCHIVE))
    return IMAGE


@pytest.fixture
def volumes():
    names = [f"fakeentra-test-{kind}-{uuid.uuid4().hex[:8]}" for kind in ("certs", "state")]
    for name in names:
        docker("volume", "create", name)
    yield names
    for name in names:
        docker("volume", "rm", "-f", name, check=False)


def test_the_image_declares_its_health_check(image):
    config = json.loads(docker("inspect", "--format", "{{json .Config}}", image).stdout)
    assert config["Healthcheck"]["Test"] == ["CMD", "/fakeentra", "health"], config
    assert config["User"] == "65532:65532" and set(config["Volumes"]) == {"/certs", "/state"}


def test_docker_run_with_volumes_state_and_a_restart(image, volumes, tmp_path):
    certs, state = volumes
    port, secret, name = free_port(), "docker-test-secret", f"fakeentra-test-{uuid.uuid4().hex[:8]}"
    docker("run", "-d", "--name", name, "--network", "host", "-v", f"{certs}:/certs", "-v", f"{state}:/state",
           "-e", f"FAKEENTRA_PORT={port}", "-e", f"FAKEENTRA_CONTROL_SECRET={secret}", "-e", "FAKEENTRA_STATE=/state", image)
    try:
        running = wait_healthy(name)
        # The image's user, and no shell to exec into.
        status = pathlib.Path(f"/proc/{running['Pid']}/status").read_text()
        assert re.search(r"^Uid:\s+65532\b", status, re.M), status
        assert docker("exec", name, "/bin/sh", "-c", "true", check=False).returncode != 0
        # Fresh named volumes take the image's folders' owner: the server wrote its CA and its state there.
        for volume, expected in ((certs, "ca.pem"), (state, None)):
            mountpoint = pathlib.Path(json.loads(docker("volume", "inspect", volume).stdout)[0]["Mountpoint"])
            assert mountpoint.stat().st_uid == 65532, volume
            files = list(mountpoint.iterdir())
            assert files and all(f.stat().st_uid == 65532 for f in files), files
            if expected:
                assert (mountpoint / expected).exists()
        ca = tmp_path / "ca.pem"
        docker("cp", f"{name}:/certs/ca.pem", str(ca))
        server = FakeEntra.attach(f"https://127.0.0.1:{port}", str(ca), control_secret=secret)
        client_id = str(uuid.uuid4())
        tokens = server.sign_in(ADELE, scopes=("openid", "offline_access", "User.Read"), tenant="contoso.onmicrosoft.com", client_id=client_id)
        me = requests.get(server.url + "/v1.0/me", headers={"Authorization": f"Bearer {tokens['access_token']}"}, verify=str(ca), timeout=10)
        assert me.status_code == 200 and me.json()["userPrincipalName"] == ADELE

        # A restart keeps the CA (its volume) and the refresh token (the state volume).
        docker("restart", name)
        wait_healthy(name)
        refreshed = requests.post(f"{server.url}/contoso.onmicrosoft.com/oauth2/v2.0/token", verify=str(ca), timeout=10, data={
            "grant_type": "refresh_token", "client_id": client_id,
            "refresh_token": tokens["refresh_token"], "scope": "User.Read offline_access"})
        assert refreshed.status_code == 200, refreshed.text
    finally:
        docker("rm", "-f", name, check=False)


def compose_file():
    """docs/container.md's Compose file, as written there."""
    text = (ROOT / "docs" / "container.md").read_text()
    section = text.split("## Docker Compose", 1)[1]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


@pytest.mark.skipif(not shutil.which("docker-compose"), reason="no docker-compose (scripts/setup --image installs Debian's)")
def test_the_documented_compose_file_with_compose(image, tmp_path):
    """The fakeentra service of the documented file, started by Compose; an override puts it on the host's
    network on a free port, since the engine here has no bridge: the one line taken out of the documented
    file is its `ports` publication, which Compose refuses beside host networking. The `api` service is the
    reader's own."""
    port = free_port()
    documented = compose_file()
    published = '    ports: ["8443:8443"]\n'
    assert published in documented, "the documented file publishes 8443"
    (tmp_path / "docker-compose.yml").write_text(documented.replace(published, ""))
    (tmp_path / "docker-compose.override.yml").write_text(
        f"services:\n  fakeentra:\n    network_mode: host\n    environment:\n      FAKEENTRA_PORT: \"{port}\"\n")
    certs = tmp_path / "certs"
    certs.mkdir()
    os.chown(certs, 65532, 65532)
    project = f"fakeentra-test-{uuid.uuid4().hex[:8]}"
    compose = ["docker-compose", "--project-name", project, "--project-directory", str(tmp_path)]

    def run(*arguments):
        return subprocess.run([*compose, *arguments], cwd=tmp_path, capture_output=True, text=True, timeout=180)

    try:
        started = run("up", "-d", "fakeentra")
        assert started.returncode == 0, started.stderr
        container = run("ps", "-q", "fakeentra").stdout.strip()
        wait_healthy(container)
        ca = certs / "ca.pem"
        assert ca.exists() and ca.stat().st_uid == 65532
        document = requests.get(f"https://127.0.0.1:{port}/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration", verify=str(ca), timeout=10)
        assert document.status_code == 200 and document.json()["issuer"].endswith("/v2.0")
        # FAKEENTRA_HOSTNAMES put the service's name in the certificate, for the other services.
        names = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in", str(certs / "server.pem")],
                               capture_output=True, text=True).stdout
        assert "DNS:fakeentra" in names, names
    finally:
        run("down", "-v")


def test_the_testcontainers_module(image, monkeypatch):
    """clients/python's Testcontainers module as a test uses it: health awaited, CA copied out, the control API
    through `server` with the container's secret."""
    monkeypatch.setenv("TESTCONTAINERS_RYUK_DISABLED", "true")   # its reaper's image is pulled from a registry
    from fakeentra.testcontainers import FakeEntraTestcontainer
    client_id = str(uuid.uuid4())
    with FakeEntraTestcontainer(image, environment={"FAKEENTRA_AUTO_LOGIN": "1"}) as fakeentra:
        assert fakeentra.url.startswith("https://127.0.0.1:") and pathlib.Path(fakeentra.ca_path).exists()
        fakeentra.server.bind("mfa-required", client_id=client_id)
        tokens = fakeentra.server.sign_in(ADELE, tenant="contoso.onmicrosoft.com", client_id=str(uuid.uuid4()))
        assert "access_token" in tokens
        assert requests.get(fakeentra.url + "/_fakeentra/bindings", verify=fakeentra.ca_path, timeout=10).status_code == 401
        container = fakeentra.get_wrapped_container().id
    assert docker("inspect", container, check=False).returncode != 0, "the module removes its container"
