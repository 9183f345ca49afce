"""Tokens FakeEntra issues, validated by third-party JOSE libraries (Authlib's joserfc and authlib.jose)
against nothing but the published OIDC metadata and JWKS, as a web API would."""
import time
import uuid

import requests
from joserfc import jwt
from joserfc.jwk import KeySet

from test_msal_public_client import ADELE, public_app, sign_in_with_auth_code


def metadata(server, tenant, version="v2.0"):
    path = f"{tenant}/v2.0/.well-known/openid-configuration" if version == "v2.0" else f"{tenant}/.well-known/openid-configuration"
    response = requests.get(f"{server.url}/{path}", verify=server.ca, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def validate(token, meta, audience, server):
    keys = KeySet.import_key_set(requests.get(meta["jwks_uri"], verify=server.ca, timeout=30).json())
    decoded = jwt.decode(token, keys, algorithms=["RS256"])
    registry = jwt.JWTClaimsRegistry(iss={"essential": True, "value": meta["issuer"]}, aud={"essential": True, "value": audience},
                                     exp={"essential": True}, nbf={"essential": True})
    registry.validate(decoded.claims)
    return decoded


def test_id_token_and_graph_access_token_validate_against_published_keys(server):
    client_id = str(uuid.uuid4())
    app = public_app(server, client_id=client_id)
    result = sign_in_with_auth_code(server, app, ["User.Read"])
    tenant_id = result["id_token_claims"]["tid"]

    v2 = metadata(server, tenant_id)
    decoded_id = validate(result["id_token"], v2, client_id, server)
    assert decoded_id.header["alg"] == "RS256"
    assert decoded_id.header["kid"] == decoded_id.header["x5t"]
    assert decoded_id.claims["preferred_username"] == ADELE

    # Graph access tokens are v1: the v1 metadata's issuer, Graph's app id as audience.
    v1 = metadata(server, tenant_id, version="v1.0")
    decoded_access = validate(result["access_token"], v1, "00000003-0000-0000-c000-000000000000", server)
    assert decoded_access.claims["ver"] == "1.0"
    assert "User.Read" in decoded_access.claims["scp"].split()
    assert decoded_access.claims["appid"] == client_id


def test_metadata_for_every_tenant_form(server):
    for tenant in ("common", "organizations", "consumers", "contoso.onmicrosoft.com", "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"):
        meta = metadata(server, tenant)
        assert meta["token_endpoint"].startswith(server.url)
        assert meta["authorization_endpoint"].startswith(server.url)
        assert meta["jwks_uri"].startswith(server.url)


def test_unknown_tenant_is_aadsts90002(server):
    response = requests.get(f"{server.url}/nosuch.onmicrosoft.com/v2.0/.well-known/openid-configuration", verify=server.ca, timeout=30)
    assert response.status_code == 400
    body = response.json()
    assert body["error_codes"] == [90002]
    assert body["error_description"].startswith("AADSTS90002:")


def test_authlib_jose_accepts_the_id_token_signature(server):
    from authlib.jose import JsonWebKey, jwt as authlib_jwt
    client_id = str(uuid.uuid4())
    app = public_app(server, client_id=client_id)
    result = sign_in_with_auth_code(server, app, ["User.Read"])
    meta = metadata(server, result["id_token_claims"]["tid"])
    keys = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], verify=server.ca, timeout=30).json())
    claims = authlib_jwt.decode(result["id_token"], keys, claims_options={"iss": {"essential": True, "value": meta["issuer"]}, "aud": {"essential": True, "value": client_id}})
    claims.validate(leeway=0)
