"""FakeEntra for Python tests: start a local Microsoft Entra ID / Azure AD B2C stand-in, point clients
at it, sign in without a browser, bind scenarios and move its clock. The pytest plugin
(`fakeentra.pytest_plugin`, registered through the `pytest11` entry point) wraps this in fixtures."""
from .container import FakeEntraContainer
from .server import DEMO_PASSWORD, FakeEntra, FakeEntraError, find_binary
from .signin import SignInError, drive, drive_response, parse_forms

__all__ = ["DEMO_PASSWORD", "FakeEntra", "FakeEntraContainer", "FakeEntraError", "find_binary", "SignInError", "drive", "drive_response", "parse_forms"]
