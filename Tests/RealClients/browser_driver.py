"""The headless sign-in of the pytest plugin (`fakeentra.signin`), re-exported for the tests that walk the
pages themselves. As a BROWSER command, use `fakeentra browse` (`FakeEntra.browser_environment`)."""
from fakeentra.signin import SignInError, drive, drive_response, parse_forms  # noqa: F401 (re-exported for the tests)
