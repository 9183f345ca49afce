"""The BROWSER command for MSAL's acquire_token_interactive without a browser: the headless sign-in of
the pytest plugin (`fakeentra.signin`, re-exported here for the tests) run in a detached child."""
import sys
import urllib.parse

import requests

from fakeentra.signin import SignInError, drive, drive_response, parse_forms  # noqa: F401 (re-exported for the tests)


def main():
    """BROWSER entry point: `python browser_driver.py URL` with FAKEENTRA_USER/FAKEENTRA_PASSWORD/FAKEENTRA_CA.
    Python's webbrowser waits for the browser command, while MSAL only starts answering on its redirect
    listener after that: so the command returns at once and a detached child does the sign-in."""
    import os
    import subprocess
    if os.environ.get("FAKEENTRA_DRIVER_CHILD") != "1":
        log = open(os.environ.get("FAKEENTRA_DRIVER_LOG", os.devnull), "a")
        subprocess.Popen([sys.executable, __file__] + sys.argv[1:], env={**os.environ, "FAKEENTRA_DRIVER_CHILD": "1"},
                         start_new_session=True, stdout=log, stderr=log)
        return
    url = sys.argv[1]
    redirect = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["redirect_uri"][0]
    final, fields, session = drive(url, os.environ["FAKEENTRA_USER"], os.environ["FAKEENTRA_PASSWORD"], redirect,
                                   verify=os.environ.get("FAKEENTRA_CA"))
    # Deliver the result to MSAL's local listener the way a browser would.
    plain = requests.Session()
    if fields is None:
        plain.get(final, timeout=30)
    else:
        plain.post(final, data=fields, timeout=30)


if __name__ == "__main__":
    main()
