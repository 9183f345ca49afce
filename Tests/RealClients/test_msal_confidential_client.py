"""MSAL for Python (PyPI `msal`) as a confidential client: client credentials with a secret and with a
certificate, on-behalf-of, and the username/password flow (which needs an instance on port 443)."""
import datetime
import uuid

import msal
import pytest
from real_servers import port_443_available
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from test_msal_public_client import ADELE, PASSWORD, public_app, sign_in_with_auth_code

GRAPH_DEFAULT = ["https://graph.microsoft.com/.default"]
CONTOSO = "contoso.onmicrosoft.com"


def confidential_app(server, client_id, credential, tenant=CONTOSO):
    return msal.ConfidentialClientApplication(
        client_id, client_credential=credential, authority=f"{server.url}/{tenant}", instance_discovery=False)


def decode_claims(token):
    import base64
    import json
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_unknown_client_with_a_secret_is_bound_to_it_on_first_use(server):
    client_id = str(uuid.uuid4())
    result = confidential_app(server, client_id, "first-secret").acquire_token_for_client(GRAPH_DEFAULT)
    assert "access_token" in result, result
    assert "id_token" not in result and "refresh_token" not in result
    claims = decode_claims(result["access_token"])
    assert claims["appid"] == client_id and claims["idtyp"] == "app"
    other = confidential_app(server, client_id, "another-secret").acquire_token_for_client(GRAPH_DEFAULT)
    assert other.get("error") == "invalid_client", other
    assert 7000215 in other["error_codes"]


def self_signed_certificate():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fakeentra test client")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    thumbprint = cert.fingerprint(hashes.SHA1()).hex()
    return key_pem, cert_pem, thumbprint


def test_client_credentials_with_a_certificate_assertion(make_server):
    key_pem, cert_pem, thumbprint = self_signed_certificate()
    client_id = str(uuid.uuid4())
    server = make_server(config={
        "apps": [{
            "clientId": client_id, "displayName": "Daemon", "tenant": CONTOSO, "certificates": [cert_pem],
            "requiredResourceAccess": [{"resource": "https://graph.microsoft.com", "roles": ["User.Read.All"]}],
        }]})
    app = confidential_app(server, client_id, {"private_key": key_pem, "thumbprint": thumbprint})
    result = app.acquire_token_for_client(GRAPH_DEFAULT)
    assert "access_token" in result, result
    claims = decode_claims(result["access_token"])
    assert claims["roles"] == ["User.Read.All"]
    assert claims["appidacr"] == "2"
    # A key that does not belong to the registered certificate is refused.
    other_key, _, _ = self_signed_certificate()
    refused = confidential_app(server, client_id, {"private_key": other_key, "thumbprint": thumbprint}).acquire_token_for_client(GRAPH_DEFAULT)
    assert refused.get("error") == "invalid_client", refused


def test_on_behalf_of_a_signed_in_user(make_server):
    api_id = str(uuid.uuid4())
    client_id = str(uuid.uuid4())
    server = make_server(config={
        "apps": [
            {"clientId": api_id, "displayName": "Orders API", "tenant": CONTOSO, "publicClient": False,
             "secrets": [{"value": "api-secret"}], "identifierUris": [f"api://{api_id}"], "exposedScopes": ["access_as_user"],
             "requiredResourceAccess": [{"resource": "https://graph.microsoft.com", "scopes": ["User.Read"]}]},
            {"clientId": client_id, "displayName": "Orders app", "tenant": CONTOSO,
             "redirectUris": ["http://localhost:8400/callback"]},
        ],
        "consents": [
            {"clientId": client_id, "resource": f"api://{api_id}", "scopes": ["access_as_user"], "tenant": CONTOSO},
            {"clientId": api_id, "resource": "https://graph.microsoft.com", "scopes": ["User.Read"], "tenant": CONTOSO},
        ]})
    user_app = public_app(server, client_id=client_id)
    user_token = sign_in_with_auth_code(server, user_app, [f"api://{api_id}/access_as_user"])
    assert "access_token" in user_token, user_token
    api_claims = decode_claims(user_token["access_token"])
    assert api_claims["scp"] == "access_as_user"
    api = confidential_app(server, api_id, "api-secret")
    downstream = api.acquire_token_on_behalf_of(user_token["access_token"], ["https://graph.microsoft.com/User.Read"])
    assert "access_token" in downstream, downstream
    graph_claims = decode_claims(downstream["access_token"])
    assert graph_claims["upn"] == ADELE
    assert graph_claims["appid"] == api_id
    assert graph_claims["aud"] in ("00000003-0000-0000-c000-000000000000", "https://graph.microsoft.com")




@pytest.mark.skipif(not port_443_available(), reason="binding port 443 needs root")
def test_username_password_flow_on_port_443(make_server):
    # MSAL Python calls https://<host>/common/userrealm/<user> WITHOUT the authority's port, so this
    # flow only works against an instance listening on 443.
    server = make_server(port=443)
    assert server.url.endswith(":443") or server.url.count(":") == 1
    app = msal.PublicClientApplication(str(uuid.uuid4()), authority=f"https://127.0.0.1/{CONTOSO}", instance_discovery=False)
    result = app.acquire_token_by_username_password(ADELE, PASSWORD, scopes=["User.Read"])
    assert "access_token" in result, result
    assert result["id_token_claims"]["preferred_username"] == ADELE
    wrong = app.acquire_token_by_username_password(ADELE, "wrong", scopes=["User.Read"])
    assert 50126 in wrong.get("error_codes", []), wrong
