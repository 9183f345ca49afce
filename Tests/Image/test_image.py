"""The OCI image of scripts/image, run with runc as a container engine would run it: its user, its
volumes, its FAKEENTRA_* configuration, its health check, and a sign-in through it from the host."""
import datetime
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tarfile
import textwrap
import time
import uuid

import pytest
import requests

from fakeentra import FakeEntra

ROOT = pathlib.Path(__file__).resolve().parents[2]
LAYOUT = ROOT / ".build-image" / "oci"
SECRET = "image-test-secret"

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="runc runs containers as root here (rootless runc needs user namespaces set up)"),
    pytest.mark.skipif(not shutil.which("runc") or not shutil.which("umoci"), reason="runc and umoci are installed by scripts/setup --image"),
    pytest.mark.skipif(not LAYOUT.exists(), reason="no image: scripts/image builds .build-image/oci"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def image_config():
    index = json.loads((LAYOUT / "index.json").read_text())
    blob = lambda digest: json.loads((LAYOUT / "blobs" / "sha256" / digest.split(":")[1]).read_text())
    return blob(blob(index["manifests"][0]["digest"])["config"]["digest"])["config"]


def layer_members():
    """Every path the image's layers hold."""
    index = json.loads((LAYOUT / "index.json").read_text())
    blob = lambda digest: LAYOUT / "blobs" / "sha256" / digest.split(":")[1]
    manifest = json.loads(blob(index["manifests"][0]["digest"]).read_text())
    names = []
    for layer in manifest["layers"]:
        with tarfile.open(blob(layer["digest"])) as archive:
            names += archive.getnames()
    return names


@pytest.fixture(scope="module")
def container(tmp_path_factory):
    work = tmp_path_factory.mktemp("image")
    bundle, certs = work / "bundle", work / "certs"
    subprocess.run(["umoci", "unpack", "--image", f"{LAYOUT}:latest", str(bundle)], check=True, capture_output=True)
    certs.mkdir()
    os.chown(certs, 65532, 65532)
    port = free_port()
    config = json.loads((bundle / "config.json").read_text())
    process = config["process"]
    process["terminal"] = False
    process["env"] += [f"FAKEENTRA_PORT={port}", f"FAKEENTRA_CONTROL_SECRET={SECRET}"]
    # The host's network (as `docker run --network host`), and a host folder as the /certs volume.
    config["linux"]["namespaces"] = [n for n in config["linux"]["namespaces"] if n["type"] != "network"]
    config["mounts"].append({"destination": "/certs", "type": "bind", "source": str(certs), "options": ["rbind", "rw"]})
    (bundle / "config.json").write_text(json.dumps(config))
    name = f"fakeentra-image-test-{uuid.uuid4().hex[:8]}"
    log = open(work / "container.log", "w")
    subprocess.run(["runc", "run", "--detach", "--bundle", str(bundle), name], check=True, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        url = f"https://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while not (certs / "ca.pem").exists() or subprocess.run(["runc", "exec", name, "/fakeentra", "health"], capture_output=True).returncode != 0:
            assert time.monotonic() < deadline, (work / "container.log").read_text()
            time.sleep(0.1)
        yield {"name": name, "url": url, "ca": str(certs / "ca.pem"), "bundle": bundle, "log": work / "container.log"}
    finally:
        subprocess.run(["runc", "kill", name, "TERM"], capture_output=True)
        subprocess.run(["runc", "delete", "--force", name], capture_output=True)
        log.close()


def test_the_image_is_the_binary_a_user_and_volumes():
    config = image_config()
    assert config["User"] == "65532:65532"
    assert config["Entrypoint"] == ["/fakeentra"] and config["Cmd"] == ["serve"]
    assert set(config["Volumes"]) == {"/certs", "/state"} and "8443/tcp" in config["ExposedPorts"]
    assert "FAKEENTRA_CERTS=/certs" in config["Env"] and "FAKEENTRA_HOST=0.0.0.0" in config["Env"]


def test_it_runs_as_its_user_without_a_shell(container):
    state = json.loads(subprocess.run(["runc", "state", container["name"]], check=True, capture_output=True, text=True).stdout)
    status = pathlib.Path(f"/proc/{state['pid']}/status").read_text()
    assert [line.split()[1] for line in status.splitlines() if line.startswith("Uid:")] == ["65532"]
    names = [name.strip("./") for name in layer_members() if name.strip("./")]
    assert sorted({name.split("/")[0] for name in names}) == ["certs", "fakeentra", "state", "tmp", "usr"]
    assert all(name in ("usr", "usr/share") or name.startswith("usr/share/zoneinfo") for name in names if name.startswith("usr")), "only the tz database besides the binary"
    assert subprocess.run(["runc", "exec", container["name"], "/bin/sh", "-c", "true"], capture_output=True).returncode != 0


def test_health_check_inside_and_the_ca_on_the_volume(container):
    inside = subprocess.run(["runc", "exec", container["name"], "/fakeentra", "health"], capture_output=True, text=True)
    assert inside.returncode == 0 and json.loads(inside.stdout)["status"] == "ok", inside
    assert requests.get(container["url"] + "/_fakeentra/health", verify=container["ca"], timeout=10).json()["status"] == "ok"


def test_a_sign_in_and_a_graph_call_through_the_container(container):
    server = FakeEntra.attach(container["url"], container["ca"])
    tokens = server.sign_in("adele.vance@contoso.onmicrosoft.com", scopes=("openid", "offline_access", "User.Read"), tenant="contoso.onmicrosoft.com")
    assert "access_token" in tokens, tokens
    me = requests.get(container["url"] + "/v1.0/me", headers={"Authorization": f"Bearer {tokens['access_token']}"},
                      verify=container["ca"], timeout=10)
    assert me.status_code == 200 and me.json()["userPrincipalName"] == "adele.vance@contoso.onmicrosoft.com", me.text


def test_graph_reads_time_zones_from_the_images_tz_database(container):
    """The binary carries no ICU: Outlook's time zones come from the tz database the image ships."""
    server = FakeEntra.attach(container["url"], container["ca"])
    tokens = server.sign_in("adele.vance@contoso.onmicrosoft.com", scopes=("openid", "Calendars.Read"), tenant="contoso.onmicrosoft.com")
    def first_start(prefer=None):
        headers = {"Authorization": f"Bearer {tokens['access_token']}", **({"Prefer": f'outlook.timezone="{prefer}"'} if prefer else {})}
        events = requests.get(container["url"] + "/v1.0/me/events?$top=1&$orderby=start/dateTime", headers=headers, verify=container["ca"], timeout=10)
        assert events.status_code == 200, events.text
        start = events.json()["value"][0]["start"]
        return start["timeZone"], datetime.datetime.fromisoformat(start["dateTime"][:19])
    utc_zone, utc = first_start()
    pacific_zone, pacific = first_start("Pacific Standard Time")
    assert (utc_zone, pacific_zone) == ("UTC", "Pacific Standard Time")
    assert (utc - pacific) in (datetime.timedelta(hours=7), datetime.timedelta(hours=8)), (utc, pacific)


def test_the_control_secret_comes_from_the_environment(container):
    bindings = container["url"] + "/_fakeentra/bindings"
    assert requests.get(bindings, verify=container["ca"], timeout=10, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert requests.get(bindings, verify=container["ca"], timeout=10, headers={"Authorization": f"Bearer {SECRET}"}).status_code == 200


def test_the_pytest_plugin_attached_by_url_sends_the_control_secret(container, tmp_path):
    # The GitHub Actions service-container recipe of docs/container.md: FAKEENTRA_URL, FAKEENTRA_CA and
    # the secret the container was started with; without the secret the same calls are refused.
    tests = tmp_path / "attached"
    tests.mkdir()
    (tests / "test_attached.py").write_text(textwrap.dedent("""
        import os, uuid

        def test_control_calls_carry_the_secret(fakeentra):
            assert type(fakeentra).__name__ == "FakeEntra" and fakeentra.process is None
            status = 200 if os.environ.get("FAKEENTRA_CONTROL_SECRET") else 401
            assert fakeentra.control("GET", "/_fakeentra/bindings").status_code == status
            if status == 200:
                binding = fakeentra.bind("mfa-required", client_id=str(uuid.uuid4()))
                assert fakeentra.control("DELETE", f"/_fakeentra/bindings/{binding}").status_code == 204
    """))
    base = {k: v for k, v in os.environ.items() if k not in ("FAKEENTRA_BINARY", "FAKEENTRA_CONTROL_SECRET")}
    base.update(FAKEENTRA_URL=container["url"], FAKEENTRA_CA=container["ca"])
    for environment in ({**base, "FAKEENTRA_CONTROL_SECRET": SECRET}, base):
        result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
                                env=environment, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0 and "1 passed" in result.stdout, result.stdout[-3000:] + result.stderr[-2000:]


def test_the_pytest_plugin_runs_the_image_when_there_is_no_binary(tmp_path):
    # The plugin's own tests, in a pytest of their own without a fakeentra binary, with a container
    # engine (docker's CLI over runc and this image): the session server and a factory's are containers.
    tests = tmp_path / "suite"
    tests.mkdir()
    (tests / "test_in_containers.py").write_text(textwrap.dedent("""
        import requests

        def test_session_server(fakeentra):
            assert type(fakeentra).__name__ == "FakeEntraContainer"
            tokens = fakeentra.sign_in("adele.vance@contoso.onmicrosoft.com", tenant="contoso.onmicrosoft.com")
            assert "access_token" in tokens
            assert fakeentra.control("GET", "/_fakeentra/bindings").status_code == 200
            assert requests.get(fakeentra.url + "/_fakeentra/bindings", verify=fakeentra.ca).status_code == 401

        def test_factory_server(fakeentra_factory):
            server = fakeentra_factory("--auto-login")
            reply = server.authorize("adele.vance@contoso.onmicrosoft.com", password="", login_hint="adele.vance@contoso.onmicrosoft.com")
            assert "code" in reply, reply
    """))
    environment = {k: v for k, v in os.environ.items() if k not in ("FAKEENTRA_BINARY", "FAKEENTRA_URL", "FAKEENTRA_CA")}
    environment["PATH"] = os.pathsep.join(p for p in environment["PATH"].split(os.pathsep) if not (pathlib.Path(p) / "fakeentra").exists())
    environment.update(FAKEENTRA_CONTAINER_ENGINE=str(pathlib.Path(__file__).with_name("docker_shim.py")),
                       FAKEENTRA_SHIM_LAYOUT=str(LAYOUT), FAKEENTRA_SHIM_STATE=str(tmp_path / "containers"))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
                            env=environment, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "2 passed" in result.stdout
    assert not list((tmp_path / "containers").iterdir()), "every container was removed"
