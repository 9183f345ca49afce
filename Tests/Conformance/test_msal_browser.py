"""MSAL.js (@azure/msal-browser 3.26.1, a released build) as a single-page app in headless Chromium, judged by
`fakeentra conform --spa`: it signs in through FakeEntra's pages with loginRedirect, redeems its code
cross-origin on a redirect URI registered as a single-page app's, reuses and refreshes its tokens, and
calls Graph from the page (CORS), scripted faults included."""
import json
import os
import shutil
import subprocess

import pytest

from harness import ROOT, command

ADAPTER = ROOT / "clients" / "conformance" / "msal-browser" / "adapter.py"
CASES = ("lifecycle.cached-token-reuse,lifecycle.rotation,protocol.pkce-s256,protocol.state-mismatch,graph.paging,"
         "graph.throttled-429,graph.cae-claims-challenge,lifecycle.revoked-grant,errors.claims-on-code-redemption,lifecycle.sign-out")
# msal-browser's own behaviour, traced to its source in the baseline: the run stays conformant with it.
TRACED = "resilience.hung-token-endpoint"
BASELINE = ADAPTER.parent / "baseline.json"

pytestmark = pytest.mark.skipif(not shutil.which("chromium") or not shutil.which("chromedriver"), reason="needs Debian's chromium and chromium-driver")


def test_msal_browser_in_chromium_passes_the_cases_it_meets_as_the_service_expects(tmp_path):
    report = tmp_path / "report.json"
    result = subprocess.run([os.environ["FAKEENTRA_BINARY"], "conform", "--spa", "--client", command(ADAPTER), "--cases", CASES + "," + TRACED,
                             "--jobs", "2", "--baseline", str(BASELINE), "--json", str(report)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    verdicts = {case["caseID"]: case for case in json.loads(report.read_text())["cases"]}
    assert {case: v["verdict"] for case, v in verdicts.items() if case != TRACED} == {case: "PASSED" for case in CASES.split(",")}, \
        {case: (v["verdict"], v["reason"], v.get("stderrTail", "")[-500:]) for case, v in verdicts.items() if v["verdict"] != "PASSED"}
    # A page's fetch without a timeout outlasts the step: FAILED, and expected, with its source named.
    assert verdicts[TRACED]["verdict"] == "FAILED" and verdicts[TRACED]["baseline"]["status"] == "expected_failure"
    assert "FetchClient.ts" in verdicts[TRACED]["baseline"]["reason"]
    # After the refresh token was revoked, MSAL.js sent the id_token's login_hint claim back, and that
    # claim named the user: the sign-in page showed their name, not the opaque value.
    revoked = verdicts["lifecycle.revoked-grant"]["exchanges"]
    hinted = [e for e in revoked if e["method"] == "GET" and e["parameters"].get("login_hint", "").startswith("O.")]
    assert hinted and any(e["parameters"].get("grant_type") == "authorization_code" and e["status"] == 200 for e in revoked[revoked.index(hinted[-1]):])
    # The redemption came from the page (Origin), on a redirect URI registered as a single-page app's.
    redemption = next(e for e in verdicts["lifecycle.cached-token-reuse"]["exchanges"] if e["parameters"].get("grant_type") == "authorization_code")
    assert redemption["status"] == 200 and redemption["parameters"]["redirect_uri"].startswith("http://localhost:")
    assert result.returncode == 0, result.stdout[-2000:]
