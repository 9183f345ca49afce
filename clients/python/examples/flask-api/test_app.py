"""The API's tests, against real tokens from FakeEntra (the `fakeentra` fixture of pytest-fakeentra)."""
import pytest

from app import create_app

CONTOSO = "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"
API_ID = "6f3c8a1e-2b4d-4e5f-8a9b-0c1d2e3f4a5b"
API_URI = f"api://{API_ID}"
ADELE = "adele.vance@contoso.onmicrosoft.com"


@pytest.fixture(scope="session")
def api_registration(fakeentra):
    """The API, registered in the running FakeEntra through its control API: it exposes Hello.Read."""
    response = fakeentra.control("POST", "/_fakeentra/apps", json={
        "clientId": API_ID, "displayName": "Hello API", "tenant": CONTOSO, "identifierUris": [API_URI],
        "exposedScopes": ["Hello.Read"], "accessTokenAcceptedVersion": 2})
    assert response.status_code in (200, 201, 409), response.text
    return API_URI


@pytest.fixture
def client(fakeentra, api_registration):
    app = create_app(f"{fakeentra.url}/{CONTOSO}", audience=API_ID, ca_file=fakeentra.ca)
    return app.test_client()


def test_a_signed_in_users_token_is_accepted(fakeentra, client, api_registration):
    tokens = fakeentra.sign_in(ADELE, scopes=[f"{api_registration}/Hello.Read", "openid"], tenant="contoso.onmicrosoft.com")
    response = client.get("/api/hello", headers={"Authorization": "Bearer " + tokens["access_token"]})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["user"] == ADELE


def test_a_token_for_another_api_is_refused(fakeentra, client):
    graph = fakeentra.sign_in(ADELE, scopes=["User.Read"], tenant="contoso.onmicrosoft.com")
    response = client.get("/api/hello", headers={"Authorization": "Bearer " + graph["access_token"]})
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


def test_no_token_is_refused(client):
    assert client.get("/api/hello").status_code == 401
