"""`fakeentra token` and POST /_fakeentra/tokens: minted tokens validate with joserfc against nothing but
the published metadata and JWKS, as a web API would, and carry the claims asked for."""
import json
import subprocess

import requests
from joserfc import jwt
from joserfc.jwk import KeySet

from fakeentra.server import find_binary as binary_path
from test_token_validation import metadata

CONTOSO = "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"
ADELE = "adele.vance@contoso.onmicrosoft.com"


def validate(server, token, audience, version="v2.0"):
    meta = metadata(server, CONTOSO, version=version)
    keys = KeySet.import_key_set(requests.get(meta["jwks_uri"], verify=server.ca, timeout=30).json())
    decoded = jwt.decode(token, keys, algorithms=["RS256"])
    jwt.JWTClaimsRegistry(iss={"essential": True, "value": meta["issuer"]}, aud={"essential": True, "value": audience},
                          exp={"essential": True}, nbf={"essential": True}).validate(decoded.claims)
    return decoded.claims


def run_cli(server, *args):
    out = subprocess.run([binary_path(), "token", "--url", server.url, "--certs", str(server.certs_dir), *args],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_cli_mints_a_user_token_for_a_web_api(server):
    token = run_cli(server, "--user", ADELE, "--scope", "api://orders-api/Orders.Read", "--scope", "api://orders-api/Orders.Write",
                    "--role", "Orders.Admin", "--lifetime", "900", "--claim", 'groups=["g1"]', "--claim", "ctry=NZ").strip()
    claims = validate(server, token, "api://orders-api")
    assert claims["scp"] == "Orders.Read Orders.Write"
    assert claims["roles"] == ["Orders.Admin"]
    assert claims["preferred_username"] == ADELE
    assert claims["groups"] == ["g1"] and claims["ctry"] == "NZ"
    assert claims["exp"] - claims["iat"] == 900
    assert claims["tid"] == CONTOSO


def test_cli_decode_prints_header_and_claims(server):
    out = run_cli(server, "--scope", "https://graph.microsoft.com/.default", "--role", "User.Read.All", "--decode")
    header_text, _, claims_text = out.partition("}\n{")
    header, claims = json.loads(header_text + "}"), json.loads("{" + claims_text)
    assert header["alg"] == "RS256" and header["kid"]
    assert claims["idtyp"] == "app" and claims["roles"] == ["User.Read.All"]


def test_endpoint_mints_an_app_only_graph_token_graph_accepts(server):
    response = server.control("POST", "/_fakeentra/tokens", json={"scopes": ["https://graph.microsoft.com/.default"],
                                                                  "roles": ["User.Read.All"], "tenant": "contoso.onmicrosoft.com"})
    assert response.status_code == 201, response.text
    token = response.json()["token"]
    claims = validate(server, token, "00000003-0000-0000-c000-000000000000", version="v1.0")
    assert claims["roles"] == ["User.Read.All"]
    # Graph validates it like a client-credentials token.
    users = requests.get(server.url + "/v1.0/users", headers={"Authorization": f"Bearer {token}"}, verify=server.ca, timeout=30)
    assert users.status_code == 200, users.text


def test_endpoint_mints_an_id_token(server):
    response = server.control("POST", "/_fakeentra/tokens", json={"type": "id", "user": ADELE, "clientId": "my-spa-client"})
    assert response.status_code == 201, response.text
    claims = validate(server, response.json()["token"], "my-spa-client")
    assert claims["preferred_username"] == ADELE and claims["ver"] == "2.0"


def test_bad_mint_requests_are_control_api_errors(server):
    response = server.control("POST", "/_fakeentra/tokens", json={"user": "nobody@contoso.onmicrosoft.com"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_user"
    out = subprocess.run([binary_path(), "token", "--url", server.url, "--certs", str(server.certs_dir), "--user", "nobody@x"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "nobody@x" in out.stderr


# Each forgery and the joserfc error that names its fault.
FORGERIES = {"badSignature": "BadSignatureError", "algNone": "UnsupportedAlgorithmError", "unknownKeyId": "InvalidKeyIdError",
             "futureNotBefore": "InvalidClaimError", "expired": "ExpiredTokenError", "wrongAudience": "InvalidClaimError",
             "wrongIssuer": "InvalidClaimError", "wrongTenant": "InvalidClaimError"}


def test_every_forged_token_is_refused_by_a_validating_library(server):
    """`--forge`: joserfc, given only the published metadata and JWKS, takes the honest token and refuses
    each forged one, each for its own fault."""
    args = ("--user", ADELE, "--scope", "api://orders-api/Orders.Read")
    validate(server, run_cli(server, *args).strip(), "api://orders-api")
    for forgery, refusal in FORGERIES.items():
        token = run_cli(server, *args, "--forge", forgery).strip()
        try:
            validate(server, token, "api://orders-api")
        except Exception as error:
            assert type(error).__name__ == refusal, (forgery, repr(error))
            continue
        raise AssertionError(f"a token forged with {forgery} validated")
    out = subprocess.run([binary_path(), "token", "--url", server.url, "--certs", str(server.certs_dir), "--forge", "slightlyOff"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "badSignature" in out.stderr, out.stderr
