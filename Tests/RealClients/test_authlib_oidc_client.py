"""Authlib's generic OAuth 2.0 / OpenID Connect client (not MSAL): discovery, authorization code with
PKCE and nonce, the id_token validated against the published keys with joserfc (the JOSE library Authlib
points its users to, in place of authlib.jose), then a refresh."""
import urllib.parse
import uuid

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.common.security import generate_token
from joserfc import jwt
from joserfc.jwk import KeySet

from browser_driver import drive
from test_msal_public_client import ADELE, PASSWORD

REDIRECT = "http://localhost:8402/callback"


def test_authlib_code_flow_with_pkce_nonce_and_refresh(server):
    metadata = requests.get(f"{server.url}/organizations/v2.0/.well-known/openid-configuration", verify=server.ca, timeout=30).json()
    client_id = str(uuid.uuid4())
    session = OAuth2Session(client_id, scope="openid profile offline_access User.Read", redirect_uri=REDIRECT,
                            code_challenge_method="S256", token_endpoint_auth_method="none")
    session.verify = server.ca
    verifier, nonce = generate_token(64), generate_token(20)
    url, state = session.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    final, _, _ = drive(url, ADELE, PASSWORD, REDIRECT, verify=server.ca)
    assert dict(urllib.parse.parse_qsl(urllib.parse.urlparse(final).query))["state"] == state

    token = session.fetch_token(metadata["token_endpoint"], authorization_response=final, code_verifier=verifier)
    keys = KeySet.import_key_set(requests.get(metadata["jwks_uri"], verify=server.ca, timeout=30).json())
    claims = jwt.decode(token["id_token"], keys, algorithms=["RS256"]).claims
    jwt.JWTClaimsRegistry(aud={"essential": True, "value": client_id}, nonce={"essential": True, "value": nonce},
                          exp={"essential": True}).validate(claims)
    # The organizations authority's issuer has a {tenantid} placeholder: the token carries the real one.
    assert claims["iss"] == metadata["issuer"].replace("{tenantid}", claims["tid"])
    assert claims["preferred_username"] == ADELE

    refreshed = session.refresh_token(metadata["token_endpoint"], refresh_token=token["refresh_token"])
    assert refreshed["access_token"] != token["access_token"]
    assert refreshed["refresh_token"]
