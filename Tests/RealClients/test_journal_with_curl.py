"""The request journal, read with curl (a client nobody here wrote) after MSAL talked to FakeEntra:
every identity request is there, and no secret or token is."""
import json
import subprocess
import uuid

from test_msal_public_client import public_app, sign_in_with_auth_code


def curl_json(server, path, *extra):
    out = subprocess.run(["curl", "-sS", "--fail-with-body", "--cacert", server.ca, *extra, server.url + path],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr + out.stdout
    return json.loads(out.stdout) if out.stdout.strip() else None


def test_journal_records_and_redacts(make_server):
    server = make_server()
    client_id = str(uuid.uuid4())
    result = sign_in_with_auth_code(server, public_app(server, client_id=client_id), ["User.Read"])
    journal = curl_json(server, "/_fakeentra/journal")
    entries = journal["entries"] if isinstance(journal, dict) else journal
    kinds = [e["kind"] for e in entries]
    assert "openid_configuration" in kinds and "authorize" in kinds and "token" in kinds
    text = json.dumps(journal)
    for secret in (result["access_token"], result["refresh_token"], result["id_token"], "Passw0rd!"):
        assert secret not in text
    token_entry = next(e for e in entries if e["kind"] == "token")
    assert token_entry["status"] == 200
    # Clearing empties it.
    subprocess.run(["curl", "-sS", "--cacert", server.ca, "-X", "DELETE", server.url + "/_fakeentra/journal"], check=True, capture_output=True, timeout=60)
    after = curl_json(server, "/_fakeentra/journal")
    assert (after["entries"] if isinstance(after, dict) else after) == []
