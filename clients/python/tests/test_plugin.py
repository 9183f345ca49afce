"""The plugin against the real binary ($FAKEENTRA_BINARY): fixtures, authorities, headless sign-in,
scenario binding, the virtual clock, clean shutdown."""
import base64
import json
import os
import pathlib
import time
import uuid

import pytest
import requests

from fakeentra import FakeEntra, FakeEntraError

ADELE = "adele.vance@contoso.onmicrosoft.com"
BEN = "ben@fabrikam.test"

pytest_plugins = ["pytester"]


def claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_session_server_answers_over_tls_trusting_only_its_ca(fakeentra):
    assert fakeentra.url.startswith("https://127.0.0.1:")
    assert requests.get(fakeentra.url + "/_fakeentra/health", verify=fakeentra.ca, timeout=10).status_code == 200
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(fakeentra.url + "/_fakeentra/health", verify=True, timeout=10)


def test_every_authority_publishes_its_metadata(fakeentra):
    v2 = requests.get(fakeentra.authorities["v2"] + "/.well-known/openid-configuration", verify=fakeentra.ca, timeout=10).json()
    assert v2["authorization_endpoint"] == fakeentra.authority() + "/oauth2/v2.0/authorize"
    v1 = requests.get(fakeentra.authorities["v1"] + "/.well-known/openid-configuration", verify=fakeentra.ca, timeout=10).json()
    assert v1["token_endpoint"] == fakeentra.authority() + "/oauth2/token"
    b2c = requests.get(fakeentra.b2c_authority("B2C_1_susi") + "/v2.0/.well-known/openid-configuration", verify=fakeentra.ca, timeout=10).json()
    assert "b2c_1_susi" in b2c["authorization_endpoint"].lower()


def test_headless_sign_in_returns_tokens_for_the_user(fakeentra):
    tokens = fakeentra.sign_in(ADELE, scopes=["openid", "profile", "offline_access", "User.Read"], tenant="contoso.onmicrosoft.com")
    assert claims(tokens["id_token"])["preferred_username"] == ADELE
    assert claims(tokens["access_token"])["aud"] == "00000003-0000-0000-c000-000000000000"
    assert tokens["refresh_token"]


def test_headless_sign_in_through_a_b2c_policy(fakeentra):
    tokens = fakeentra.sign_in(BEN, scopes=["openid", "offline_access"], policy="B2C_1_susi")
    assert claims(tokens["id_token"])["tfp"] == "B2C_1_susi"
    assert claims(tokens["id_token"])["emails"] == [BEN]


def test_a_wrong_password_fails_with_the_page_error(fakeentra):
    with pytest.raises(Exception) as failure:
        fakeentra.sign_in(ADELE, password="wrong")
    assert "AADSTS50126: Error validating credentials" in str(failure.value), failure.value
    with pytest.raises(Exception) as failure:
        fakeentra.sign_in("nobody@contoso.onmicrosoft.com", password="wrong", tenant="contoso.onmicrosoft.com")
    assert str(failure.value).startswith("the sign-in page refused it: AADSTS50034"), failure.value


def test_a_scenario_bound_to_a_client_changes_only_that_client(fakeentra):
    client_id = str(uuid.uuid4())
    binding = fakeentra.bind("user-cancels-sign-in", client_id=client_id)
    try:
        reply = fakeentra.authorize(ADELE, client_id=client_id)
        assert reply["error"] == "access_denied" and reply.get("error_subcode") == "cancel", reply
        assert fakeentra.binding(binding)["rules"][0]["fired"] == 1
        assert "code" in fakeentra.authorize(ADELE)
    finally:
        fakeentra.unbind(binding)
    assert "code" in fakeentra.authorize(ADELE, client_id=client_id)


def test_the_virtual_clock_moves_token_times(fakeentra_function):
    server = fakeentra_function
    before = server.clock()["offsetSeconds"]
    assert server.advance_clock(7200)["offsetSeconds"] == before + 7200
    iat = claims(server.sign_in(ADELE)["id_token"])["iat"]
    assert iat >= time.time() + 7200 - 60


def test_factory_servers_take_options_and_stop_cleanly(fakeentra_factory):
    server = fakeentra_factory("--auto-login", config={"users": [{"userPrincipalName": "solo@contoso.onmicrosoft.com",
                                                                   "displayName": "Solo", "tenant": "contoso.onmicrosoft.com"}]})
    # --auto-login: no page at all, the login_hint user is signed in by the redirect.
    reply = server.authorize("solo@contoso.onmicrosoft.com", password="", login_hint="solo@contoso.onmicrosoft.com")
    assert "code" in reply, reply
    server.stop()
    assert server.process.returncode == 0


def test_a_start_up_failure_reports_the_servers_words(fakeentra_factory):
    with pytest.raises(FakeEntraError) as failure:
        fakeentra_factory(config={"tenants": 5})
    assert "config.json:1:" in str(failure.value)


def test_fakeentra_binary_picks_the_build(monkeypatch, tmp_path):
    monkeypatch.setenv("FAKEENTRA_BINARY", str(tmp_path / "missing"))
    with pytest.raises(FakeEntraError, match="not an executable"):
        FakeEntra()


def test_the_plugin_is_registered_through_its_entry_point(pytester):
    pytester.makepyfile("""
        import requests
        def test_uses_the_fixture(fakeentra):
            assert requests.get(fakeentra.url + "/_fakeentra/health", verify=fakeentra.ca).ok
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert os.environ["FAKEENTRA_BINARY"] in "\n".join(result.outlines)


def test_a_fixture_server_ignores_the_shells_serve_variables(fakeentra_factory, monkeypatch, tmp_path):
    # What a developer exported for a container (docs/container.md) does not reach a test's server.
    monkeypatch.setenv("FAKEENTRA_STATE", str(tmp_path / "not-for-tests"))
    monkeypatch.setenv("FAKEENTRA_CONTROL_SECRET", "from-the-shell")
    monkeypatch.setenv("FAKEENTRA_HOSTNAMES", "shell.example")
    server = fakeentra_factory()
    assert server.control("GET", "/_fakeentra/bindings").status_code == 200, "no secret demanded"
    assert not (tmp_path / "not-for-tests").exists(), "no state kept"


def test_servers_reuse_the_users_fixture_keys(fakeentra_factory, fakeentra_certs):
    first, second = fakeentra_factory(), fakeentra_factory("--hostname", "login.microsoftonline.com")
    assert first.certs_dir == pathlib.Path(fakeentra_certs) and first.certs_dir.parent.name == "fixtures"
    assert second.certs_dir.parent == first.certs_dir.parent and second.certs_dir != first.certs_dir
    assert fakeentra_factory().ca == first.ca


def test_the_plugin_drops_every_variable_serve_reads():
    # One list in each language: the plugin's must name every variable of serve's table.
    source = pathlib.Path(__file__).resolve().parents[3] / "Sources" / "fakeentra" / "ServeEnvironment.swift"
    import re
    from fakeentra.server import SERVE_VARIABLES
    assert set(re.findall(r'\("(FAKEENTRA_[A-Z_]+)", "--', source.read_text())) == set(SERVE_VARIABLES)
