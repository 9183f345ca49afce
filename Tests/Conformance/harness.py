"""Plays the conformance suite's side of adapter protocol 1.3 without the suite: binds a scenario to a fresh
client id on a real `fakeentra serve`, starts an adapter command with the FAKEENTRA_* environment, sends
steps and reads the replies with deadlines. How the reference adapter, `fakeentra browse` and the broken
adapters are tested on their own; `fakeentra conform` is the real driver."""
import json
import os
import pathlib
import select
import shlex
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[2]
PYTHON = sys.executable
REFERENCE = ROOT / "clients" / "conformance" / "msal-python" / "adapter.py"
AZURE_IDENTITY = ROOT / "clients" / "conformance" / "azure-identity" / "adapter.py"
BROKEN = pathlib.Path(__file__).resolve().parent / "broken_adapter.py"
ADELE = "adele.vance@contoso.onmicrosoft.com"
PASSWORD = "Passw0rd!"
CONTOSO = "contoso.onmicrosoft.com"
B2C_TENANT = "fabrikamb2c.onmicrosoft.com"
B2C_USER = "ben@fabrikam.test"


def command(script, *args):
    """`python <script> args…` with the script relative to the checkout (the suite and the harness run
    adapters from there), as a user would write it in `--client`."""
    return " ".join([shlex.quote(PYTHON), shlex.quote(str(script.relative_to(ROOT))), *args])


def conform_report(tmp_path, client, *arguments, timeout=300):
    """`fakeentra conform --client CLIENT ARGUMENTS…` with its JSON report in `tmp_path`: the finished
    process and the report."""
    report = tmp_path / "report.json"
    result = subprocess.run([os.environ["FAKEENTRA_BINARY"], "conform", "--client", client, "--json", str(report), *arguments],
                            cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert report.exists(), result.stdout + result.stderr
    return result, json.loads(report.read_text())


def reference_command():
    return command(REFERENCE)


def azure_identity_command():
    return command(AZURE_IDENTITY)


def broken_command(variant):
    return command(BROKEN, variant)


class AdapterRun:
    """One case: a client id (bound to `scenario` when given), the adapter process, its steps."""

    def __init__(self, server, command, scenario=None, user=ADELE, password=PASSWORD, scopes="User.Read", step_timeout=10, extra_env=None):
        self.server = server
        self.client_id = str(uuid.uuid4())
        existing = server.journal(limit=1)["entries"]
        self.first_entry = existing[-1]["id"] + 1 if existing else 0
        if scenario:
            server.bind(scenario, client_id=self.client_id)
        self.scratch = pathlib.Path(tempfile.mkdtemp(prefix="adapter-"))
        self.browse_log = self.scratch / "browse.log"
        binary = os.environ["FAKEENTRA_BINARY"]
        self.env = {
            **os.environ,
            "FAKEENTRA_CONFORMANCE_PROTOCOL": "1.3",
            "FAKEENTRA_CASE": scenario or "harness",
            "FAKEENTRA_AUTHORITY": f"{server.url}/{CONTOSO}",
            "FAKEENTRA_CLIENT_ID": self.client_id,
            "FAKEENTRA_REDIRECT_URI": "http://localhost",
            "FAKEENTRA_GRAPH": server.url,
            "FAKEENTRA_CA": server.ca,
            "FAKEENTRA_USERNAME": user,
            "FAKEENTRA_PASSWORD": password,
            "FAKEENTRA_BROWSER": f"{shlex.quote(binary)} browse --log {shlex.quote(str(self.browse_log))}",
            "FAKEENTRA_SCOPES": scopes,
            "FAKEENTRA_B2C_AUTHORITY": f"{server.url}/tfp/{B2C_TENANT}/B2C_1_susi",
            "FAKEENTRA_B2C_RESET_AUTHORITY": f"{server.url}/tfp/{B2C_TENANT}/B2C_1_reset",
            "FAKEENTRA_B2C_KNOWN_AUTHORITY": server.host,
            "FAKEENTRA_B2C_SCOPES": "openid offline_access",
            "FAKEENTRA_STEP_TIMEOUT": str(step_timeout),
            **(extra_env or {}),
        }
        self.stderr_path = self.scratch / "adapter.stderr"
        self._stderr = open(self.stderr_path, "w")
        self.process = subprocess.Popen(["/bin/sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._stderr, env=self.env, cwd=ROOT)
        self._next_id = 0
        self._buffer = b""

    def step(self, kind, deadline=30, **fields):
        """Sends one step; the adapter's reply, or {"outcome": "timeout"} when none came in time."""
        self._next_id += 1
        message = {"step": kind, "id": self._next_id, "deadline": deadline, **fields}
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()
        line = self._read_line(time.monotonic() + deadline)
        if line is None:
            return {"id": self._next_id, "outcome": "timeout"}
        reply = json.loads(line)
        assert reply.get("id") == self._next_id, f"reply for another step: {reply}"
        return reply

    def _read_line(self, until):
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = until - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError(f"the adapter exited without answering:\n{self.stderr()}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def journal(self):
        """This case's exchanges, oldest first: those naming the client id, and Graph calls since the run
        began (a bearer token is redacted in the journal; the harness runs one case at a time)."""
        entries = self.server.journal(since=self.first_entry)["entries"]
        mine = (e for e in entries if e["id"] >= self.first_entry and (self.client_id in json.dumps(e) or e["kind"] == "graph"))
        return sorted(mine, key=lambda e: e["id"])

    def stderr(self):
        self._stderr.flush()
        log = self.browse_log.read_text() if self.browse_log.exists() else "(no browse log)"
        return self.stderr_path.read_text() + "\n--- browse log ---\n" + log

    def close(self):
        # End of input ends the adapter; both pipes are closed however it ended.
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        self._stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def token_requests(entries):
    return [e for e in entries if e["path"].endswith("/token")]
