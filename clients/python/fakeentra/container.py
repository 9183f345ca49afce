"""FakeEntra's image as a test's server when there is no `fakeentra` binary (Testcontainers-style):
`docker run` (or podman) with a random control secret, the port published on loopback, the health
check as readiness, the CA copied out of the container, and `docker rm -f` to stop it."""
import os
import pathlib
import secrets
import shutil
import subprocess
import tempfile
import time

from .server import FakeEntra, FakeEntraError

DEFAULT_IMAGE = "fakeentra:latest"


def container_engine():
    """$FAKEENTRA_CONTAINER_ENGINE, else docker, else podman on the PATH; None without one."""
    explicit = os.environ.get("FAKEENTRA_CONTAINER_ENGINE")
    if explicit:
        return shutil.which(explicit) or explicit
    return shutil.which("docker") or shutil.which("podman")


class FakeEntraContainer(FakeEntra):
    """One server in a container of FakeEntra's image (`$FAKEENTRA_IMAGE`, default fakeentra:latest): the
    same methods as a `FakeEntra`. `args` are extra `serve` options, as for the binary."""

    def __init__(self, *args, image=None, engine=None, timeout=30):
        self.engine = engine or container_engine()
        if not self.engine:
            raise FakeEntraError("no container engine: install docker or podman, or set FAKEENTRA_CONTAINER_ENGINE")
        self.image = image or os.environ.get("FAKEENTRA_IMAGE") or DEFAULT_IMAGE
        if self._engine("image", "inspect", self.image).returncode != 0:
            raise FakeEntraError(f"no fakeentra binary, and no image {self.image} for {self.engine}: set FAKEENTRA_BINARY to a "
                                 f"fakeentra binary (e.g. .build/debug/fakeentra, or put fakeentra on the PATH), or build the image "
                                 f"with scripts/image and load .build-image/fakeentra.tar (or set FAKEENTRA_IMAGE)")
        self.control_secret = secrets.token_urlsafe(24)
        self._scratch = pathlib.Path(tempfile.mkdtemp(prefix="fakeentra-container-"))
        started = self._engine("run", "--detach", "--publish", "127.0.0.1::8443", "--env", f"FAKEENTRA_CONTROL_SECRET={self.control_secret}",
                               self.image, "serve", *[str(a) for a in args])
        if started.returncode != 0:
            raise FakeEntraError(f"{self.engine} run {self.image} failed: {started.stderr.strip()}")
        self.container = started.stdout.strip().splitlines()[-1]
        try:
            self._wait_until_healthy(timeout)
            self.url = "https://127.0.0.1:" + self._published_port()
            self.certs_dir = self._scratch
            self.ca = str(self._scratch / "ca.pem")
            copied = self._engine("cp", f"{self.container}:/certs/ca.pem", self.ca)
            if copied.returncode != 0:
                raise FakeEntraError(f"cannot copy the CA out of the container: {copied.stderr.strip()}")
        except BaseException:
            self.stop()
            raise
        self.process = None

    def _published_port(self):
        """The host port the engine published 8443 on (an engine on host networking publishes none)."""
        answer = self._engine("port", self.container, "8443/tcp")
        lines = answer.stdout.strip().splitlines()
        if answer.returncode != 0 or not lines or not lines[0].rsplit(":", 1)[-1].isdigit():
            raise FakeEntraError(f"{self.engine} published no host port for the container's 8443 ({(answer.stderr or answer.stdout).strip() or 'no answer'}); "
                                 "an engine without a bridge network cannot: run the image yourself with --network host "
                                 "-e FAKEENTRA_PORT=<port> and attach with FAKEENTRA_URL and FAKEENTRA_CA (docs/container.md)")
        return lines[0].rsplit(":", 1)[1]

    def _engine(self, *arguments):
        return subprocess.run([self.engine, *arguments], capture_output=True, text=True, timeout=120)

    def _wait_until_healthy(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            if self._engine("exec", self.container, "/fakeentra", "health").returncode == 0:
                return
            if time.monotonic() > deadline:
                logs = self._engine("logs", self.container)
                raise FakeEntraError(f"the container did not become healthy in {timeout} s:\n{logs.stdout}{logs.stderr}")
            time.sleep(0.05)

    def stop(self):
        if getattr(self, "container", None):
            self._engine("rm", "--force", self.container)
            self.container = None
        shutil.rmtree(self._scratch, ignore_errors=True)

    def __repr__(self):
        return f"<FakeEntraContainer {getattr(self, 'url', '(starting)')}>"
