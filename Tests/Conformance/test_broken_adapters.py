"""Every deliberately broken adapter gets FAILED on the case made for it through the real
`fakeentra conform`, and not on a control case its flaw does not touch: proof that each check can fail."""
import concurrent.futures
import json
import os
import subprocess
import tempfile

import pytest

from harness import ROOT, broken_command

CONTROL = "lifecycle.cached-token-reuse"

# variant → the case that must catch it, and the check that must decide it (None: any of its checks);
# a confidential web app's variants also name their credential.
TARGETS = {
    "no-pkce": ("protocol.pkce-s256", "s256-challenge-and-verifier"),
    "accepts-bad-nonce": ("protocol.nonce-mismatch", "reports-error"),
    "ignores-state": ("protocol.state-mismatch", None),
    "ignores-retry-after": ("resilience.retry-after-seconds", "no-early-retry"),
    "dead-token-loop": ("errors.dead-grant-loop", "dead-token-not-reused"),
    "ignores-declined-scopes": ("errors.declined-scopes", "narrow-scopes-reported"),
    "never-interactive": ("errors.mfa-basic-action", "goes-interactive"),
    "drops-claims-challenge": ("graph.cae-claims-challenge", "passes-claims"),
    "ignores-graph-retry-after": ("graph.throttled-429", "waits-retry-after"),
    "graph-401-loop": ("graph.invalid-token-401", "no-retry-loop"),
    "no-password-reset": ("b2c.password-reset", "starts-reset-flow"),
    "cancel-as-error": ("b2c.cancel", "reports-cancel"),
    "ignores-slow-down": ("resilience.device-slow-down", "backs-off"),
    "graph-503-no-backoff": ("graph.503-no-retry-after", "backs-off"),
    "device-decline-as-error": ("resilience.device-code-declined", "reports-end"),
    "stops-after-first-page": ("graph.paging", "follows-every-page"),
    "login-required-as-error": ("protocol.prompt-none-login-required", "goes-interactive"),
    "polls-without-waiting": ("resilience.device-pending-interval", "waits-interval"),
    "keeps-first-account": ("lifecycle.account-isolation", "token-for-second-user"),
    "reset-cancel-as-error": ("b2c.cancel-in-reset", "reports-cancel"),
    "edit-profile-at-sign-in-authority": ("b2c.edit-profile", "runs-edit-policy"),
    "polls-after-the-end": ("resilience.device-code-expired", "stops-polling"),
    "graph-down-after-drop": ("graph.dropped-connection", "recovers"),
    "caches-signing-keys-forever": ("protocol.signing-key-rollover", "keeps-working"),
    "issuer-from-authority": ("externalid.sign-in-refresh", "signs-in"),
    "restarts-after-wrong-code": ("nativeauth.wrong-code", "keeps-its-flow"),
    "resubmits-refused-code": ("nativeauth.code-expired", "asks-new-code"),
    "resend-loop": ("nativeauth.resend-throttled", "waits-retry-after"),
    "no-native-password-reset": ("nativeauth.password-reset-required", "starts-reset"),
    "gives-up-on-mfa": ("nativeauth.mfa", "submits-second-factor"),
    "gives-up-on-registration": ("nativeauth.jit-registration", "registers"),
    "no-browser-fallback": ("nativeauth.browser-fallback", "signs-in"),
    "native-sign-in-per-token": ("nativeauth.sign-in-refresh", "refreshes-silently"),
    "no-certificate-reload": ("confidential.certificate-rollover", "reloads-certificate", "certificate"),
    "new-app-per-call": ("confidential.app-token-reuse", "reuses-app-token", "secret"),
    "signs-in-again-on-invalid-client": ("confidential.secret-invalid", "no-new-sign-in", "secret"),
}


def conform(client, cases, jobs=2, credential=None):
    """Runs `fakeentra conform` with its own server; the JSON report and the process result."""
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    kind = ["--credential", credential] if credential else []
    result = subprocess.run([os.environ["FAKEENTRA_BINARY"], "conform", "--client", client, "--cases", cases, *kind,
                             "--jobs", str(jobs), "--json", out], cwd=ROOT, capture_output=True, text=True, timeout=300)
    with open(out) as f:
        return json.load(f), result


def catalogue():
    listing = subprocess.run([os.environ["FAKEENTRA_BINARY"], "conform", "--list"], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in listing.splitlines() if line.strip()}


@pytest.fixture(scope="module")
def reports():
    """All variants at once (each its own `conform` and server): the adapters mostly wait on sign-in pages.
    A variant whose case is not in this build's catalogue has no report (its test is skipped, visibly)."""
    cases = catalogue()
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = {name: pool.submit(conform, broken_command(name), f"{target[0]},{CONTROL}", credential=(target[2:] or [None])[0])
                   for name, target in TARGETS.items() if target[0] in cases}
        return {name: future.result() for name, future in futures.items()}


@pytest.mark.parametrize("variant", sorted(TARGETS))
def test_broken_adapter_fails_its_case_and_only_it(reports, variant):
    case_id, check = TARGETS[variant][:2]
    if variant not in reports:
        pytest.skip(f"{case_id} is not in this build's catalogue")
    report, result = reports[variant]
    verdicts = {c["caseID"]: c for c in report["cases"]}
    target = verdicts[case_id]
    failed_checks = [c["check"] for c in target["checks"] if c["verdict"] == "FAILED"]
    assert target["verdict"] == "FAILED", f"{variant}: {case_id} was {target['verdict']}: {target['reason']}\n{result.stdout}"
    assert check is None or check in failed_checks, f"{variant}: {case_id} failed on {failed_checks}, expected {check}"
    assert verdicts[CONTROL]["verdict"] == "PASSED", f"{variant}: the control case {CONTROL} was {verdicts[CONTROL]['verdict']}: {verdicts[CONTROL]['reason']}"
    assert result.returncode != 0, "a required case failed: conform must exit non-zero"
