"""The MSAL for Python reference adapter through the real `fakeentra conform` on the whole required
catalogue: no FAILED, in well under two minutes with --jobs; and its reports read by real consumers —
the JUnit XML by junitparser, the HTML in headless Chromium (screenshot for docs/screenshots)."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest
from junitparser import Failure, JUnitXml

from harness import ROOT, reference_command

sys.path.insert(0, str(ROOT / "Tests" / "RealClients"))
from chromium import Chromium  # noqa: E402

JOBS = 6


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("conform")
    started = time.monotonic()
    result = subprocess.run([os.environ["FAKEENTRA_BINARY"], "conform", "--client", reference_command(), "--level", "required",
                             "--jobs", str(JOBS), "--json", str(out / "report.json"), "--junit", str(out / "junit.xml"),
                             "--html", str(out / "report.html")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    elapsed = time.monotonic() - started
    return result, elapsed, out


def test_no_required_case_fails_and_the_run_is_quick(run):
    result, elapsed, out = run
    report = json.loads((out / "report.json").read_text())
    failed = {c["caseID"]: c["reason"] for c in report["cases"] if c["verdict"] == "FAILED"}
    assert not failed, f"{failed}\n{result.stdout}"
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(report["cases"]) >= 30
    assert elapsed < 120, f"the required catalogue took {elapsed:.0f} s with --jobs {JOBS}"


def test_junit_xml_is_read_by_junitparser(run):
    _, _, out = run
    report = json.loads((out / "report.json").read_text())
    xml = JUnitXml.fromfile(str(out / "junit.xml"))
    cases = [case for suite in xml for case in suite]
    assert sorted(case.name for case in cases) == sorted(c["caseID"] for c in report["cases"])
    assert all(case.classname.startswith("conformance.") for case in cases)
    assert not [case.name for case in cases if any(isinstance(r, Failure) for r in case.result)], "no <failure> in a conformant run"
    assert sum(suite.tests for suite in xml) == len(report["cases"])


def test_html_report_in_headless_chromium(run, tmp_path):
    _, _, out = run
    report = json.loads((out / "report.json").read_text())
    browser = Chromium(_any_ca(tmp_path))
    try:
        browser.driver.get((out / "report.html").as_uri())
        text = browser.text()
        assert "Conformant" in text, text[:500]
        rows = browser.driver.find_elements("css selector", "table.overview tbody tr")
        assert len(rows) == len(report["cases"])
        first = report["cases"][0]["caseID"]
        assert browser.driver.find_elements("id", first), f"a section per case (#{first})"
        browser.driver.set_window_size(1280, 1400)
        shot = tmp_path / "conformance-report.png"
        browser.driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
        if os.environ.get("FAKEENTRA_SCREENSHOTS"):
            shutil.copy(shot, pathlib.Path(os.environ["FAKEENTRA_SCREENSHOTS"]) / "conformance-report.png")
    finally:
        browser.driver.quit()
        shutil.rmtree(browser.home, ignore_errors=True)


def _any_ca(tmp_path):
    """Chromium's helper imports a CA into its private NSS database; the report is a local file, any CA does."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(tmp_path / "k.pem"),
                    "-out", str(tmp_path / "ca.pem"), "-days", "1", "-subj", "/CN=unused"], check=True, capture_output=True)
    return str(tmp_path / "ca.pem")
