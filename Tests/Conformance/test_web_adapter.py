"""The confidential web app and daemon adapter (MSAL for Python's ConfidentialClientApplication) through the
real `fakeentra conform`: with a client secret and with a certificate it fails no case of the catalogue
that judges its kind, and the certificate rollover also works through a running server's control API."""

import pytest

from harness import ROOT, command, conform_report

WEB = ROOT / "clients" / "conformance" / "msal-python" / "web_adapter.py"
WEB_COMMAND = command(WEB)


def conform(tmp_path, *arguments):
    return conform_report(tmp_path, WEB_COMMAND, "--junit", str(tmp_path / "report.xml"), *arguments)


@pytest.mark.parametrize("credential", ["secret", "certificate"])
def test_the_web_app_fails_no_case_of_its_kind(tmp_path, credential):
    result, report = conform(tmp_path, "--credential", credential, "--jobs", "6")
    verdicts = {case["caseID"]: case for case in report["cases"]}
    failed = {case: v["reason"] for case, v in verdicts.items() if v["verdict"] in ("FAILED", "NOT_TESTABLE", "SKIPPED")}
    assert not failed, f"{failed}\n{result.stdout}"
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["clientKind"] == credential
    assert f"cases for a confidential client ({'client secret' if credential == 'secret' else 'certificate'})" in result.stdout
    own = {"secret": {"confidential.secret-invalid", "confidential.secret-expired", "confidential.app-token-secret-refused"},
           "certificate": {"confidential.certificate-rollover"}}[credential] | {"confidential.app-token-reuse", "confidential.pkce-s256"}
    assert {case for case in verdicts if case.startswith("confidential.")} == own
    assert all(verdicts[case]["verdict"] == "PASSED" for case in own)
    assert not any(case.startswith(("b2c.", "externalid.", "resilience.device-")) for case in verdicts), "public-client cases left out"
    # The same protocol cases as a public client: the code flow with PKCE, the claims challenge.
    assert "protocol.pkce-s256" not in verdicts and verdicts["graph.cae-claims-challenge"]["verdict"] == "PASSED"
    redemption = next(e for c in report["cases"] if c["caseID"] == "confidential.pkce-s256" for e in c["exchanges"]
                      if e["parameters"].get("grant_type") == "authorization_code")
    sent = "client_secret" if credential == "secret" else "client_assertion"
    assert redemption["parameters"][sent].startswith("[redacted"), "the credential is in the journal only redacted"
    assert '<property name="client_kind" value="%s"/>' % credential in (tmp_path / "report.xml").read_text()


def test_the_certificate_rollover_through_a_running_server(tmp_path, server):
    """`conform --server`: the suite writes the new certificate and asks the server's control API to register it."""
    result, report = conform(tmp_path, "--server", server.url, "--certs", str(server.certs_dir), "--credential", "certificate",
                             "--cases", "confidential.certificate-rollover")
    case = report["cases"][0]
    assert case["verdict"] == "PASSED", f"{case['reason']}\n{result.stdout}{result.stderr}"
    refused = [e for e in case["exchanges"] if e["status"] == 401]
    assert [e["answer"].get("error_code") for e in refused] == ["AADSTS700027"], "the old certificate was refused once, then the reloaded one served"
