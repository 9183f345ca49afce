"""`serve --state DIR`: MSAL for Python signs in, the server restarts on the same port with the same
state directory, and the cached refresh token still works (`acquire_token_silent(force_refresh=True)`)."""
import tempfile
import shutil

from test_msal_public_client import ADELE, public_app, sign_in_with_auth_code


def test_a_cached_refresh_token_still_works_after_a_restart(make_server):
    state = tempfile.mkdtemp(prefix="fakeentra-state-")
    try:
        first = make_server("--state", state)
        app = public_app(first)
        signed_in = sign_in_with_auth_code(first, app, ["User.Read"])
        assert "access_token" in signed_in, signed_in
        port = int(first.url.rsplit(":", 1)[1])
        first.stop()

        # MSAL keys its cache by host and port: the same authority must come back.
        second = make_server("--state", state, port=port)
        assert second.url == first.url
        account = app.get_accounts(username=ADELE)[0]
        refreshed = app.acquire_token_silent(["User.Read"], account=account, force_refresh=True)
        assert refreshed and "access_token" in refreshed, refreshed
        assert refreshed["access_token"] != signed_in["access_token"]
    finally:
        shutil.rmtree(state, ignore_errors=True)
