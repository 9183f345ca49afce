"""The MCP case through the real `fakeentra conform`, with the official MCP SDK for Python as the client and
its server: the SDK as an app configures it for Entra passes; the same SDK made to leave `resource` out, or
to register itself, fails on the check meant to catch it. Also through a running server's control API,
which is told where the MCP server listens."""
import shlex

import pytest

import harness
from harness import PYTHON, ROOT, conform_report

pytest.importorskip("mcp", reason="the MCP SDK for Python is installed by scripts/setup")

ADAPTER = ROOT / "clients" / "conformance" / "mcp" / "adapter.py"
CASE = "mcp.entra-resource-and-registration"

REGISTERING = ("class Registering(adapter.PreRegistered):\n"
               "    async def get_client_info(self):\n"
               "        return None\n"
               "storage = Registering\n")

# The same app with one thing broken, as a client with that defect would behave.
VARIANTS = {
    # A client older than the 2025-06-18 protocol: no `resource` (the SDK sends it only with the server's metadata or a newer protocol).
    "no-resource": "import mcp.client.auth.oauth2 as sdk\n"
                   "sdk.OAuthContext.should_include_resource_param = lambda self, protocol_version=None: False\n",
    # A client that registers itself before signing in (RFC 7591), which Entra does not offer. The Python
    # SDK posts its registration to the MCP server's own origin (oauth2.py, the "Fallback to Dynamic
    # Client Registration"), where the suite does not see it.
    "registers": REGISTERING,
    # The same, posting to the authorization server's origin as the TypeScript SDK's `registerClient`
    # does when it found no metadata (`new URL("/register", authorizationServerUrl)`): Entra answers 404.
    "registers-at-entra": REGISTERING +
        "import os, urllib.parse\n"
        "import mcp.client.auth.oauth2 as sdk\n"
        "build = sdk.create_client_registration_request\n"
        "issuer = urllib.parse.urlsplit(os.environ['FAKEENTRA_MCP_ISSUER'])\n"
        "sdk.create_client_registration_request = lambda metadata, client, base: build(metadata, client, f'{issuer.scheme}://{issuer.netloc}')\n",
}


def command(tmp_path, variant=None):
    if variant is None:
        return harness.command(ADAPTER)
    script = tmp_path / f"mcp_{variant}.py"
    script.write_text("import sys\n"
                      f"sys.path.insert(0, {str(ADAPTER.parent)!r})\n"
                      "import adapter\n"
                      "storage = adapter.PreRegistered\n"
                      + VARIANTS[variant] +
                      "adapter.main(storage)\n")
    return " ".join([shlex.quote(PYTHON), shlex.quote(str(script))])


def conform(tmp_path, client, *arguments):
    result, report = conform_report(tmp_path, client, "--cases", "mcp.*", *arguments)
    return result, report["cases"][0]


def checks(case):
    return {check["check"]: check for check in case["checks"]}


def test_the_mcp_sdk_configured_for_entra_passes(tmp_path):
    result, case = conform(tmp_path, command(tmp_path))
    assert case["caseID"] == CASE
    assert case["verdict"] == "PASSED", f"{case['reason']}\n{result.stdout}\n{case.get('stderrTail')}"
    assert result.returncode == 0
    # The evidence: the server's URL as resource on the sign-in and the redemption, its scope in full.
    evidence = checks(case)["resource-on-authorize"]["evidence"]
    resource = evidence[0]["parameters"]["resource"]
    assert resource.startswith("http://127.0.0.1:") and resource.endswith("/mcp")
    assert f"{resource}/tools.call" in evidence[0]["parameters"]["scope"].split()
    assert checks(case)["resource-on-token"]["evidence"][0]["parameters"]["resource"] == resource
    reply = case["outcomes"][0]
    assert reply["ok"] and reply["account"], reply


def test_a_client_without_resource_fails_though_its_call_works(tmp_path):
    """Entra issues a token for the scopes alone, so the tool call works: only the check sees the defect."""
    _, case = conform(tmp_path, command(tmp_path, "no-resource"))
    assert case["verdict"] == "FAILED"
    assert checks(case)["resource-on-authorize"]["verdict"] == "FAILED"
    assert "carried no resource" in checks(case)["resource-on-authorize"]["reason"]
    assert checks(case)["resource-on-token"]["verdict"] == "FAILED"
    assert checks(case)["calls-the-tool"]["verdict"] == "PASSED"


def test_a_client_that_registers_itself_fails(tmp_path):
    """It never signs in: the tool call fails, and no request reached Entra with a client id."""
    _, case = conform(tmp_path, command(tmp_path, "registers"))
    assert case["verdict"] == "FAILED"
    assert checks(case)["calls-the-tool"]["verdict"] == "FAILED"
    assert "Registration failed" in case["outcomes"][0]["detail"], case["outcomes"][0]
    assert checks(case)["resource-on-authorize"]["verdict"] == "NOT_TESTABLE"


def test_a_registration_posted_to_entra_is_the_evidence(tmp_path):
    _, case = conform(tmp_path, command(tmp_path, "registers-at-entra"))
    assert case["verdict"] == "FAILED"
    registration = checks(case)["no-dynamic-registration"]
    assert registration["verdict"] == "FAILED", registration
    assert [(e["method"], e["path"], e["status"]) for e in registration["evidence"]] == [("POST", "/register", 404)], "Entra has no registration endpoint"
    assert checks(case)["calls-the-tool"]["verdict"] == "FAILED"


def test_through_a_running_servers_control_api(tmp_path, server):
    result, case = conform(tmp_path, command(tmp_path), "--server", server.url, "--certs", str(server.certs_dir))
    assert case["verdict"] == "PASSED", f"{case['reason']}\n{result.stdout}{result.stderr}"


def test_a_start_without_the_mcp_servers_url_is_refused(server):
    control = server.http_session()
    run = control.post(f"{server.url}/_fakeentra/conformance/runs", json={"cases": "mcp.*"}, timeout=30).json()["run"]
    start = f"{server.url}/_fakeentra/conformance/runs/{run}/cases/{CASE}/start"
    refused = control.post(start, json={}, timeout=30)
    assert refused.status_code == 422 and "needs_mcp_server" in refused.text, refused.text
    bad = control.post(start, json={"mcpServer": "not a url"}, timeout=30)
    assert bad.status_code == 422 and "invalid_body" in bad.text, bad.text
    started = control.post(start, json={"mcpServer": "https://mcp.example.com/mcp"}, timeout=30).json()
    assert started["mcpServer"]["url"] == "https://mcp.example.com/mcp"
    assert started["mcpServer"]["scopes"] == ["https://mcp.example.com/mcp/tools.call"]
    assert started["redirectURI"] == "http://localhost/callback"
    assert [step["step"] for step in started["journey"]] == ["callMCP"]
