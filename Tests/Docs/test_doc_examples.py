"""Every code example of the user documentation (README.md and docs/*.md) runs as written, against a live
FakeEntra started as the documentation starts it: `fakeentra serve` on its default port (the examples
name https://127.0.0.1:8443) with its CA in the reader's certificate folder, and --auto-login.

A fence is treated by its info string:
    python      run as a script; one that defines `test_` functions is a test module and runs under pytest
                (the plugin then starts its own server, as docs/testing-python.md describes)
    sh, bash    run by bash with -e and -o pipefail
    json        parsed: one JSON document, or one per line
    text        not code (command synopses, diagrams): nothing to run
    anything else (swift, yaml, a fence without an info string) cannot run here, and must say why not.

HTML comments on the lines just before a fence (blank lines between are fine):
    <!-- not-run: REASON -->   not run; REASON says why (needs a Mac, Xcode, your own web API…)
    <!-- run-beside: DIR -->   DIR of this checkout is on PYTHONPATH, e.g. the app a test module imports

Each example runs in a folder of its own, with FAKEENTRA_CERTS naming that server's certificate folder (what
`fakeentra certs --print-directory` prints to a reader whose server it is), `fakeentra` first on the PATH and
this venv's python and pytest next, and without the CA or server variables of this process: an example has
only what it sets up itself."""
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests"))
import fakeentra_build  # noqa: E402,F401  (picks the fakeentra binary)

from fakeentra import FakeEntra  # noqa: E402
from fakeentra.server import find_binary  # noqa: E402

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DOCUMENTED_PORT = 8443
TIMEOUT = 60   # seconds one example may take; all of them together take about 3
KNOWN_MARKERS = ("not-run", "run-beside")
# What this process may carry that would let an example pass without setting it up as a reader must.
SERVER_VARIABLES = ("FAKEENTRA_URL", "FAKEENTRA_CA", "FAKEENTRA_CERTS", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "CURL_CA_BUNDLE",
                    "NODE_EXTRA_CA_CERTS")

FENCE = re.compile(r"^(\s*)(`{3,})\s*([^`\s]*)")
MARKER = re.compile(r"^\s*<!--\s*([a-z][a-z-]*):(.*?)-->\s*$")


@dataclass
class Example:
    document: pathlib.Path
    line: int                       # of the opening fence, 1-based
    info: str
    code: str
    markers: dict = field(default_factory=dict)

    @property
    def name(self):
        return f"{self.document.relative_to(ROOT)}:{self.line} {self.info or '(no info string)'}"

    @property
    def kind(self):
        """How it is run, or None when this test cannot run it."""
        if self.info == "python":
            return "pytest" if re.search(r"^def test_", self.code, re.M) else "python"
        return {"sh": "sh", "bash": "sh", "json": "json", "text": "text"}.get(self.info)


def read_examples():
    """Every fenced block of the documents, with the markers before it; and the markers that precede no fence."""
    examples, stray = [], []
    for document in DOCUMENTS:
        lines = document.read_text().splitlines()
        attached = set()
        index = 0
        while index < len(lines):
            opening = FENCE.match(lines[index])
            if not opening:
                index += 1
                continue
            indent, ticks, info = opening.groups()
            start = index
            markers, before = {}, index - 1
            while before >= 0 and (not lines[before].strip() or MARKER.match(lines[before])):
                marker = MARKER.match(lines[before])
                if marker:
                    markers[marker.group(1)] = marker.group(2).strip()
                    attached.add(before)
                before -= 1
            body, index = [], index + 1
            while index < len(lines) and not (lines[index].strip().startswith(ticks) and set(lines[index].strip()) == {"`"}):
                body.append(lines[index][len(indent):] if lines[index].startswith(indent) else lines[index])
                index += 1
            examples.append(Example(document, start + 1, info, "\n".join(body) + "\n", markers))
            index += 1
        for number, text in enumerate(lines):
            marker = MARKER.match(text)
            if marker and marker.group(1) in KNOWN_MARKERS and number not in attached:
                stray.append(f"{document.relative_to(ROOT)}:{number + 1}: `{text.strip()}` is not just before a fence")
    return examples, stray


EXAMPLES, STRAY_MARKERS = read_examples()
RUNNABLE = [e for e in EXAMPLES if "not-run" not in e.markers and e.kind in ("python", "pytest", "sh")]
PARSED = [e for e in EXAMPLES if "not-run" not in e.markers and e.kind == "json"]


def test_every_example_is_run_or_says_why_not():
    problems = list(STRAY_MARKERS)
    for example in EXAMPLES:
        unknown = set(example.markers) - set(KNOWN_MARKERS)
        if unknown:
            problems.append(f"{example.name}: unknown marker {sorted(unknown)} (known: {', '.join(KNOWN_MARKERS)})")
        if "not-run" in example.markers and not example.markers["not-run"]:
            problems.append(f"{example.name}: `not-run` needs its reason")
        elif "not-run" not in example.markers and example.kind is None:
            problems.append(f"{example.name}: cannot be run here; tag it `text` if it is not code, or mark it "
                            "<!-- not-run: why -->")
        beside = example.markers.get("run-beside")
        if beside is not None and not (ROOT / beside).is_dir():
            problems.append(f"{example.name}: run-beside names {beside}, not a folder of this checkout")
    assert not problems, "\n".join(problems)
    # What the documents hold today, so that a parser that finds nothing cannot pass.
    assert len(RUNNABLE) >= 6 and len(PARSED) >= 5, [e.name for e in RUNNABLE + PARSED]


@pytest.mark.parametrize("example", PARSED, ids=lambda e: e.name)
def test_json_example_parses(example):
    try:
        json.loads(example.code)
    except json.JSONDecodeError:
        for number, line in enumerate(example.code.splitlines(), start=example.line + 1):
            if line.strip():
                try:
                    json.loads(line)
                except json.JSONDecodeError as error:
                    pytest.fail(f"{example.document.relative_to(ROOT)}:{number}: neither one JSON document nor one per line: {error}")


def port_is_free(port):
    probe = socket.socket()
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        probe.close()


@pytest.fixture(scope="module")
def documented_server(tmp_path_factory):
    """`fakeentra serve --auto-login` on the documented port, its CA in a certificate folder of its own."""
    if not port_is_free(DOCUMENTED_PORT):
        pytest.fail(f"127.0.0.1:{DOCUMENTED_PORT} is taken (a `scripts/serve`?): the examples are written for a server "
                    "on fakeentra serve's default port; stop what holds it and run again")
    certs = tmp_path_factory.mktemp("documented-server") / "Certs"
    server = FakeEntra("--auto-login", certs_dir=certs, port=DOCUMENTED_PORT)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def reader_path(tmp_path_factory):
    """`fakeentra` first on the PATH (a folder holding only it), then this venv's python and pytest."""
    tools = tmp_path_factory.mktemp("reader-bin")
    (tools / "fakeentra").symlink_to(os.path.abspath(find_binary()))
    return os.pathsep.join([str(tools), os.path.dirname(sys.executable), os.environ["PATH"]])


@pytest.mark.parametrize("example", RUNNABLE, ids=lambda e: e.name)
def test_example_runs_as_written(example, documented_server, reader_path, tmp_path):
    # The command lists read the journal of a server some app has used, as a reader's has.
    documented_server.sign_in("adele.vance@contoso.onmicrosoft.com", tenant="contoso.onmicrosoft.com")
    env = {k: v for k, v in os.environ.items() if k not in SERVER_VARIABLES}
    # The reader's own certificate folder is where that server keeps its CA (`fakeentra certs --print-directory`).
    env["FAKEENTRA_CERTS"] = str(documented_server.certs_dir)
    env["PATH"] = reader_path
    if "run-beside" in example.markers:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / example.markers["run-beside"]), env.get("PYTHONPATH")]))
    script = {"python": "example.py", "pytest": "test_example.py", "sh": "example.sh"}[example.kind]
    (tmp_path / script).write_text(example.code)
    command = {"python": [sys.executable, script],
               "pytest": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", script],
               "sh": ["bash", "-e", "-o", "pipefail", script]}[example.kind]
    run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    numbered = "\n".join(f"{example.line + n:5} {text}" for n, text in enumerate(example.code.splitlines(), start=1))
    assert run.returncode == 0, (f"{example.name} exited {run.returncode}\n{numbered}\n--- stdout\n{run.stdout[-3000:]}"
                                 f"\n--- stderr\n{run.stderr[-3000:]}")


def test_the_ci_workflow_installs_every_system_library_package_swift_links():
    """docs/ci.md's job builds FakeEntra on a bare runner: it must install each systemLibrary's Debian
    provider, and pkg-config, through which the build finds them."""
    manifest = (ROOT / "Package.swift").read_text()
    needed = {name for group in re.findall(r"\.apt\(\[([^\]]*)\]\)", manifest) for name in re.findall(r'"([^"]+)"', group)}
    assert {"libssl-dev", "libsqlite3-dev"} <= needed, needed
    if "pkgConfig:" in manifest:
        needed.add("pkg-config")
    workflow = next(e for e in EXAMPLES if e.document.name == "ci.md" and e.info == "yaml" and "swift build" in e.code)
    installed = {word for line in workflow.code.splitlines() if "apt-get install" in line for word in line.split()}
    assert needed <= installed, f"docs/ci.md's workflow does not install {sorted(needed - installed)}"
    # The action builds the same way when it is given no binary.
    action = (ROOT / "scripts" / "action" / "main.js").read_text()
    assert all(f'"{package}"' in action for package in needed), f"scripts/action/main.js does not install {sorted(needed)}"


def test_the_readme_counts_the_conformance_catalogue():
    """The README's case count is the catalogue's, as `fakeentra conform --list` prints it."""
    listing = subprocess.run([find_binary(), "conform", "--list"], capture_output=True, text=True, timeout=60, check=True).stdout
    cases = [line for line in listing.splitlines() if re.match(r"^[a-z0-9]+\.[a-z0-9-]+\s", line)]
    counts = {int(n) for n in re.findall(r"against (\d+) cases", (ROOT / "README.md").read_text())}
    assert counts == {len(cases)}, f"README.md says {sorted(counts)} cases; the catalogue has {len(cases)}"
