"""Makes FakeEntra face the situation of a recording and returns its answer.

The request goes to the same endpoint with the same kind of parameters (host, tenant and policy mapped to
FakeEntra's demo directory). A situation the demo directory can reach by itself is reached that way (a
wrong password, a code redeemed twice, a refresh token after a revocation or past its lifetime, an unknown
tenant or resource); one it cannot (Conditional Access, MFA, a declined device flow) is scripted with a
scenario bound to a fresh client id, whose rule names only the error code: FakeEntra's own catalogue
then decides the error string, suberror, wording and keys, which is what the recording checks."""
import json
import re
import time
import urllib.parse
import uuid

from fidelity import (ADELE, ADELE_ID, ALEX, ALEX_ID, B2C_TENANT, B2C_USER, CONTOSO, CONTOSO_DOMAIN, GRAPH, GUID, LOGIN_HOSTS,
                      PASSWORD, Answer, decode_jwt, decode_segment)

GRAPH_SCOPES = ["User.Read", "User.ReadBasic.All", "User.Read.All", "Calendars.Read", "Calendars.ReadWrite",
                "MailboxSettings.Read", "Group.Read.All", "Directory.Read.All", "Mail.Read"]
# Microsoft first-party public clients FakeEntra holds in every tenant (Azure CLI, PowerShell, VS, Office…).
FIRST_PARTY_CLIENTS = {"04b07795-8ddb-461a-bbee-02f9e1bf7b46", "1950a258-227b-4e31-a9cf-717495945fc2", "872cd9fa-d31f-45e0-9eab-6e460a02d1f1",
                       "aebc6443-996d-45c2-90f0-388ff96faa56", "d3590ed6-52b3-4102-aeff-aad2292ab01c", "1fec8e78-bce4-4aaf-ab1b-5451cc387264",
                       "4813382a-8fa7-425e-ab75-3b753aab3abb", "27922004-5251-4030-b22d-91ecd9a37ea4", "ab9b8c07-8f02-4f72-87fa-80105867a763",
                       "14d82eec-204b-4c2f-b7e8-296a70dab67e"}
AZURE_CLI = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
VISUAL_STUDIO_CODE = "aebc6443-996d-45c2-90f0-388ff96faa56"
# The demo tenant's user-assigned managed identity (its client id is fixed and documented) and its object id.
DEMO_USER_ASSIGNED_IDENTITY = "7e2c4b6a-1d3f-4e5a-8b9c-0d1e2f3a4b5c"
DEMO_USER_ASSIGNED_OBJECT_ID = "c2d3e4f5-6a7b-4c8d-9e0f-1a2b3c4d5e6f"
# The embedded External ID tenant and its customer (docs/external-id.md).
EXTERNAL_TENANT = "woodgrove.onmicrosoft.com"
EXTERNAL_CUSTOMER = "jordan@woodgrove.example"
# First-party resources FakeEntra knows by name; any other recorded resource is mapped to Graph.
FIRST_PARTY_RESOURCES = ("https://graph.windows.net", "https://management.core.windows.net", "https://management.azure.com",
                         "https://vault.azure.net", "https://storage.azure.com", "https://database.windows.net")
KNOWN_POLICIES = {"b2c_1_susi", "b2c_1_signin", "b2c_1_signup", "b2c_1_edit_profile", "b2c_1_reset", "b2c_1_ropc"}


class Provoker:
    def __init__(self, server, make_server=None):
        self.server = server
        self.make_server = make_server
        self._strict = None
        self.session = server.http_session()

    # MARK: mapping a real URL onto FakeEntra

    def tenant_for(self, segment, b2c=False):
        lowered = segment.lower()
        if lowered in ("common", "organizations", "consumers", "tfp"):
            return segment
        if b2c:
            return B2C_TENANT
        # `tenant` and `AZURE_TENANT_ID`: the Azure SDK recorders' placeholders for the tenant id.
        if segment.startswith("{") or segment.startswith("<") or GUID.fullmatch(segment) or "." in segment or lowered in ("tenant", "azure_tenant_id"):
            return CONTOSO
        return segment

    def policy_for(self, name):
        lowered = name.lower()
        if "ropc" in lowered:
            return "B2C_1_ropc"
        if lowered in KNOWN_POLICIES or lowered.startswith("b2c_1a_"):
            return name
        if "reset" in lowered or "password" in lowered:
            return "B2C_1_reset"
        if "edit" in lowered or "profile" in lowered:
            return "B2C_1_edit_profile"
        if "ropc" in lowered:
            return "B2C_1_ropc"
        return "B2C_1_susi"

    def login_url(self, url, b2c=False):
        parts = urllib.parse.urlsplit(url)
        segments = [s for s in parts.path.split("/") if s]
        b2c = b2c or parts.netloc.endswith("b2clogin.com")
        mapped = []
        for index, segment in enumerate(segments):
            if index == 0 or (index == 1 and segments[0].lower() == "tfp"):
                mapped.append(self.tenant_for(segment, b2c))
            elif segment.lower().startswith("b2c_1"):
                mapped.append(self.policy_for(segment))
            else:
                mapped.append(segment.replace("…", "v2.0"))
        query = []
        for name, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
            if name == "authorization_endpoint":
                value = self.login_url(value, b2c)
            elif name == "p":
                value = self.policy_for(value)
            query.append((name, value))
        return self.server.url + "/" + "/".join(mapped) + (("?" + urllib.parse.urlencode(query)) if query else "")

    def token_url(self, recording, tenant=None):
        url = self.login_url(recording.url, recording.is_b2c)
        if tenant:
            parts = urllib.parse.urlsplit(url)
            segments = parts.path.split("/")
            segments[1] = tenant
            url = urllib.parse.urlunsplit(parts._replace(path="/".join(segments)))
        return url

    @staticmethod
    def is_v1(url):
        return "/oauth2/token" in url or "/oauth2/authorize" in url or "/oauth2/devicecode" in url

    # MARK: answers

    def provoke(self, recording):
        if recording.claims is not None:
            return self.claims(recording)
        host = urllib.parse.urlsplit(recording.url).netloc.lower()
        if host.startswith("graph.microsoft.com") or recording.area == "graph":
            return self.graph(recording)
        if recording.area == "arm":
            return self.resource_manager(recording)
        if recording.area == "managed-identity":
            return self.managed_identity(recording)
        if recording.area == "native-auth":
            return self.native_auth(recording)
        if recording.method == "GET" and recording.url:
            url = self.login_url(recording.url, recording.is_b2c)
            if url.endswith("/discovery/instance"):
                # A recorder that dropped the query: MSAL's own instance discovery request.
                url += "?" + urllib.parse.urlencode({"api-version": "1.1", "authorization_endpoint": f"https://login.microsoftonline.com/{CONTOSO}/oauth2/v2.0/authorize"})
                url = self.login_url(url)
            return Answer.of(self.session.get(url, allow_redirects=False, headers=self.request_headers(recording)))
        if "/devicecode" in recording.url and "grant_type" not in recording.form:
            return self.device_authorization(recording)
        if recording.error_codes or (isinstance(recording.body, dict) and "error" in recording.body):
            return self.token_error(recording)
        return self.token_success(recording)

    # MARK: token endpoint successes

    KNOWN_GRANTS = {"authorization_code", "refresh_token", "client_credentials", "password", "device_code", "on_behalf_of"}

    def grant_type(self, recording):
        grant = recording.form.get("grant_type", "")
        if isinstance(grant, list):
            grant = grant[0]
        grant = {"urn:ietf:params:oauth:grant-type:device_code": "device_code", "device_code": "device_code",
                 "urn:ietf:params:oauth:grant-type:jwt-bearer": "on_behalf_of"}.get(grant, grant)
        if grant in self.KNOWN_GRANTS:
            return grant
        # A recorder that sanitized the grant type: the recording's name says which grant it was.
        for hint, name in (("refresh", "refresh_token"), ("ropc", "password"), ("password", "password"), ("client-credentials", "client_credentials"),
                           ("device-code", "device_code"), ("on-behalf-of", "on_behalf_of"), ("obo", "on_behalf_of"), ("auth-code", "authorization_code")):
            if hint in recording.name:
                return name
        return grant

    def client_id_for(self, recording):
        """The recorded client id when it is one of Microsoft's first-party apps (every tenant holds them);
        the Azure CLI's, a family member, when the recorded answer names the family (`foci`) of a client
        the recording does not show; else a fresh one."""
        recorded = recording.form.get("client_id")
        if isinstance(recorded, str) and recorded.lower() in FIRST_PARTY_CLIENTS:
            return recorded.lower()
        if isinstance(recording.body, dict) and recording.body.get("foci"):
            return AZURE_CLI
        # A hidden client asking for a first-party resource (a Key Vault token of an Azure SDK credential):
        # one of Microsoft's own tools, as the SDKs' developer credentials are.
        answered = (recording.body or {}).get("scope", "") if isinstance(recording.body, dict) else ""
        if recorded in (None, "Sanitized") and any(r in answered for r in FIRST_PARTY_RESOURCES if "graph" not in r):
            return VISUAL_STUDIO_CODE
        return str(uuid.uuid4())

    def extra_fields(self, recording):
        """Parameters that change the answer's members: MSAL's client_info=1."""
        return {"client_info": "1"} if "client_info" in recording.form else {}

    def request_headers(self, recording):
        """client-request-id as the recorded client sent it (with its return-client-request-id), else as MSAL
        sends it when the recording shows the service echoing one."""
        sent = {k.lower(): v for k, v in (recording.request.get("headers") or {}).items()}
        if "client-request-id" in sent:
            headers = {"client-request-id": str(uuid.uuid4())}
            if "return-client-request-id" in sent:
                headers["return-client-request-id"] = sent["return-client-request-id"]
            return headers
        if "client-request-id" in {k.lower() for k in (recording.response.get("headers") or {})}:
            return {"client-request-id": str(uuid.uuid4()), "return-client-request-id": "true"}
        return {}

    def scope_for(self, recording):
        scope = recording.form.get("scope", "")
        if not isinstance(scope, str) or scope.lower() == "sanitized":
            # A recorder that hid the request's scope: the answer's scope says what was asked.
            answered = (recording.body or {}).get("scope") if isinstance(recording.body, dict) else None
            scope = answered + " openid profile offline_access" if answered else ""
        if any(resource in scope for resource in FIRST_PARTY_RESOURCES):
            return scope
        words = []
        for word in scope.split():
            lowered = word.lower()
            if lowered in ("openid", "profile", "email", "offline_access"):
                words.append(lowered)
            elif lowered.endswith("/.default"):
                words.append(GRAPH + "/.default")
            elif "graph.microsoft.com" in lowered or "/" not in lowered:
                words.append(GRAPH + "/" + word.rsplit("/", 1)[-1] if "/" in word else word)
            else:
                words.append(GRAPH + "/User.Read")
        return " ".join(dict.fromkeys(words)) or "openid profile offline_access " + GRAPH + "/User.Read"

    def resource_for(self, recording):
        recorded = recording.form.get("resource")
        if isinstance(recorded, str) and recorded.rstrip("/").lower() in {r.rstrip("/") for r in FIRST_PARTY_RESOURCES}:
            return recorded
        return GRAPH

    def post_token(self, url, form, headers=None):
        return Answer.of(self.session.post(url, data=form, headers=headers or {}))

    def v1_or_v2_fields(self, recording, url, scope):
        if self.is_v1(url):
            return {"resource": self.resource_for(recording)}
        return {"scope": scope}

    def signed_in(self, recording, scope, client_id=None):
        """A completed code flow for a public client: (client id, token response)."""
        client_id = client_id or str(uuid.uuid4())
        tenant = B2C_TENANT if recording.is_b2c else "common"
        policy = "B2C_1_susi" if recording.is_b2c else None
        user = B2C_USER if recording.is_b2c else ADELE
        scopes = scope.split() if not recording.is_b2c else ["openid", "offline_access"]
        # First-party clients registered loopback redirects without a path (the Azure CLI's http://localhost).
        redirect = {"redirect_uri": "http://localhost:8400"} if client_id in FIRST_PARTY_CLIENTS else {}
        reply = self.server.sign_in(user, scopes=scopes, client_id=client_id, tenant=tenant, policy=policy, **redirect)
        return client_id, reply

    def b2c_token_url(self):
        """The token endpoint of the user flow the harness signs in with."""
        return f"{self.server.url}/{B2C_TENANT}/B2C_1_susi/oauth2/v2.0/token"

    def token_success(self, recording):
        url = self.token_url(recording)
        grant = self.grant_type(recording)
        scope = self.scope_for(recording)
        headers = self.request_headers(recording)
        if grant == "client_credentials":
            form = {"grant_type": grant, "client_id": str(uuid.uuid4()), "client_secret": "fidelity-secret"}
            if recording.is_b2c:
                # B2C's client credentials as its docs send them: a web API of the tenant, `.default`.
                form["scope"] = f"https://{B2C_TENANT}/api/.default"
            else:
                form.update({"resource": self.resource_for(recording)} if self.is_v1(url) else {"scope": GRAPH + "/.default"})
            return self.post_token(url, form, headers)
        if grant == "password":
            user = B2C_USER if recording.is_b2c else ADELE
            form = {"grant_type": grant, "client_id": self.client_id_for(recording), "username": user, "password": PASSWORD}
            if recording.is_b2c:
                # B2C's ROPC as its docs send it: the app's own id as a scope asks for an access token too.
                form.update({"scope": f"openid {form['client_id']} offline_access", "response_type": "token id_token"})
            else:
                form.update(self.v1_or_v2_fields(recording, url, scope))
            form.update(self.extra_fields(recording))
            return self.post_token(url, form, headers)
        if grant == "refresh_token":
            client_id, reply = self.signed_in(recording, "openid profile offline_access " + GRAPH + "/User.Read", client_id=self.client_id_for(recording))
            form = {"grant_type": grant, "client_id": client_id, "refresh_token": reply["refresh_token"]}
            # B2C: the app's own id as a scope (or the old `resource` form) asks for an access token too.
            b2c_scope = f"openid offline_access {client_id}" if "resource" in recording.form or client_id in scope else "openid offline_access"
            form.update(self.v1_or_v2_fields(recording, url, scope) if not recording.is_b2c else {"scope": b2c_scope})
            form.update(self.extra_fields(recording))
            return self.post_token(self.token_url(recording) if not recording.is_b2c else self.b2c_token_url(), form, headers)
        if grant == "authorization_code":
            if self.is_v1(url):
                return self.v1_code_redemption(recording, url)
            tenant = B2C_TENANT if recording.is_b2c else "common"
            policy = "B2C_1_susi" if recording.is_b2c else None
            user = B2C_USER if recording.is_b2c else ADELE
            if recording.is_b2c:
                # The recorded request's openid and offline_access, when it shows its scope.
                query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(recording.url).query))
                recorded = recording.form.get("scope") or query.get("scope")
                words = recorded.split() if isinstance(recorded, str) and recorded.lower() != "sanitized" else []
                scopes = [w for w in ("openid", "offline_access") if w in words] or ["openid", "offline_access"]
            else:
                scopes = scope.split()
            reply = self.server.authorize(user, scopes=scopes, tenant=tenant, policy=policy)
            form = {"grant_type": grant, "client_id": reply["client_id"], "code": reply["code"],
                    "redirect_uri": reply["redirect_uri"], "code_verifier": reply["code_verifier"], "scope": " ".join(scopes)}
            return self.post_token(reply["token_endpoint"] if recording.is_b2c else url, form)
        if grant == "device_code":
            return self.device_flow_success(recording, url, scope)
        if grant == "on_behalf_of":
            return self.on_behalf_of(recording, url)
        raise NotImplementedError(f"no provocation for grant {grant!r}")

    def v1_code_redemption(self, recording, url, nonce=None):
        client_id = str(uuid.uuid4())
        redirect = "http://localhost/callback"
        from fakeentra.signin import drive
        query = {"client_id": client_id, "response_type": "code", "redirect_uri": redirect, "resource": GRAPH, "state": "s"}
        if nonce:
            query["nonce"] = nonce
        authorize = url.replace("/oauth2/token", "/oauth2/authorize") + "?" + urllib.parse.urlencode(query)
        final, fields, _ = drive(authorize, ADELE, PASSWORD, redirect, session=self.server.http_session())
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(final).query))["code"]
        return self.post_token(url, {"grant_type": "authorization_code", "client_id": client_id, "code": code,
                                     "redirect_uri": redirect, "resource": GRAPH})

    def device_authorization(self, recording):
        url = self.login_url(recording.url)
        form = {"client_id": str(uuid.uuid4())}
        form.update({"resource": GRAPH} if self.is_v1(url) else {"scope": "openid profile offline_access " + GRAPH + "/User.Read"})
        return self.post_token(url, form, self.request_headers(recording))

    def start_device_flow(self, url, client_id):
        devicecode = url.replace("/token", "/devicecode")
        form = {"client_id": client_id}
        form.update({"resource": GRAPH} if self.is_v1(url) else {"scope": "openid profile offline_access " + GRAPH + "/User.Read"})
        return self.session.post(devicecode, data=form).json()

    def device_poll_form(self, url, client_id, flow):
        form = {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "client_id": client_id}
        form["code" if self.is_v1(url) else "device_code"] = flow["device_code"]
        if self.is_v1(url):
            form["resource"] = GRAPH
        return form

    def device_flow_success(self, recording, url, scope):
        client_id = self.client_id_for(recording)
        flow = self.start_device_flow(url, client_id)
        self.server.complete_device_login(flow, ADELE, PASSWORD)
        return self.post_token(url, self.device_poll_form(url, client_id, flow))

    def control(self, method, path, **kwargs):
        """A control call that must succeed: a refused setup would make the comparison meaningless."""
        response = self.server.control(method, path, **kwargs)
        if response.status_code >= 300:
            raise RuntimeError(f"{method} {path} refused: {response.status_code} {response.text[:300]}")
        return response

    def on_behalf_of(self, recording, url):
        if self.is_v1(url):
            scope = {"resource": self.resource_for(recording)}
        elif "scope" in recording.form:
            scope = {"scope": self.scope_for(recording)}
        else:
            # A recorder that kept no request body: an answer with an id token was asked for openid (MSAL adds
            # it), one without was not (azure-identity's own request names the resource's scope alone).
            with_id_token = isinstance(recording.body, dict) and "id_token" in recording.body
            scope = {"scope": GRAPH + "/.default" + (" openid profile offline_access" if with_id_token else "")}
        return self.obo_exchange(url, {**scope, **self.extra_fields(recording)})

    def obo_exchange(self, url, fields, spoil=None):
        """A middle-tier API exchanging Adele's token for it (signed in through a client app) for `fields`' resource;
        `spoil` makes another assertion of the sign-in's answer."""
        api_id, client_id = str(uuid.uuid4()), str(uuid.uuid4())
        self.control("POST", "/_fakeentra/apps", json={
            "clientId": api_id, "displayName": "Fidelity API", "tenant": CONTOSO_DOMAIN, "publicClient": False,
            "secrets": ["api-secret"], "identifierUris": [f"api://{api_id}"], "exposedScopes": ["access_as_user"],
            "requiredResourceAccess": [{"resource": GRAPH, "scopes": ["User.Read"]}]})
        for consent in ({"clientId": client_id, "resource": f"api://{api_id}", "scopes": ["access_as_user"], "tenant": CONTOSO_DOMAIN},
                        {"clientId": api_id, "resource": GRAPH, "scopes": ["User.Read"], "tenant": CONTOSO_DOMAIN}):
            self.control("POST", "/_fakeentra/consents", json=consent)
        user = self.server.sign_in(ADELE, scopes=["openid", "offline_access", f"api://{api_id}/access_as_user"], client_id=client_id)
        form = {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "client_id": api_id, "client_secret": "api-secret",
                "assertion": spoil(user) if spoil else user["access_token"], "requested_token_use": "on_behalf_of", **fields}
        return self.post_token(url.replace("/common/", f"/{CONTOSO}/"), form)

    # MARK: token endpoint errors

    def token_error(self, recording):
        codes = recording.error_codes
        body = recording.body if isinstance(recording.body, dict) else {}
        url = self.token_url(recording)
        grant = self.grant_type(recording) or ("device_code" if "authorization_pending" in str(body) else "")
        code = recording.situation_code
        natural = getattr(self, f"natural_{code}", None) if code else None
        if natural is None and not codes and body.get("error") == "authorization_pending":
            natural = self.natural_authorization_pending
        if natural is not None:
            return natural(recording, url)
        if code is None:
            raise NotImplementedError("an error without a code that FakeEntra cannot reach by itself")
        return self.scripted_error(recording, url, grant, code)

    def scripted_error(self, recording, url, grant, code):
        """A scenario whose one rule answers this code to this grant; the request is otherwise ordinary."""
        prefix = "AADB2C" if recording.is_b2c or "AADB2C" in json.dumps(recording.body) else "AADSTS"
        client_id = str(uuid.uuid4())
        name = f"fidelity-{uuid.uuid4().hex[:12]}"
        match = {"endpoint": "b2c" if recording.is_b2c else "token"}
        # B2C's requests are one endpoint kind to a rule; the binding to a fresh client keeps the rule to this one.
        if grant and recording.form.get("grant_type") and not recording.is_b2c:
            match["grantType"] = [grant if grant not in ("device_code", "on_behalf_of") else
                                  {"device_code": "device_code", "on_behalf_of": "urn:ietf:params:oauth:grant-type:jwt-bearer"}[grant]]
        scenario = {"name": name, "description": "fidelity: " + recording.name,
                    "rules": [{"match": match, "action": {"oauthError": {"code": f"{prefix}{code}"}}, "times": "always"}]}
        response = self.server.control("POST", "/_fakeentra/scenarios", json=scenario)
        if response.status_code != 201:
            raise RuntimeError(f"scenario refused: {response.status_code} {response.text}")
        self.server.bind(name, client_id=client_id)
        form = dict(recording.form)
        form["client_id"] = client_id
        form = {k: (v[0] if isinstance(v, list) else v) for k, v in form.items()}
        headers = self.request_headers(recording) or ({"client-request-id": str(uuid.uuid4()), "return-client-request-id": "true"}
                                                      if "client-request-id" in {k.lower() for k in (recording.request.get("headers") or {})} else {})
        for secret in ("client_secret", "refresh_token", "code", "assertion", "password", "device_code", "client_assertion"):
            if secret in form:
                form[secret] = "fidelity-" + secret
        if "scope" in form:
            form["scope"] = self.scope_for(recording)
        if "resource" in form:
            form["resource"] = GRAPH
        if "username" in form:
            form["username"] = B2C_USER if recording.is_b2c else ADELE
        if not form.get("grant_type"):
            # A source that does not show the grant: a web app redeeming a code, the usual way to meet it.
            form.update({"grant_type": "authorization_code", "code": "fidelity-code", "redirect_uri": "http://localhost/callback"})
        return self.post_token(url, form, headers)

    # The situations the demo directory reaches by itself, by code.

    def natural_50126(self, recording, url):
        form = {"grant_type": "password", "client_id": str(uuid.uuid4()), "username": ADELE, "password": "wrong"}
        form.update({"resource": GRAPH} if self.is_v1(url) else {"scope": GRAPH + "/User.Read"})
        return self.post_token(url, form)

    def natural_900144(self, recording, url):
        description = (recording.body or {}).get("error_description", "")
        missing = re.search(r"parameter: '([a-z_]+)'", description)
        missing = missing.group(1) if missing else "grant_type"
        if missing in ("code", "device_code"):
            # The device-code grant's code: `code` is the v1 endpoint's name for it, `device_code` v2.0's.
            version_url = f"{self.server.url}/{CONTOSO}/oauth2/token" if missing == "code" else f"{self.server.url}/{CONTOSO}/oauth2/v2.0/token"
            return self.post_token(version_url, {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "client_id": str(uuid.uuid4())})
        form = {"grant_type": "client_credentials", "client_id": str(uuid.uuid4()), "client_secret": "fidelity-secret", "scope": GRAPH + "/.default"}
        form.pop(missing, None)
        return self.post_token(url, form)

    def natural_9002313(self, recording, url):
        # A code that cannot be one the service issued (the recordings' own situation: a malformed code).
        reply = self.server.authorize(ADELE)
        return self.post_token(reply["token_endpoint"], {"grant_type": "authorization_code", "client_id": reply["client_id"],
                                                         "code": reply["code"][:20] + "%2F", "redirect_uri": reply["redirect_uri"],
                                                         "code_verifier": reply["code_verifier"]})

    def natural_70020(self, recording, url):
        # In a world of its own (a scenario bound to the client): its clock moves past the device code's
        # 15 minutes without moving every other provocation's.
        client_id = str(uuid.uuid4())
        name = f"fidelity-{uuid.uuid4().hex[:12]}"
        self.control("POST", "/_fakeentra/scenarios", json={"name": name, "description": "fidelity: device code expiry",
                                                             "rules": [{"match": {"endpoint": "token"}, "action": {"passThrough": True}, "times": "always"}]})
        binding = self.server.bind(name, client_id=client_id)
        flow = self.start_device_flow(url, client_id)
        self.control("POST", "/_fakeentra/clock/advance", json={"seconds": flow.get("expires_in", 900) + 1, "binding": binding})
        return self.post_token(url, self.device_poll_form(url, client_id, flow))

    def natural_7000215(self, recording, url):
        client_id = str(uuid.uuid4())
        self.post_token(url, {"grant_type": "client_credentials", "client_id": client_id, "client_secret": "first-secret", "scope": GRAPH + "/.default"})
        return self.post_token(url, {"grant_type": "client_credentials", "client_id": client_id, "client_secret": "wrong-secret", "scope": GRAPH + "/.default"},
                               self.request_headers(recording))

    def natural_7000216(self, recording, url):
        form = {"grant_type": "client_credentials", "client_id": str(uuid.uuid4())}
        form.update({"resource": GRAPH} if self.is_v1(url) else {"scope": GRAPH + "/.default"})
        return self.post_token(url, form)

    def natural_54005(self, recording, url):
        reply = self.server.authorize(ADELE)
        form = {"grant_type": "authorization_code", "client_id": reply["client_id"], "code": reply["code"],
                "redirect_uri": reply["redirect_uri"], "code_verifier": reply["code_verifier"]}
        self.post_token(reply["token_endpoint"], form)
        return self.post_token(reply["token_endpoint"], form)

    def natural_50173(self, recording, url):
        # Alex, so that the revocation (as a password change: tokens issued before now fail) leaves the
        # user every other provocation signs in as untouched.
        client_id = str(uuid.uuid4())
        reply = self.server.sign_in(ALEX, scopes=["openid", "profile", "offline_access", GRAPH + "/User.Read"], client_id=client_id)
        self.control("POST", f"/_fakeentra/users/{ALEX}/revoke")
        form = {"grant_type": "refresh_token", "client_id": client_id, "refresh_token": reply["refresh_token"]}
        form.update(self.v1_or_v2_fields(recording, url, GRAPH + "/User.Read"))
        return self.post_token(url, form)

    def natural_500011(self, recording, url):
        form = {"grant_type": "client_credentials", "client_id": str(uuid.uuid4()), "client_secret": "fidelity-secret"}
        form.update({"resource": "https://unknown-resource.example"} if self.is_v1(url) else {"scope": "https://unknown-resource.example/.default"})
        return self.post_token(url, form)

    def natural_90002(self, recording, url):
        return self.post_token(self.token_url(recording, tenant="no-such-tenant.onmicrosoft.com"),
                               {"grant_type": "client_credentials", "client_id": str(uuid.uuid4()), "client_secret": "s", "scope": GRAPH + "/.default"})

    def natural_9002326(self, recording, url):
        """A web app's code redeemed from a browser (an Origin header): its redirect URI is not a single-page app's."""
        return self.spa_redemption(web=True)

    def natural_9002327(self, recording, url):
        """A single-page app's code redeemed by a server (no Origin header)."""
        return self.spa_redemption(web=False)

    def spa_redemption(self, web):
        client_id, redirect = str(uuid.uuid4()), "https://app.fidelity.test/callback"
        self.control("POST", "/_fakeentra/apps", json={
            "clientId": client_id, "displayName": "Fidelity browser app", "tenant": CONTOSO_DOMAIN, "publicClient": not web,
            **({"redirectUris": [redirect], "secrets": ["web-secret"]} if web else {"spaRedirectUris": [redirect]})})
        reply = self.server.authorize(ADELE, scopes=["openid", "profile", "offline_access"], client_id=client_id, tenant=CONTOSO, redirect_uri=redirect)
        form = {"grant_type": "authorization_code", "client_id": client_id, "code": reply["code"], "redirect_uri": redirect,
                "code_verifier": reply["code_verifier"], "scope": "openid profile offline_access"}
        if web:
            form["client_secret"] = "web-secret"
        headers = {"Origin": "http://localhost:8000"} if web else {}
        return self.post_token(reply["token_endpoint"], form, headers)

    def natural_9010010(self, recording, url):
        """An MCP client's silent token request: a refresh for Graph's scope naming an MCP server as `resource`."""
        client_id = str(uuid.uuid4())
        reply = self.server.sign_in(ADELE, scopes=["openid", "profile", "offline_access", GRAPH + "/User.Read"], client_id=client_id)
        return self.post_token(f"{self.server.url}/{CONTOSO}/oauth2/v2.0/token", {
            "grant_type": "refresh_token", "client_id": client_id, "refresh_token": reply["refresh_token"],
            "scope": GRAPH + "/User.Read offline_access", "resource": "https://mcp.dev.azure.com/contoso"})

    def natural_50013(self, recording, url):
        """An on-behalf-of assertion signed with a key the tenant does not publish, or carrying a signature its
        published key does not verify (another token's)."""
        def foreign_key(user):
            from cryptography.hazmat.primitives.asymmetric import rsa
            import jwt as pyjwt
            claims = pyjwt.decode(user["access_token"], options={"verify_signature": False})
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            return pyjwt.encode(claims, key, algorithm="RS256", headers={"kid": "not-a-published-key"})

        def other_signature(user):
            head, body, _ = user["access_token"].split(".")
            return ".".join([head, body, user["id_token"].split(".")[2]])

        spoil = foreign_key if "key was not found" in json.dumps(recording.body) else other_signature
        return self.obo_exchange(f"{self.server.url}/{CONTOSO}/oauth2/v2.0/token", {"scope": GRAPH + "/.default"}, spoil=spoil)

    def natural_70016(self, recording, url):
        return self.natural_authorization_pending(recording, url)

    def natural_authorization_pending(self, recording, url):
        client_id = str(uuid.uuid4())
        flow = self.start_device_flow(url, client_id)
        return self.post_token(url, self.device_poll_form(url, client_id, flow), self.request_headers(recording))

    # MARK: Graph

    def graph_token(self, scopes=GRAPH_SCOPES, **extra):
        body = {"user": ADELE, "scopes": [f"{GRAPH}/{s}" for s in scopes], **extra}
        response = self.server.control("POST", "/_fakeentra/tokens", json=body)
        if response.status_code not in (200, 201):
            raise RuntimeError(f"token mint refused: {response.status_code} {response.text}")
        return response.json()["token"]

    def graph_get(self, path, token, headers):
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        return Answer.of(self.session.get(self.server.url + path, headers={**headers, **auth}))

    def demo_event(self, token, collection="/v1.0/me/events?$top=100"):
        """The demo event most like the recorded ones: with a location and attendees."""
        events = self.session.get(self.server.url + collection, headers={"Authorization": f"Bearer {token}"}).json().get("value", [])
        rich = [e for e in events if e.get("attendees") and (e.get("location") or {}).get("displayName")]
        return (rich or events or [{}])[0].get("id")

    def graph_path(self, recording, token, keep_ids=False, other_user=False):
        """The recorded path on FakeEntra: users are Adele (Alex for somebody else's mailbox), ids are the
        demo mailbox's (unless `keep_ids`: a 404 names what does not exist), a calendar view's window is this
        week (the demo events are placed around the current week)."""
        # A source that shows the answer but not the request: the resource its @odata.context names, else
        # the signed-in user's own profile.
        parts = urllib.parse.urlsplit(recording.url or self.url_of_context(recording) or "https://graph.microsoft.com/v1.0/me")
        segments = [s for s in parts.path.split("/") if s]
        mapped = []
        for index, segment in enumerate(segments):
            previous = segments[index - 1].lower() if index else ""
            keyed = re.fullmatch(r"(events|calendars)\('(.+)'\)", segment, re.IGNORECASE)
            if previous == "users" and segment.lower() != "delta":
                named = "@" in segment or GUID.fullmatch(segment) or "{" in segment
                mapped.append((ALEX_ID if other_user else ADELE_ID) if named else segment)
            elif keep_ids:
                mapped.append(segment)
            elif keyed:
                kind = keyed.group(1).lower()
                mapped.append(f"{keyed.group(1)}('{self.demo_event(token) if kind == 'events' else self.demo_calendar(token)}')")
            elif previous == "events" and segment.lower() not in ("events", "calendarview"):
                mapped.append(self.demo_event(token))
            elif previous == "calendars" and segment.lower() not in ("events", "calendarview"):
                mapped.append(self.demo_calendar(token))
            elif previous == "groups" and ("{" in segment or GUID.fullmatch(segment)):
                mapped.append(self.demo_group(token))
            else:
                mapped.append(segment)
        query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        if segments and segments[-1].lower() == "groups":
            # A filter on a recorded group's name: the demo directory's Retail group instead.
            query = [(name, re.sub(r"'[^']*'", "'Retail'", value) if name == "$filter" else value) for name, value in query]
        relationship = next((s.lower() for s in reversed(segments) if s.lower() in ("members", "transitivemembers", "memberof", "transitivememberof")), None)
        searched_groups = segments and segments[-1].lower() == "groups" and any(name == "$search" for name, _ in query)
        if (relationship and any(name in ("$search", "$filter") for name, _ in query)) or searched_groups:
            # A search or filter on recorded names: a prefix of a demo object this listing holds instead.
            listing = "/" + "/".join(m for m in mapped if m.lower() != "$count")
            items = self.session.get(self.server.url + listing, headers={"Authorization": f"Bearer {token}", "ConsistencyLevel": "eventual"}).json().get("value", [])
            prefix = (items[0].get("displayName") or "a")[:2] if items else "a"
            query = [(name, re.sub(r":[^\"]*\"", f":{prefix}\"", value) if name == "$search" else
                      re.sub(r"'[^']*'", f"'{prefix[:1]}'", value) if name == "$filter" else value) for name, value in query]
        if any(name.lower() == "startdatetime" for name, _ in query):
            now = time.time()
            window = {"startdatetime": time.strftime("%Y-%m-%dT00:00:00Z", time.gmtime(now - 7 * 86400)),
                      "enddatetime": time.strftime("%Y-%m-%dT00:00:00Z", time.gmtime(now + 7 * 86400))}
            query = [(name, window.get(name.lower(), value)) for name, value in query]
        safe = "$,'()/:="
        text = "&".join(f"{name}={urllib.parse.quote(value, safe=safe)}" for name, value in query)
        return "/" + "/".join(mapped) + (f"?{text}" if text else "")

    @staticmethod
    def url_of_context(recording):
        """`…/v1.0/$metadata#users('x')/calendars('id')/calendarView` → the request that answers it."""
        context = (recording.body or {}).get("@odata.context", "") if isinstance(recording.body, dict) else ""
        match = re.match(r"https://graph\.microsoft\.com/(v1\.0|beta)/\$metadata#users\('[^']*'\)/(.+)$", context)
        if not match:
            return None
        path = re.sub(r"\('[^']*'\)", lambda key: "/" + urllib.parse.unquote(key.group(0)[2:-2]), match.group(2))
        url = f"https://graph.microsoft.com/{match.group(1)}/me/{path}"
        return url + ("?startDateTime=2025-01-01T00:00:00Z&endDateTime=2025-01-08T00:00:00Z" if path.lower().endswith("calendarview") else "")

    def demo_group(self, token):
        """The demo group with the most direct members (a recorded group's members are the point)."""
        auth = {"Authorization": f"Bearer {token}"}
        groups = self.session.get(self.server.url + "/v1.0/groups", headers=auth).json()["value"]
        count = lambda group: len(self.session.get(f"{self.server.url}/v1.0/groups/{group['id']}/members", headers=auth).json().get("value", []))
        return max(groups, key=count)["id"]

    def demo_calendar(self, token):
        listing = self.session.get(self.server.url + "/v1.0/me/calendars", headers={"Authorization": f"Bearer {token}"}).json()
        return listing["value"][0]["id"]

    STATUS_OF_CODE = {"InvalidAuthenticationToken": 401, "Authorization_RequestDenied": 403, "ErrorAccessDenied": 403,
                      "Request_ResourceNotFound": 404, "ErrorItemNotFound": 404, "ResourceNotFound": 404, "TooManyRequests": 429,
                      "BadRequest": 400, "Request_BadRequest": 400}

    def graph(self, recording):
        body = recording.body if isinstance(recording.body, dict) else {}
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        message = (error.get("message") or "").lower()
        # A source that shows the body but not the status line: Graph's code says which it was.
        status = recording.response.get("status") or self.STATUS_OF_CODE.get(error.get("code"))
        segment = re.search(r"resource not found for the segment '([^']+)'", message)
        if segment and not recording.url:
            return self.graph_get(f"/v1.0/me/{segment.group(1)}", self.graph_token(), {})
        headers = {k: v for k, v in (recording.request.get("headers") or {}).items() if k.lower() in ("prefer", "consistencylevel")}
        token = self.graph_token()
        www = (recording.response.get("headers") or {}).get("WWW-Authenticate") or ""
        if status == 401 and ("insufficient_claims" in www or "claims" in message):
            # Continuous access evaluation: only a CAE-capable client's token (xms_cc cp1) is challenged.
            return self.graph_in_world(recording, {"claimsChallenge": {}}, capabilities=["cp1"])
        if status == 401 and "expired" in message:
            return self.graph_in_world(recording, {"passThrough": True}, advance=2 * 3600)
        if status == 401 and "audience" in message:
            return self.graph_get(self.graph_path(recording, token), self.graph_token(audience="api://someone-else"), headers)
        if status == 401:
            return self.graph_get(self.graph_path(recording, token), None, headers)
        if status == 403:
            # Somebody else's mailbox with a delegated token, or the directory with User.Read alone.
            other = "/users/" in recording.url.lower() and "calendar" in recording.url.lower()
            narrow = self.graph_token(scopes=["User.Read", "Calendars.Read"] if other else ["User.Read"])
            return self.graph_get(self.graph_path(recording, token, other_user=other), narrow, headers)
        if status == 404 and not recording.url:
            return self.graph_get(f"/v1.0/users/{uuid.uuid4()}", token, headers)
        if status == 404:
            path = self.graph_path(recording, token, keep_ids=True)
            return self.graph_get(re.sub(GUID, str(uuid.uuid4()), path) if "/users/" in path else path, token, headers)
        if status == 429:
            return self.graph_in_world(recording, {"graphError": {"status": 429, "code": error.get("code") or "TooManyRequests", "retryAfter": 10}})
        return self.graph_get(self.graph_path(recording, token), token, headers)

    def graph_in_world(self, recording, action, capabilities=None, advance=None):
        """The recorded request in a scenario world of its own: a rule answering `action` on Graph, the
        token minted in that world (so the request is routed there), its clock moved by `advance` seconds."""
        name = f"fidelity-{uuid.uuid4().hex[:12]}"
        scenario = {"name": name, "description": "fidelity: " + recording.name,
                    "rules": [{"match": {"endpoint": "graph"}, "action": action, "times": "always"}]}
        self.control("POST", "/_fakeentra/scenarios", json=scenario)
        binding = self.server.bind(name, client_id=str(uuid.uuid4()))
        extra = {"binding": binding}
        if capabilities:
            extra["claims"] = {"xms_cc": capabilities}
        token = self.graph_token(**extra)
        headers = {k: v for k, v in (recording.request.get("headers") or {}).items() if k.lower() in ("prefer", "consistencylevel")}
        path = self.graph_path(recording, self.graph_token())
        if advance:
            self.control("POST", "/_fakeentra/clock/advance", json={"seconds": advance, "binding": binding})
        return self.graph_get(path, token, headers)

    # MARK: Azure Resource Manager

    def arm_token(self, user=ADELE, scope="https://management.core.windows.net//.default", authority="organizations", capable=False):
        """What `az login` holds: the Azure CLI's token for ARM, by the password grant; `capable`: the client
        declares `cp1` (continuous access evaluation), as azure-identity does."""
        form = {"grant_type": "password", "client_id": AZURE_CLI, "username": user, "password": PASSWORD, "scope": scope}
        if capable:
            form["claims"] = json.dumps({"access_token": {"xms_cc": {"values": ["cp1"]}}})
        reply = self.session.post(f"{self.server.url}/{authority}/oauth2/v2.0/token", data=form).json()
        if "access_token" not in reply:
            raise RuntimeError(f"no ARM token: {reply}")
        return reply["access_token"]

    def resource_manager(self, recording):
        """ARM on FakeEntra's host under /arm (as a custom cloud's resource manager endpoint names it)."""
        parts = urllib.parse.urlsplit(recording.url or "https://management.azure.com/subscriptions?api-version=2019-11-01")
        query = dict(urllib.parse.parse_qsl(parts.query))
        path = parts.path.rstrip("/") or ""
        error = ((recording.body or {}).get("error") or {}) if isinstance(recording.body, dict) else {}
        code = error.get("code", "")
        headers = {"Authorization": f"Bearer {self.arm_token()}"}
        if code == "MissingApiVersionParameter":
            query.pop("api-version", None)
        elif code == "InvalidAuthenticationTokenAudience":
            headers = {"Authorization": f"Bearer {self.graph_token()}"}
        elif code == "InvalidAuthenticationToken":
            headers = {"Authorization": "Bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.e30.c2lnbmF0dXJl"}
        elif code == "ExpiredAuthenticationToken":
            # The control API's mint, expired: an ARM token of the demo user past its exp.
            minted = self.server.control("POST", "/_fakeentra/tokens", json={
                "user": ADELE, "audience": "https://management.core.windows.net/", "scopes": ["user_impersonation"], "forge": "expired"}).json()
            headers = {"Authorization": f"Bearer {minted['token']}"}
        elif code == "AuthenticationFailed" and "revoked" in (recording.response.get("headers") or {}).get("WWW-Authenticate", ""):
            # Alex's sessions revoked after a CAE-capable client got its token (the whole second it was issued in
            # must pass first), so that every other provocation's user is untouched.
            headers = {"Authorization": f"Bearer {self.arm_token(user=ALEX, capable=True)}"}
            time.sleep(1.1)
            self.control("POST", f"/_fakeentra/users/{ALEX}/revoke")
        elif code == "InvalidAuthenticationTokenTenant":
            # A personal account's token for the demo organisation's subscription.
            subscriptions = self.session.get(f"{self.server.url}/arm/subscriptions?api-version=2019-11-01", headers=headers).json()["value"]
            headers = {"Authorization": f"Bearer {self.arm_token(user='megan@outlook.com', authority='consumers')}"}
            path = "/subscriptions/" + subscriptions[0]["subscriptionId"]
            query.setdefault("api-version", "2019-11-01")
        if "<" in path or "{" in path:
            path = "/subscriptions"
        segments = path.split("/")
        if len(segments) == 3 and segments[1].lower() == "subscriptions" and recording.response.get("status") == 200:
            # One recorded subscription: the demo one, the mock's own.
            subscriptions = self.session.get(f"{self.server.url}/arm/subscriptions?api-version=2019-11-01", headers=headers).json()["value"]
            path = "/subscriptions/" + subscriptions[0]["subscriptionId"]
        url = f"{self.server.url}/arm{path}" + (("?" + urllib.parse.urlencode(query)) if query else "")
        return Answer.of(self.session.get(url, headers=headers))

    # MARK: managed identities

    def managed_identity(self, recording):
        """IMDS's path and App Service's endpoint on FakeEntra's host, as azure-identity's overrides reach them;
        a recorded client id selects the demo user-assigned identity, unless the answer says it does not exist."""
        parts = urllib.parse.urlsplit(recording.url)
        query = dict(urllib.parse.parse_qsl(parts.query))
        answered = json.dumps(recording.body or {}).lower()
        not_found = "not found" in answered or "unable to load the proper managed identity" in answered
        if "client_id" in query or not_found:
            query["client_id"] = str(uuid.uuid4()) if not_found else DEMO_USER_ASSIGNED_IDENTITY
        # The other selectors of a user-assigned identity name the demo one by its object id or resource id.
        if "object_id" in query:
            query["object_id"] = DEMO_USER_ASSIGNED_OBJECT_ID
        if "msi_res_id" in query:
            query["msi_res_id"] = self.demo_identity_resource_id()
        text = json.dumps(recording.body or {})
        unknown = re.search(r"resource principal named (\S+) was not found", text)
        if unknown or "while fetching the AAD Token" in text:
            # Entra refused the resource IMDS or App Service asked for: one the directory does not hold.
            query["resource"] = unknown.group(1) if unknown else "https://unknown-resource.example.com"
        elif "resource" in query and "://" not in query["resource"]:
            # A recorder that sanitized the requested resource: the answer's resource says what was asked.
            answered = (recording.body or {}).get("resource") if isinstance(recording.body, dict) else None
            query["resource"] = answered or "https://management.core.windows.net/"
        recorded = {k.lower(): v for k, v in (recording.request.get("headers") or {}).items()}
        headers = {}
        if "metadata" in recorded:
            headers["Metadata"] = recorded["metadata"]
        if parts.netloc == "localhost:50342":
            # Cloud Shell's endpoint, under FakeEntra's /cloudshell: a form POSTed (a GET's query as it was);
            # a recorder that kept no form asked for the resource its answer names.
            path = "/cloudshell" + parts.path
            if recording.method == "GET":
                return Answer.of(self.session.get(f"{self.server.url}{path}?{urllib.parse.urlencode(query)}", headers=headers))
            form = dict(recording.form) or {"resource": (recording.body or {}).get("resource", "")}
            return Answer.of(self.session.post(f"{self.server.url}{path}", data=form, headers=headers))
        if parts.netloc == "localhost:40342":
            # An Azure Arc agent: FakeEntra serves it under its own path; a recorded Authorization header is
            # the content of the key file its challenge names, read as a client on the machine reads it.
            path = "/azurearc/metadata/identity/oauth2/token"
            url = f"{self.server.url}{path}?{urllib.parse.urlencode(query)}"
            if "authorization" in recorded:
                realm = self.session.get(url, headers=headers).headers["WWW-Authenticate"].split("=", 1)[1]
                with open(realm, encoding="utf-8") as key:
                    headers["Authorization"] = "Basic " + key.read()
            return Answer.of(self.session.get(url, headers=headers))
        if "secret" in recorded and query.get("api-version") == "2019-07-01-preview":
            # Service Fabric's agent: FakeEntra serves it under its own path.
            path = "/servicefabric/metadata/identity/oauth2/token"
            headers["secret"] = "fakeentra-identity-header"
        elif "clientid" in query and query.get("api-version") == "2017-09-01" and parts.path.rstrip("/") in ("", "/msi/token") and "fake.local" in parts.netloc:
            # Azure ML compute's endpoint (MSI_ENDPOINT), under its own path; its user-assigned identity by `clientid`.
            path = "/azureml/msi/token"
            query["clientid"] = DEMO_USER_ASSIGNED_IDENTITY
            headers["secret"] = "fakeentra-identity-header"
        elif parts.path.startswith("/metadata/"):
            path = "/metadata/identity/oauth2/token"
        elif not parts.path and "--imds-" in recording.name:
            # A source that shows IMDS's answer and not its request: the file's name says which host it was,
            # and the answer that its client sent what every client sends.
            path = "/metadata/identity/oauth2/token"
            headers["Metadata"] = "true"
            query.setdefault("api-version", "2018-02-01")
            query.setdefault("resource", "https://management.azure.com/")
        else:
            path = "/msi/token"
            if not parts.path:
                # No request shown: what azure-identity sends App Service.
                query.setdefault("api-version", "2019-08-01")
                query.setdefault("resource", "https://management.azure.com/")
            headers["secret" if query.get("api-version") == "2017-09-01" else "X-IDENTITY-HEADER"] = "fakeentra-identity-header"
        return Answer.of(self.session.get(f"{self.server.url}{path}?{urllib.parse.urlencode(query)}", headers=headers))

    def demo_identity_resource_id(self):
        """The demo user-assigned identity's Azure resource id, in the demo subscription (resource group demo)."""
        headers = {"Authorization": f"Bearer {self.arm_token()}"}
        subscriptions = self.session.get(f"{self.server.url}/arm/subscriptions?api-version=2019-11-01", headers=headers).json()["value"]
        return (f"/subscriptions/{subscriptions[0]['subscriptionId']}/resourcegroups/demo/providers"
                "/Microsoft.ManagedIdentity/userAssignedIdentities/demo-identity")

    # MARK: native authentication (External ID)

    def native_post(self, client_id, path, **form):
        response = self.session.post(f"{self.server.url}/{EXTERNAL_TENANT}/{path}", data={"client_id": client_id, **form})
        return Answer.of(response)

    def native_sign_up(self, client_id, address, password=None, attributes=None, until="done"):
        """A sign-up walked as the reference describes it; stops at `until` (start, challenge, verified, password, done)."""
        start = {"username": address, "challenge_type": "oob password redirect"}
        if password:
            start["password"] = password
        if attributes:
            start["attributes"] = attributes
        answer = self.native_post(client_id, "signup/v1.0/start", **start)
        if until == "start":
            return answer
        answer = self.native_post(client_id, "signup/v1.0/challenge", challenge_type="oob password redirect", continuation_token=answer.body["continuation_token"])
        if until == "challenge":
            return answer
        code = self.server.outbox(address)[-1]["code"]
        answer = self.native_post(client_id, "signup/v1.0/continue", continuation_token=answer.body["continuation_token"], grant_type="oob", oob=code)
        if until == "verified" or password:
            return answer
        # credential_required: the challenge names the password, which the continue step then takes.
        answer = self.native_post(client_id, "signup/v1.0/challenge", challenge_type="oob password redirect", continuation_token=answer.body["continuation_token"])
        if until == "password-challenge":
            return answer
        answer = self.native_post(client_id, "signup/v1.0/continue", continuation_token=answer.body["continuation_token"], grant_type="password", password="Str0ng!pass")
        if until == "password":
            return answer
        return self.native_post(client_id, "signup/v1.0/continue", continuation_token=answer.body["continuation_token"], grant_type="attributes",
                                attributes='{"displayName": "Fidelity Customer"}')

    def native_auth(self, recording):
        """The native authentication API of the embedded external tenant, each step reached by walking the flow
        before it (codes read from the outbox); a new customer for sign-up and password reset, so the demo
        customer's password is left as it is."""
        path = recording.url.split(".onmicrosoft.com/", 1)[1]
        form = recording.form
        body = recording.body if isinstance(recording.body, dict) else {}
        error = body.get("error")
        client_id = str(uuid.uuid4())
        address = f"fidelity-{uuid.uuid4().hex[:10]}@woodgrove.example"
        challenge_types = form.get("challenge_type", "oob password redirect")
        if path == "signup/v1.0/start":
            return self.native_post(client_id, path, username=EXTERNAL_CUSTOMER if error == "user_already_exists" else address, challenge_type=challenge_types)
        if path == "signup/v1.0/challenge":
            if error:
                started = self.native_sign_up(client_id, address, until="start")
                return self.native_post(client_id, path, challenge_type=challenge_types, continuation_token=started.body["continuation_token"])
            return self.native_sign_up(client_id, address, until="password-challenge" if body.get("challenge_type") == "password" else "challenge")
        if path == "signup/v1.0/continue":
            until = {"oob": "verified", "password": "password"}.get(form.get("grant_type"), "done")
            return self.native_sign_up(client_id, address, until=until)
        if path == "oauth2/v2.0/initiate":
            return self.native_post(client_id, path, username=EXTERNAL_CUSTOMER, challenge_type=challenge_types)
        if path == "oauth2/v2.0/challenge":
            started = self.native_post(client_id, "oauth2/v2.0/initiate", username=EXTERNAL_CUSTOMER, challenge_type=challenge_types)
            return self.native_post(client_id, path, challenge_type=challenge_types, continuation_token=started.body["continuation_token"])
        if path == "oauth2/v2.0/token" and form.get("grant_type") == "continuation_token":
            done = self.native_sign_up(client_id, address)
            return self.native_post(client_id, path, continuation_token=done.body["continuation_token"], username=address,
                                    scope=form.get("scope", "openid offline_access"), grant_type="continuation_token")
        if path == "oauth2/v2.0/token":
            started = self.native_post(client_id, "oauth2/v2.0/initiate", username=EXTERNAL_CUSTOMER, challenge_type="password redirect")
            challenged = self.native_post(client_id, "oauth2/v2.0/challenge", challenge_type="password redirect", continuation_token=started.body["continuation_token"])
            return self.native_post(client_id, path, continuation_token=challenged.body["continuation_token"], grant_type="password",
                                    password=PASSWORD if not error else "wrong-password", scope=form.get("scope", "openid offline_access"))
        if path.startswith("resetpassword/"):
            step = path.rsplit("/", 1)[1]
            if step == "continue" and error:
                return self.native_post(client_id, path, continuation_token="fidelity-not-a-token", grant_type="oob", oob="00000000")
            # A customer of its own with a password, whose reset changes nobody else's.
            self.native_sign_up(client_id, address, password="Str0ng!pass", attributes='{"displayName": "Fidelity Reset"}')
            answer = self.native_post(client_id, "resetpassword/v1.0/start", username=address, challenge_type="oob redirect")
            if step == "start":
                return answer
            answer = self.native_post(client_id, "resetpassword/v1.0/challenge", challenge_type="oob redirect", continuation_token=answer.body["continuation_token"])
            if step == "challenge":
                return answer
            code = self.server.outbox(address)[-1]["code"]
            answer = self.native_post(client_id, "resetpassword/v1.0/continue", continuation_token=answer.body["continuation_token"], grant_type="oob", oob=code)
            if step == "continue":
                return answer
            answer = self.native_post(client_id, "resetpassword/v1.0/submit", continuation_token=answer.body["continuation_token"], new_password="N3w!Passw0rd")
            if step == "submit":
                return answer
            return self.native_post(client_id, "resetpassword/v1.0/poll_completion", continuation_token=answer.body["continuation_token"])
        raise NotImplementedError(f"no native authentication provocation for {path}")

    # MARK: decoded tokens

    def claims(self, recording):
        kind = recording.token_kind or ""
        if kind.startswith("b2c"):
            reply = self.server.sign_in(B2C_USER, scopes=["openid", "offline_access"], tenant=B2C_TENANT, policy="B2C_1_susi")
            token = reply["id_token"] if kind == "b2c-id" else reply.get("access_token") or reply["id_token"]
        elif kind == "v1-access" and "-obo-" in recording.name:
            # Graph's token for a middle tier, from its on-behalf-of exchange.
            reply = self.obo_exchange(f"{self.server.url}/{CONTOSO}/oauth2/v2.0/token", {"scope": GRAPH + "/.default"})
            token = reply.body["access_token"]
        elif kind == "v1-access":
            # A web app's token (appidacr 1: a client secret) or a public client's (0), as recorded.
            url = f"{self.server.url}/{CONTOSO}/oauth2/token"
            form = {"grant_type": "password", "client_id": str(uuid.uuid4()), "username": ADELE, "password": PASSWORD, "resource": GRAPH}
            if recording.claims.get("appidacr") == "1":
                form["client_secret"] = "fidelity-secret"
            reply = self.session.post(url, data=form).json()
            token = reply["access_token"]
        elif kind == "v1-id":
            # ADAL's sign-in: the v1 code flow with a nonce, the id token from the code's redemption.
            reply = self.v1_code_redemption(recording, f"{self.server.url}/{CONTOSO}/oauth2/token", nonce="fidelity-nonce").body
            token = reply["id_token"]
        elif kind == "v2-access":
            api_id = str(uuid.uuid4())
            self.control("POST", "/_fakeentra/apps", json={
                "clientId": api_id, "displayName": "Fidelity v2 API", "tenant": CONTOSO_DOMAIN, "publicClient": False,
                "identifierUris": [f"api://{api_id}"], "exposedScopes": ["access_as_user"], "accessTokenAcceptedVersion": 2})
            reply = self.server.sign_in(ADELE, scopes=["openid", "profile", "offline_access", f"api://{api_id}/access_as_user"])
            token = reply["access_token"]
        else:
            reply = self.server.sign_in(ADELE, scopes=["openid", "profile", "email", "offline_access"])
            token = reply["id_token"]
        header, payload = decode_jwt(token)
        return Answer(200, {}, payload)

    # MARK: custom authentication extensions

    EXTENSION_TENANT, EXTENSION_TENANT_ID = "contososhop.onmicrosoft.com", "5d7f9b1c-3e5a-4c7e-9a1b-4f6a8c0e2d3b"
    EXTENSION_CLIENT = "0c5a7f3e-2d1b-4e8a-9f6c-5b4a3c2d1e0f"
    MIGRATION_FLAG = "extension_0c5a7f3e2d1b4e8a9f6c5b4a3c2d1e0f_toBeMigrated"

    def extension(self, recording, make_server, make_endpoint):
        """The callout FakeEntra POSTs at the recording's event, caught by an endpoint of this run: a customer
        with the recorded user's properties signs in through the pages of an external tenant whose extension
        listens for the app (a customer still to migrate, with a password the account does not have, for
        passwordSubmit). The answer is the callout's body, with the password context opened."""
        from fakeentra.extensions import encryption_certificate, migrate_password, provide_claims

        event = recording.response["body"]["type"].rsplit(".", 1)[-1]
        certificate, private_key = encryption_certificate()

        def answer(call):
            if call.event == "passwordSubmit":
                call.opened = call.password_context(private_key)
                return migrate_password(call.opened["nonce"])
            return provide_claims()

        endpoint = make_endpoint(answer)
        recorded_user = recording.response["body"]["data"]["authenticationContext"]["user"]
        user = {"userPrincipalName": f"{uuid.uuid4()}@{self.EXTENSION_TENANT}", "tenant": self.EXTENSION_TENANT,
                "displayName": recorded_user["displayName"], "mail": "customer@shop.example", "password": "Unguessable-Temp-9f8e7d"}
        user.update({name: recorded_user[name] for name in ("givenName", "surname", "preferredLanguage") if name in recorded_user})
        extension = {"event": event, "targetUrl": endpoint.url, "resourceId": endpoint.resource_id(str(uuid.uuid4())),
                     "applications": [self.EXTENSION_CLIENT]}
        password = user["password"]
        if event == "passwordSubmit":
            user["attributes"] = {self.MIGRATION_FLAG: True}
            extension.update(migrationPropertyId=self.MIGRATION_FLAG, encryptionCertificate=certificate)
            password = "Legacy-Secret-1"
        server = make_server(config={
            "tenants": [{"id": self.EXTENSION_TENANT_ID, "domains": [self.EXTENSION_TENANT], "kind": "external",
                         "customAuthenticationExtensions": [extension]}],
            "apps": [{"clientId": self.EXTENSION_CLIENT, "displayName": "ciam-test-app", "tenant": self.EXTENSION_TENANT,
                      "redirectUris": ["http://localhost/callback"]}],
            "users": [user]})
        server.sign_in(user["mail"], password=password, client_id=self.EXTENSION_CLIENT, tenant=self.EXTENSION_TENANT,
                       scopes=("openid", "profile", "offline_access", "User.Read"))
        call = next(call for call in endpoint.calls if call.event == event)
        caught = Answer(200, {}, call.body)
        caught.password_context = getattr(call, "opened", None)
        token = call.data.get("encryptedPasswordContext")
        caught.password_context_header = json.loads(decode_segment(token.split(".")[0])) if token else None
        return caught

