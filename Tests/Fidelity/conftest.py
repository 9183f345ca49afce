"""The fidelity test runs the real `fakeentra` binary (Tests/conftest.py picks the build) through the
project's pytest plugin, with the embedded defaults."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import fakeentra_build  # noqa: E402,F401  (picks the fakeentra binary)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def provoker(fakeentra):
    from provoke import Provoker
    return Provoker(fakeentra)
