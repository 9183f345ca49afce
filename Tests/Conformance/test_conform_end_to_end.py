"""`fakeentra conform` end to end with real MSAL for Python: the reference adapter, signing in through
`fakeentra browse`, passes five cases, and the same adapter with one deliberate fault (no token cache)
fails exactly the case made for it while the cases it never reaches are not testable."""
import json, os, subprocess

from harness import ROOT, azure_identity_command, broken_command, command, conform_report, reference_command

CASES = "protocol.pkce-s256,lifecycle.cached-token-reuse,resilience.retry-after-seconds,graph.cae-claims-challenge,errors.bad-token"


def conform(tmp_path, client, cases=CASES, *arguments):
    result, report = conform_report(tmp_path, client, "--cases", cases, "--jobs", "4", "--junit", str(tmp_path / "report.xml"), *arguments,
                                    timeout=120)
    return result, {case["caseID"]: case for case in report["cases"]}


def test_msal_python_passes(tmp_path):
    result, verdicts = conform(tmp_path, reference_command())
    assert result.returncode == 0, result.stdout + result.stderr
    assert {case: v["verdict"] for case, v in verdicts.items()} == {case: "PASSED" for case in CASES.split(",")}
    throttled = verdicts["resilience.retry-after-seconds"]["checks"][0]
    assert throttled["evidence"][0]["status"] == 429 and throttled["citation"]["url"].startswith("https://")


def test_an_adapter_that_ignores_its_cache_fails_only_the_reuse_case(tmp_path):
    result, verdicts = conform(tmp_path, broken_command("no-cache"))
    assert result.returncode == 1, result.stdout
    failed = sorted(case for case, v in verdicts.items() if v["verdict"] == "FAILED")
    assert failed == ["lifecycle.cached-token-reuse"], result.stdout
    # Never refreshing, it never reaches the refresh-path faults: not testable, never a silent pass.
    assert verdicts["errors.bad-token"]["verdict"] == "NOT_TESTABLE"
    assert verdicts["resilience.retry-after-seconds"]["verdict"] == "NOT_TESTABLE"


NEW_CASES = "resilience.device-slow-down,protocol.discovery-issuer"


def test_device_slow_down_passes_and_a_foreign_issuer_warns_for_msal_python(tmp_path):
    """MSAL adds 5 s after slow_down (required: PASSED); with `authority=` it accepts discovery's foreign
    issuer (recommended: WARNING, the run still conformant)."""
    report = tmp_path / "report.json"
    result = subprocess.run([os.environ["FAKEENTRA_BINARY"], "conform", "--client", reference_command(), "--cases", NEW_CASES,
                             "--jobs", "2", "--json", str(report)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    verdicts = {case["caseID"]: case for case in json.loads(report.read_text())["cases"]}
    assert result.returncode == 0, result.stdout + result.stderr
    device = verdicts["resilience.device-slow-down"]
    assert device["verdict"] == "PASSED", (device["reason"], device.get("stderrTail"))
    backs_off = next(c for c in device["checks"] if c["check"] == "backs-off")
    polls = [e for e in backs_off["evidence"] if e["parameters"].get("grant_type", "").endswith("device_code")]
    assert len(polls) >= 2 and polls[0]["answer"].get("error") == "slow_down", backs_off["evidence"]
    issuer = verdicts["protocol.discovery-issuer"]
    assert issuer["verdict"] == "WARNING", (issuer["reason"], issuer.get("stderrTail"))


def test_a_client_that_checks_the_issuer_passes_the_issuer_case(tmp_path):
    report = tmp_path / "report.json"
    result = subprocess.run([os.environ["FAKEENTRA_BINARY"], "conform", "--client", broken_command("checks-issuer"),
                             "--cases", "protocol.discovery-issuer", "--json", str(report)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    case = json.loads(report.read_text())["cases"][0]
    assert case["verdict"] == "PASSED", (case["reason"], case.get("stderrTail"), result.stdout)



def test_external_id_cases_are_served_at_the_tenants_ciamlogin_name(tmp_path):
    """The authority is https://woodgrove.ciamlogin.com/, reached through the run's CONNECT relay, and the
    tokens carry External ID's issuer (https://{tenantid}.ciamlogin.com/{tenantid}/v2.0): MSAL for Python
    passes, while a client that expects the issuer to be its authority plus /v2.0 is refused at sign-in."""
    result, verdicts = conform(tmp_path, reference_command(), "externalid.*")
    assert {case: v["verdict"] for case, v in verdicts.items()} == {"externalid.sign-in-refresh": "PASSED", "externalid.password-reset-revokes": "PASSED"}, result.stdout
    result, verdicts = conform(tmp_path, broken_command("issuer-from-authority"), "externalid.sign-in-refresh")
    case = verdicts["externalid.sign-in-refresh"]
    assert case["verdict"] == "FAILED" and "rejected_token" in case["reason"], case["reason"]
    assert "ciamlogin.com" in case["stderrTail"] or "ciamlogin.com" in json.dumps(case["outcomes"]), case["outcomes"]


def test_a_server_that_does_not_serve_ciamlogin_names_leaves_external_id_cases_not_testable(tmp_path, server):
    """A server started by hand without `--hostname '*.ciamlogin.com'`: the case says why, never a FAILED."""
    result, verdicts = conform(tmp_path, reference_command(), "externalid.sign-in-refresh",
                               "--server", server.url, "--certs", str(server.certs_dir))
    case = verdicts["externalid.sign-in-refresh"]
    assert case["verdict"] == "NOT_TESTABLE" and "--hostname '*.ciamlogin.com'" in case["reason"], (case["reason"], result.stdout)


NATIVE = ROOT / "clients" / "conformance" / "native-auth" / "adapter.py"


def test_the_native_authentication_app_passes_every_native_case_with_msal_ios_request_sequences(tmp_path):
    """MSAL for iOS's native-auth requests replayed: each case's evidence is the sequence MSAL sends, and
    the customer's codes came from the outbox."""
    result, verdicts = conform(tmp_path, command(NATIVE), "nativeauth.*")
    assert result.returncode == 0 and verdicts and all(v["verdict"] == "PASSED" for v in verdicts.values()), \
        {case: (v["verdict"], v["reason"]) for case, v in verdicts.items()}
    def sequence(case):
        return [(e["path"].split("/", 2)[-1], e["status"], e["parameters"].get("grant_type")) for e in verdicts[case]["exchanges"]]
    assert sequence("nativeauth.code-expired") == [
        ("oauth2/v2.0/initiate", 200, None), ("oauth2/v2.0/challenge", 200, None), ("oauth2/v2.0/token", 400, "oob"),
        ("oauth2/v2.0/challenge", 200, None), ("oauth2/v2.0/token", 200, "oob")]
    assert [step for step, _, _ in sequence("nativeauth.mfa")][3:] == ["oauth2/v2.0/introspect", "oauth2/v2.0/challenge", "oauth2/v2.0/token"]
    assert ("register/v1.0/continue", 200, "continuation_token") in sequence("nativeauth.jit-registration")
    assert ("resetpassword/v1.0/poll_completion", 200, None) in sequence("nativeauth.password-reset-required")
    assert [status for step, status, _ in sequence("nativeauth.resend-throttled") if step.endswith("challenge")] == [200, 429]
    initiate = verdicts["nativeauth.sign-in-refresh"]["exchanges"][0]["parameters"]
    assert initiate["challenge_type"] == "oob password redirect" and initiate["capabilities"] == "mfa_required registration_required", initiate


AZURE_IDENTITY_CASES = ("protocol.signing-key-rollover,errors.claims-on-code-redemption,lifecycle.cached-token-reuse,lifecycle.short-expires-in,"
                        "externalid.sign-in-refresh,resilience.hung-token-endpoint,errors.invalid-client,resilience.503-no-retry-after")


def test_azure_identity_is_judged_right_and_its_own_departures_are_traced_to_its_code(tmp_path):
    """The adapter as an app writes azure-identity (one credential, CAE on every call, the token endpoint's
    claims challenge answered): the cases it used to fail on the adapter's account pass; the two where
    azure-identity itself departs stay FAILED, and its baseline says where in azure-identity's code."""
    baseline = ROOT / "clients" / "conformance" / "azure-identity" / "baseline.json"
    result, verdicts = conform(tmp_path, azure_identity_command(), AZURE_IDENTITY_CASES, "--baseline", str(baseline))
    failed = sorted(case for case, v in verdicts.items() if v["verdict"] == "FAILED")
    assert failed == ["errors.invalid-client", "resilience.503-no-retry-after"], {c: (v["verdict"], v["reason"]) for c, v in verdicts.items()}
    assert all(v["verdict"] == "PASSED" for case, v in verdicts.items() if case not in failed)
    for case in failed:
        note = verdicts[case]["baseline"]
        assert note["status"] == "expected_failure" and "github.com/Azure/azure-sdk-for-python" in note["reason"], note
    assert result.returncode == 0, "expected failures alone: the run passes"
