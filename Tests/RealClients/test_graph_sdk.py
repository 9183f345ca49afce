"""Microsoft's own Graph SDK for Python (`msgraph-sdk`, over kiota and httpx) with `azure-identity`
credentials, calling FakeEntra's Graph with tokens FakeEntra issued."""
import asyncio
import datetime
import ssl
import uuid

import httpx
import pytest
import requests
from azure.identity import ClientSecretCredential, DeviceCodeCredential
from kiota_abstractions.api_error import APIError
from kiota_authentication_azure.azure_identity_authentication_provider import AzureIdentityAuthenticationProvider
from msgraph import GraphRequestAdapter, GraphServiceClient
from msgraph.graph_request_adapter import options as sdk_default_options
from msgraph.generated.users.item.calendar_view.calendar_view_request_builder import CalendarViewRequestBuilder
from msgraph_core import GraphClientFactory

from browser_driver import drive_response, parse_forms
from test_msal_public_client import ADELE, ALEX, PASSWORD

CONTOSO = "contoso.onmicrosoft.com"


def graph_client(server, credential, scopes):
    auth = AzureIdentityAuthenticationProvider(credential, scopes=scopes, allowed_hosts=[server.host.split(":")[0]])
    # The SDK's own middleware options (they turn /users/me-token-to-replace into /me), with our CA.
    http = GraphClientFactory.create_with_default_middleware(
        client=httpx.AsyncClient(verify=ssl.create_default_context(cafile=server.ca)), options=sdk_default_options)
    adapter = GraphRequestAdapter(auth, client=http)
    adapter.base_url = f"{server.url}/v1.0"
    return GraphServiceClient(request_adapter=adapter)


def approve_device_code(server, user):
    """azure-identity's prompt callback: a person opens the page and types the code."""
    def callback(verification_uri, user_code, expires_on):
        session = requests.Session()
        session.verify = server.ca
        page = session.get(verification_uri)
        form = parse_forms(page.text)[0]
        fields = {i["name"]: i["value"] for i in form["inputs"] if i.get("name")}
        code_field = next(i["name"] for i in form["inputs"] if i["type"] in ("text", "tel") and i.get("name"))
        fields[code_field] = user_code
        action = requests.compat.urljoin(page.url, form["action"] or page.url)
        response = session.post(action, data=fields, allow_redirects=False)
        drive_response(response, user, PASSWORD, "https://never-reached.invalid/", session, until_final_page=True)
    return callback


def user_credential(server, user):
    return DeviceCodeCredential(client_id=str(uuid.uuid4()), tenant_id=CONTOSO, authority=server.host,
                                disable_instance_discovery=True, prompt_callback=approve_device_code(server, user))


def test_me_profile_photo_events_and_calendar_view_as_a_signed_in_user(server):
    client = graph_client(server, user_credential(server, ADELE), ["User.Read", "Calendars.Read"])

    async def scenario():
        me = await client.me.get()
        assert me.user_principal_name == ADELE
        assert me.display_name == "Adele Vance"
        assert me.mobile_phone is None
        photo = await client.me.photo.content.get()
        assert photo[:8] == b"\x89PNG\r\n\x1a\n"
        events = await client.me.events.get()
        assert events.value, "the demo user has events"
        start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=7)
        end = start + datetime.timedelta(days=21)
        query = CalendarViewRequestBuilder.CalendarViewRequestBuilderGetQueryParameters(
            start_date_time=start.strftime("%Y-%m-%dT%H:%M:%SZ"), end_date_time=end.strftime("%Y-%m-%dT%H:%M:%SZ"),
            select=["subject", "start", "end"], orderby=["start/dateTime"], top=2)
        config = CalendarViewRequestBuilder.CalendarViewRequestBuilderGetRequestConfiguration(query_parameters=query)
        view = await client.me.calendar_view.get(request_configuration=config)
        assert view.value and len(view.value) <= 2
        starts = [e.start.date_time for e in view.value]
        assert starts == sorted(starts)
        assert view.odata_next_link is None or view.odata_next_link.startswith(server.url)
        # The groups she owns, as directory objects the SDK turns into its Group type by @odata.type.
        owned = await client.me.owned_objects.get()
        assert sorted(o.display_name for o in owned.value) == ["All Company", "Retail"]
        assert all(type(o).__name__ == "Group" for o in owned.value)
        # User.Read alone does not let Adele read Alex's profile: Graph's 403.
        with pytest.raises(APIError) as denied:
            await client.users.by_user_id(ALEX).get()
        return denied.value

    denied = asyncio.run(scenario())
    assert denied.response_status_code == 403
    assert denied.error.code == "Authorization_RequestDenied"


def test_application_permissions_with_a_client_secret(make_server):
    client_id = str(uuid.uuid4())
    server = make_server(config={"apps": [{
        "clientId": client_id, "displayName": "Directory reader", "tenant": CONTOSO, "secrets": [{"value": "s3cret"}],
        "requiredResourceAccess": [{"resource": "https://graph.microsoft.com", "roles": ["User.Read.All", "Application.Read.All"]}]}]})
    credential = ClientSecretCredential(CONTOSO, client_id, "s3cret", authority=server.host, disable_instance_discovery=True)
    client = graph_client(server, credential, ["https://graph.microsoft.com/.default"])

    async def scenario():
        alex = await client.users.by_user_id(ALEX).get()
        assert alex.display_name == "Alex Wilber"
        # Its own registration, listed and read by app id as the SDK's typed Application.
        apps = await client.applications.get()
        assert [app.display_name for app in apps.value] == ["Directory reader"]
        assert apps.value[0].password_credentials[0].hint == "s3c"
        mine = await client.applications_with_app_id(client_id).get()
        assert mine.app_id == client_id and mine.id == apps.value[0].id and mine.sign_in_audience == "AzureADMyOrg"
        try:
            await client.me.get()
        except APIError as error:
            return error
        raise AssertionError("/me must be refused to an app-only token")

    error = asyncio.run(scenario())
    assert error.response_status_code == 400


def test_missing_token_is_graph_401(server):
    response = requests.get(f"{server.url}/v1.0/me", verify=server.ca, timeout=30)
    assert response.status_code == 401
    body = response.json()
    assert body["error"]["code"] == "InvalidAuthenticationToken"
    assert "request-id" in response.headers and "client-request-id" in response.headers
