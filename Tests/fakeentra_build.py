"""Imported by the pytest suites under Tests/ before anything starts a server: the real `fakeentra` binary
is FAKEENTRA_BINARY, else the build of this checkout (the one scripts/test just made); the plugin's
fixtures read the variable."""
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]

if not os.environ.get("FAKEENTRA_BINARY"):
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    os.environ["FAKEENTRA_BINARY"] = str(pathlib.Path(bin_path) / "fakeentra")
