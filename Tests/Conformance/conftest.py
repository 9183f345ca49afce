"""The conformance adapters against the real `fakeentra` binary (FAKEENTRA_BINARY, else this checkout's build)."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

if not os.environ.get("FAKEENTRA_BINARY"):
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    os.environ["FAKEENTRA_BINARY"] = str(pathlib.Path(bin_path) / "fakeentra")


@pytest.fixture(scope="session")
def server(fakeentra):
    return fakeentra
