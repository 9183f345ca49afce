"""The repository's GitHub Action (action.yml, scripts/action/*.js) run as the runner runs a Node action: its inputs
as INPUT_* variables, the GITHUB_ENV, GITHUB_OUTPUT and GITHUB_STATE files, the post step with the saved
state as STATE_* variables, and, for the journal's artifact, an artifact service answering the Twirp
calls @actions/artifact makes (CreateArtifact, the blob PUT, FinalizeArtifact)."""
import base64
import hashlib
import http.server
import io
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import zipfile

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests"))
import fakeentra_build  # noqa: E402,F401  (picks the fakeentra binary)

pytestmark = pytest.mark.skipif(not shutil.which("node"), reason="the action runs on Node, as the runner's node20")

RUN_ID, JOB_ID = "ce7f54c7-61c7-4aae-887f-30da475f5f1a", "ca395085-040a-526b-2ce8-bdc85f692774"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_commands(path):
    """A GITHUB_ENV / GITHUB_OUTPUT / GITHUB_STATE file: `name<<DELIMITER` … `DELIMITER` entries."""
    values, lines = {}, pathlib.Path(path).read_text().split("\n")
    index = 0
    while index < len(lines):
        match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_-]*)<<(ghadelimiter_[0-9a-f-]+)", lines[index])
        if match:
            end = lines.index(match.group(2), index + 1)
            values[match.group(1)] = "\n".join(lines[index + 1:end])
            index = end
        elif lines[index]:
            raise AssertionError(f"not a runner command: {lines[index]!r}")
        index += 1
    return values


class ArtifactService:
    """The results service's artifact calls, recorded: CreateArtifact hands out a signed URL here, the blob
    PUT is kept, FinalizeArtifact answers an id."""

    def __init__(self):
        self.calls, self.blob = [], None
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, body=b""):
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                method = self.path.rsplit("/", 1)[-1]
                service.calls.append((method, self.path, dict(self.headers), body))
                reply = {"CreateArtifact": {"ok": True, "signed_upload_url": f"http://127.0.0.1:{service.port}/blob/journal?sig=x"},
                         "FinalizeArtifact": {"ok": True, "artifact_id": "42"}}.get(method)
                self.answer(200 if reply else 404, json.dumps(reply or {}).encode())

            def do_PUT(self):
                service.blob = self.rfile.read(int(self.headers["Content-Length"]))
                service.calls.append(("PUT", self.path, dict(self.headers), None))
                self.answer(201)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/"


@pytest.fixture
def runner(tmp_path):
    files = {name: tmp_path / name.lower() for name in ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_STATE")}
    for path in files.values():
        path.touch()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "STATE_", "FAKEENTRA_URL", "GITHUB_", "ACTIONS_"))}
    env.update({name: str(path) for name, path in files.items()})
    env.update(RUNNER_TEMP=str(tmp_path / "runner-temp"), GITHUB_ACTION_PATH=str(ROOT))
    (tmp_path / "runner-temp").mkdir()
    return env, files


def node(script, env):
    return subprocess.run(["node", str(ROOT / "scripts" / "action" / script)], env=env, capture_output=True, text=True, timeout=120)


def test_main_starts_the_server_and_exports_what_clients_read_then_post_saves_the_journal(runner):
    env, files = runner
    port = free_port()
    env.update(INPUT_PORT=str(port), INPUT_BINARY=os.environ["FAKEENTRA_BINARY"], INPUT_SCENARIO="mfa-required",
               INPUT_OPTIONS="--auto-login", INPUT_ARTIFACT_NAME="fakeentra-journal")
    started = node("main.js", env)
    assert started.returncode == 0, started.stdout + started.stderr
    exported, outputs, saved = (read_commands(files[name]) for name in ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_STATE"))
    url, ca, secret = exported["FAKEENTRA_URL"], exported["FAKEENTRA_CA"], exported["FAKEENTRA_CONTROL_SECRET"]
    assert url == f"https://127.0.0.1:{port}" and outputs["authority"] == f"{url}/common" and outputs["url"] == url
    for name in ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "CURL_CA_BUNDLE"):
        assert exported[name] == ca, name
    assert f"::add-mask::{secret}" in started.stdout, "the secret is masked in the job's log"
    # The scenario is bound to the whole server, and the control API takes the exported secret.
    bindings = requests.get(f"{url}/_fakeentra/bindings", headers={"Authorization": f"Bearer {secret}"}, verify=ca, timeout=10)
    assert bindings.status_code == 200 and "mfa-required" in bindings.text, bindings.text
    assert requests.get(f"https://127.0.0.1:{port}/common/v2.0/.well-known/openid-configuration", verify=ca, timeout=10).status_code == 200

    # The post step (the job failed): the journal as an artifact through the artifact service, then the server stopped.
    service = ArtifactService()
    token = "e30." + base64.urlsafe_b64encode(json.dumps({"scp": f"Actions.GenericRead Actions.Results:{RUN_ID}:{JOB_ID}"}).encode()).decode().rstrip("=") + ".sig"
    post_env = {**env, "ACTIONS_RUNTIME_TOKEN": token, "ACTIONS_RESULTS_URL": service.url, **{f"STATE_{k}": v for k, v in saved.items()}}
    post = node("post.js", post_env)
    assert post.returncode == 0 and "::warning" not in post.stdout, post.stdout + post.stderr
    create, put, finalize = service.calls
    assert create[0] == "CreateArtifact" and create[1] == "/twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact"
    assert create[2]["Authorization"] == f"Bearer {token}" and create[2]["Content-Type"] == "application/json"
    assert create[3] == {"workflow_run_backend_id": RUN_ID, "workflow_job_run_backend_id": JOB_ID, "name": "fakeentra-journal",
                         "mime_type": "application/zip", "version": 7}
    assert put[0] == "PUT" and put[2]["x-ms-blob-type"] == "BlockBlob"
    assert finalize[3]["size"] == str(len(service.blob)) and finalize[3]["hash"] == "sha256:" + hashlib.sha256(service.blob).hexdigest()
    with zipfile.ZipFile(io.BytesIO(service.blob)) as archive:
        assert archive.testzip() is None and sorted(archive.namelist()) == ["journal.har", "serve.log"]
        har = json.loads(archive.read("journal.har"))
    assert any("openid-configuration" in entry["request"]["url"] for entry in har["log"]["entries"]), "the job's requests are in it"
    assert pathlib.Path(outputs["journal"]).exists()
    deadline = time.monotonic() + 10
    while True:
        try:
            requests.get(f"{url}/_fakeentra/health", verify=ca, timeout=1)
        except requests.ConnectionError:
            break
        assert time.monotonic() < deadline, "the post step stops the server"
        time.sleep(0.1)


def test_a_server_that_cannot_start_fails_the_step_with_its_log(runner):
    env, _ = runner
    env.update(INPUT_PORT=str(free_port()), INPUT_BINARY=os.environ["FAKEENTRA_BINARY"], INPUT_OPTIONS="--no-such-option")
    started = node("main.js", env)
    assert started.returncode == 1 and "::error::fakeentra did not become healthy" in started.stdout, started.stdout + started.stderr
    assert "no-such-option" in started.stdout, "the server's own words are in the error"
