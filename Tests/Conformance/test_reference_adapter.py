"""The MSAL for Python reference adapter through the harness: real MSAL, real `fakeentra browse` as
BROWSER, a real server bound per case."""
from harness import B2C_USER, AdapterRun, azure_identity_command, reference_command, token_requests


def test_sign_in_silent_reuse_graph_and_sign_out(server):
    with AdapterRun(server, reference_command()) as run:
        signed_in = run.step("signIn", scopes=["User.Read"])
        assert signed_in["ok"], run.stderr()
        assert "User.Read" in signed_in["scopes"]
        before = len(token_requests(run.journal()))
        assert run.step("getToken", scopes=["User.Read"])["ok"]
        assert len(token_requests(run.journal())) == before, "a cached token is used without a request"
        graph = run.step("callGraph", path="/v1.0/me", scopes=["User.Read"])
        assert graph == {"id": 3, "ok": True, "scopes": graph["scopes"], "status": 200, "account": "adele.vance@contoso.onmicrosoft.com"}, graph
        assert run.step("signOut")["ok"]
        again = run.step("getToken", scopes=["User.Read"])
        assert again["ok"], run.stderr()
        authorizations = [e for e in run.journal() if e["path"].endswith("/authorize")]
        assert len(authorizations) == 2, "signed out: the second token needs a new interactive sign-in"
        # PKCE S256, the cp1 capability, and MSAL's loopback redirect.
        assert authorizations[0]["query"]["code_challenge_method"] == "S256"
        assert authorizations[0]["query"]["redirect_uri"].startswith("http://localhost:")


def test_claims_challenge_is_answered_and_graph_retried_once(server):
    with AdapterRun(server, reference_command(), scenario="graph-cae-claims-challenge") as run:
        assert run.step("signIn", scopes=["User.Read"])["ok"], run.stderr()
        reply = run.step("callGraph", path="/v1.0/me", scopes=["User.Read"])
        assert reply["ok"] and reply["status"] == 200, (reply, run.stderr())
        journal = run.journal()
        graph = [e["status"] for e in journal if "/v1.0/" in e["path"]]
        assert graph == [401, 200], graph
        with_claims = [e for e in token_requests(journal) if "claims" in str(e["request"]["body"])]
        assert with_claims, "the token request after the challenge carries the claims"


def test_mfa_required_on_refresh_goes_interactive(server):
    with AdapterRun(server, reference_command(), scenario="mfa-required") as run:
        # Every sign-in of the scenario shows the verification-code page: browse types a code.
        assert run.step("signIn", scopes=["User.Read"])["ok"], run.stderr()
        # A scope not in the cache makes MSAL refresh; the refresh is refused with basic_action (50076).
        reply = run.step("getToken", scopes=["Calendars.Read"])
        assert reply["ok"], (reply, run.stderr())
        journal = run.journal()
        refused = [e for e in token_requests(journal) if e["status"] == 400]
        assert refused, "the silent refresh was refused"
        later_sign_ins = [e for e in journal if e["path"].endswith("/authorize") and e["id"] > refused[0]["id"]]
        assert later_sign_ins, "the app went interactive after interaction_required"


def test_device_flow_user_code_entered_through_browse_and_polled_to_a_token(server):
    """signInDevice (protocol 1.1): MSAL's device flow, the user code typed on /devicelogin by `fakeentra browse`."""
    with AdapterRun(server, reference_command()) as run:
        reply = run.step("signInDevice", scopes=["User.Read"], deadline=20)
        assert reply["ok"], (reply, run.stderr())
        assert "User.Read" in reply["scopes"]
        journal = run.journal()
        assert [e for e in journal if e["path"].endswith("/devicecode")], "the device authorization"
        polls = [e for e in token_requests(journal) if "device_code" in str(e["request"]["body"])]
        assert polls and polls[-1]["status"] == 200, [e["status"] for e in polls]
        assert run.step("getToken", scopes=["User.Read"])["ok"], "the device flow's token is in the cache"


def test_b2c_sign_in_through_the_susi_pages(server):
    with AdapterRun(server, reference_command(), user=B2C_USER) as run:
        reply = run.step("signIn", scopes=[], policy="B2C_1_susi")
        assert reply["ok"], (reply, run.stderr())


def test_b2c_forgot_password_starts_the_reset_flow(server):
    with AdapterRun(server, reference_command(), scenario="b2c-forgot-password", user=B2C_USER) as run:
        reply = run.step("signIn", scopes=[], policy="B2C_1_susi")
        assert reply["ok"], (reply, run.stderr())
        policies = [e["path"] for e in run.journal() if e["path"].endswith("/authorize")]
        assert any("b2c_1_reset" in p.lower() for p in policies), policies


def test_b2c_cancel_is_user_canceled(server):
    with AdapterRun(server, reference_command(), scenario="b2c-cancel", user=B2C_USER) as run:
        assert run.step("signIn", scopes=[], policy="B2C_1_susi")["ok"], run.stderr()
        # The scenario cancels the profile-editing flow (AADB2C90091).
        reply = run.step("signIn", scopes=[], policy="B2C_1_edit_profile")
        assert reply["ok"] is False and reply["error"] == "user_canceled", (reply, run.stderr())


def test_unknown_steps_and_bad_lines_get_an_answer_not_a_crash(server):
    with AdapterRun(server, reference_command()) as run:
        assert run.step("dance")["error"] == "unsupported"
        assert run.step("wait", seconds=0)["ok"]


def test_azure_identity_adapter_signs_in_and_reads_me_and_says_what_it_cannot_do(server):
    with AdapterRun(server, azure_identity_command()) as run:
        assert run.step("signIn", scopes=["User.Read"])["ok"], run.stderr()
        assert run.step("getToken", scopes=["User.Read"])["ok"], run.stderr()
        graph = run.step("callGraph", path="/v1.0/me", scopes=["User.Read"])
        assert graph["ok"] and graph["status"] == 200, (graph, run.stderr())
        assert run.step("signOut")["error"] == "unsupported"
        assert run.step("signIn", scopes=[], policy="B2C_1_susi")["error"] == "unsupported"
        assert run.step("signInDevice", scopes=["User.Read"])["error"] == "unsupported"


def test_azure_identity_adapter_answers_a_claims_challenge_through_the_sdk(server):
    with AdapterRun(server, azure_identity_command(), scenario="graph-cae-claims-challenge") as run:
        assert run.step("signIn", scopes=["User.Read"])["ok"], run.stderr()
        graph = run.step("callGraph", path="/v1.0/me", scopes=["User.Read"])
        assert graph["ok"] and graph["status"] == 200, (graph, run.stderr())
        assert [e["status"] for e in run.journal() if e["kind"] == "graph"] == [401, 200]
