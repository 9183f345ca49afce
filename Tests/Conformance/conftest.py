"""The conformance adapters against the real `fakeentra` binary (FAKEENTRA_BINARY, else this checkout's build)."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import fakeentra_build  # noqa: E402,F401  (picks the fakeentra binary)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))



@pytest.fixture(scope="session")
def server(fakeentra):
    return fakeentra
