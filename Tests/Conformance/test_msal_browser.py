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
         "graph.throttled-429,graph.cae-claims-challenge")

pytestmark = pytest.mark.skipif(not shutil.which("chromium") or not shutil.which("chromedriver"), reason="needs Debian's chromium and chromium-driver")


def test_msal_browser_in_chromium_passes_the_cases_it_meets_as_the_service_expects(tmp_path):
    report = tmp_path / "report.json"
    result = subprocess.run([os.environ["FAKEENTRA_BINARY"], "conform", "--spa", "--client", command(ADAPTER), "--cases", CASES,
                             "--jobs", "2", "--json", str(report)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    verdicts = {case["caseID"]: case for case in json.loads(report.read_text())["cases"]}
    assert {case: v["verdict"] for case, v in verdicts.items()} == {case: "PASSED" for case in CASES.split(",")}, \
        {case: (v["verdict"], v["reason"], v.get("stderrTail", "")[-500:]) for case, v in verdicts.items() if v["verdict"] != "PASSED"}
    # The redemption came from the page (Origin), on a redirect URI registered as a single-page app's.
    redemption = next(e for e in verdicts["lifecycle.cached-token-reuse"]["exchanges"] if e["parameters"].get("grant_type") == "authorization_code")
    assert redemption["status"] == 200 and redemption["parameters"]["redirect_uri"].startswith("http://localhost:")
    assert result.returncode == 0, result.stdout[-2000:]
