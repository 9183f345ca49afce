#!/usr/bin/env python3
"""Test fixture only: a small MSAL for Python adapter (protocol v1) for the Swift tests of `fakeentra
conform`. The reference adapters live in clients/conformance/ (branch s3-clients). FIXTURE_BREAK names a
deliberate fault: "no-cache" (never uses the token cache)."""
import base64, json, os, sys, time
os.environ["REQUESTS_CA_BUNDLE"] = os.environ["SSL_CERT_FILE"] = os.environ["FAKEENTRA_CA"]
# Python's webbrowser takes a multi-word BROWSER as one program name unless it holds %s.
os.environ["BROWSER"] = os.environ["FAKEENTRA_BROWSER"] + " %s"
import msal, requests

timeout = float(os.environ.get("FAKEENTRA_STEP_TIMEOUT", "10"))
http = requests.Session(); http.verify = os.environ["FAKEENTRA_CA"]
http.request = (lambda original: lambda *a, **k: original(*a, **{**k, "timeout": k.get("timeout") or timeout}))(http.request)
app = msal.PublicClientApplication(os.environ["FAKEENTRA_CLIENT_ID"], authority=os.environ["FAKEENTRA_AUTHORITY"],
                                   instance_discovery=False, client_capabilities=["cp1"], http_client=http)
brk = os.environ.get("FIXTURE_BREAK", "")

def classify(result):
    error = result.get("error", "other")
    if error in ("invalid_grant", "interaction_required", "invalid_client", "consent_required"): return error
    if error == "temporarily_unavailable": return "throttled"
    return "other"

def interactive(scopes, claims=None):
    return app.acquire_token_interactive(scopes, login_hint=os.environ["FAKEENTRA_USERNAME"], timeout=20, claims_challenge=claims)

def token(scopes, claims=None):
    accounts = app.get_accounts()
    result = None
    if accounts and brk != "no-cache" and not claims:
        result = app.acquire_token_silent_with_error(scopes, accounts[0])
    if result and "access_token" in result: return result
    if result and "error" in result and result.get("error") not in ("invalid_grant", "interaction_required", "consent_required"):
        return result
    return interactive(scopes, claims)

def reply(step, result):
    if "access_token" in result:
        return {"id": step["id"], "ok": True, "scopes": result.get("scope", "").split() or step.get("scopes", [])}
    return {"id": step["id"], "ok": False, "error": classify(result), "suberror": result.get("suberror"), "detail": str(result.get("error_description", ""))[:200]}

for line in sys.stdin:
    step = json.loads(line)
    try:
        kind = step["step"]
        if kind == "wait":
            time.sleep(step["seconds"]); out = {"id": step["id"], "ok": True}
        elif kind == "signOut":
            for account in app.get_accounts(): app.remove_account(account)
            out = {"id": step["id"], "ok": True}
        elif kind == "signIn" and step.get("policy"):
            b2c = msal.PublicClientApplication(os.environ["FAKEENTRA_CLIENT_ID"], authority=os.environ["FAKEENTRA_B2C_AUTHORITY"], instance_discovery=False, http_client=http)
            result = b2c.acquire_token_interactive(step["scopes"], timeout=20)
            description = str(result.get("error_description", ""))
            if "AADB2C90118" in description:
                reset = msal.PublicClientApplication(os.environ["FAKEENTRA_CLIENT_ID"], authority=os.environ["FAKEENTRA_B2C_RESET_AUTHORITY"], instance_discovery=False, http_client=http)
                result = reset.acquire_token_interactive(step["scopes"], timeout=20)
                out = reply(step, result) if "access_token" in result else {"id": step["id"], "ok": False, "error": "password_reset_requested", "detail": str(result)[:200]}
            elif "AADB2C90091" in description:
                out = {"id": step["id"], "ok": False, "error": "user_canceled", "detail": description[:200]}
            else:
                out = reply(step, result)
        elif kind == "signIn":
            out = reply(step, interactive(step["scopes"]))
        elif kind == "getToken":
            out = reply(step, token(step["scopes"]))
        elif kind == "callGraph":
            result = token(step["scopes"])
            if "access_token" not in result:
                out = reply(step, result)
            else:
                response = http.get(os.environ["FAKEENTRA_GRAPH"] + step["path"], headers={"Authorization": "Bearer " + result["access_token"]})
                if response.status_code == 401 and "insufficient_claims" in response.headers.get("WWW-Authenticate", ""):
                    encoded = response.headers["WWW-Authenticate"].split('claims="')[1].split('"')[0]
                    result = token(step["scopes"], claims=base64.b64decode(encoded + "==").decode())
                    response = http.get(os.environ["FAKEENTRA_GRAPH"] + step["path"], headers={"Authorization": "Bearer " + result["access_token"]})
                elif response.status_code in (429, 503) and response.headers.get("Retry-After", "").isdigit():
                    time.sleep(int(response.headers["Retry-After"]))
                    response = http.get(os.environ["FAKEENTRA_GRAPH"] + step["path"], headers={"Authorization": "Bearer " + result["access_token"]})
                ok = response.status_code == 200
                out = {"id": step["id"], "ok": ok, "status": response.status_code}
                if not ok: out["error"] = "graph_error"
        else:
            out = {"id": step["id"], "ok": False, "error": "unsupported"}
    except requests.exceptions.Timeout as e:
        out = {"id": step["id"], "ok": False, "error": "timeout", "detail": str(e)[:200]}
    except requests.exceptions.ConnectionError as e:
        out = {"id": step["id"], "ok": False, "error": "network", "detail": str(e)[:200]}
    except Exception as e:
        out = {"id": step["id"], "ok": False, "error": "rejected_token" if "nonce" in str(e).lower() else "other", "detail": repr(e)[:300]}
    print(json.dumps(out), flush=True)
