"""Fidelity: each recorded real response (recordings/*.json) is provoked on FakeEntra — same endpoint, same
kind of request, the same situation made with the control API or a scenario — and the two answers are
compared by structure: keys missing and extra, value types, the values that must be equal (error codes and
strings, token_type, supported lists, claim names), header names, and URL shapes with host, tenant and
policy substituted. Differences FakeEntra keeps on purpose are listed in differences.json with the reason.

Used by test_fidelity.py (one test per recording) and scripts/fidelity (a table per area)."""
import base64
import json
import pathlib
import re
import secrets
import time
import urllib.parse
import uuid

import requests

HERE = pathlib.Path(__file__).resolve().parent
RECORDINGS = HERE / "recordings"
CONTOSO = "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"
CONTOSO_DOMAIN = "contoso.onmicrosoft.com"
B2C_TENANT = "fabrikamb2c.onmicrosoft.com"
ADELE = "adele.vance@contoso.onmicrosoft.com"
ALEX = "alex.wilber@contoso.onmicrosoft.com"
ADELE_ID = "6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51"
ALEX_ID = "b8c5e1d2-7f3a-4b6c-8d9e-0a1b2c3d4e5f"
B2C_USER = "ben@fabrikam.test"
PASSWORD = "Passw0rd!"
GRAPH = "https://graph.microsoft.com"
LOGIN_HOSTS = {"login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net",
               "login.partner.microsoftonline.cn", "login.microsoftonline.us"}
GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# Values compared for equality wherever the key appears (the rest is compared by type and shape).
EQUAL_VALUES = {"token_type", "error", "suberror", "error_codes", "ver", "response_types_supported",
                "response_modes_supported", "subject_types_supported", "id_token_signing_alg_values_supported",
                "token_endpoint_auth_methods_supported", "scopes_supported", "claims_supported",
                "cloud_instance_name", "cloud_graph_host_name", "microsoft_multi_refresh_token",
                "request_uri_parameter_supported", "http_logout_supported", "frontchannel_logout_supported",
                "tenant_region_scope", "foci", "kty", "use", "alg", "@odata.type", "api-version", "code", "idtyp",
                "contentType", "interval"}
# Claims whose values name where the token came from: compared by type, not by URL shape.
LOCATION_SENSITIVE = {"aud", "iss", "idp"}


class Recording:
    def __init__(self, path):
        self.path = path
        self.name = path.stem
        data = json.loads(path.read_text())
        self.data = data
        self.title = data.get("title", "")
        self.area = data.get("area", "other")
        self.request = data.get("request") or {}
        self.response = data.get("response") or {}
        self.claims = data.get("claims")
        self.token_kind = data.get("token")

    @property
    def method(self):
        return (self.request.get("method") or "GET").upper()

    @property
    def url(self):
        return self.request.get("url", "")

    @property
    def form(self):
        # A recorder that kept repeated fields as lists: the first value is the request's.
        return {k: (v[0] if isinstance(v, list) and v else v) for k, v in (self.request.get("form") or {}).items()}

    @property
    def body(self):
        return self.response.get("body")

    @property
    def situation_code(self):
        """The code that names the situation: the last of a chained pair (AADSTS70002 + AADSTS70008)."""
        codes = self.error_codes
        return codes[-1] if codes else None

    @property
    def error_codes(self):
        body = self.body if isinstance(self.body, dict) else {}
        codes = body.get("error_codes") or []
        if not codes:
            match = re.match(r"(AADSTS|AADB2C)(\d+)", body.get("error_description", "") or "")
            if match:
                codes = [int(match.group(2))]
        return codes

    @property
    def is_b2c(self):
        return "b2clogin.com" in self.url or self.area == "b2c" or "/tfp/" in self.url or (self.token_kind or "").startswith("b2c")


def load_recordings():
    return [Recording(p) for p in sorted(RECORDINGS.glob("*.json"))]


class Answer:
    def __init__(self, status, headers, body, text=""):
        self.status = status
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        self.body = body
        self.text = text

    @classmethod
    def of(cls, response):
        try:
            body = response.json()
        except ValueError:
            body = None
        return cls(response.status_code, dict(response.headers), body, response.text)


def decode_segment(text):
    """One base64url segment of a compact JWT or JWE, as bytes."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def decode_jwt(token):
    header, payload = token.split(".")[:2]
    return json.loads(decode_segment(header)), json.loads(decode_segment(payload))


# MARK: comparing

def kind_of(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def url_shape(value, policy_names=()):
    """A URL with its host, tenant and policy names and GUIDs written as placeholders."""
    parts = urllib.parse.urlsplit(value)
    segments = []
    for segment in parts.path.split("/"):
        # OData keys (`users('id@tenant')`, `calendars('AAMk…')`) are values, not shape.
        segment = re.sub(r"\('[^']*'\)", "('{key}')", segment)
        lowered = segment.lower()
        if GUID.fullmatch(segment) or lowered in ("{tenant}", "{tenantid}", "{tid}"):
            segments.append("{tenant}")
        elif lowered.endswith(".onmicrosoft.com") or lowered in ("contoso.com",):
            segments.append("{tenant}")
        elif lowered.startswith("b2c_1") or lowered in policy_names:
            segments.append("{policy}")
        else:
            segments.append(lowered)
    query = urllib.parse.parse_qsl(parts.query)
    query_text = "&".join(sorted(f"{k.lower()}=" + ("{policy}" if v.lower().startswith("b2c_1") else "") for k, v in query))
    host = parts.netloc.lower()
    host_kind = "{login}" if host in LOGIN_HOSTS or host.endswith(".b2clogin.com") or host.startswith("127.0.0.1") or host.startswith("localhost") else host
    return f"{parts.scheme}://{host_kind}" + "/".join(segments) + (f"?{query_text}" if query_text else "")


def compare_values(recorded, actual, path, differences, equal_keys=EQUAL_VALUES):
    key = path.rsplit(".", 1)[-1].rstrip("[]")
    if recorded is None or actual is None:
        # An unset property is null in one answer and a value in the other: data, not structure.
        return
    if kind_of(recorded) != kind_of(actual):
        # A number written as a string (v1's expires_in) is a type difference; so is null vs a value.
        differences.append(f"type {path}: recorded {kind_of(recorded)}, FakeEntra {kind_of(actual)}")
        return
    if isinstance(recorded, dict):
        for name in recorded:
            if name not in actual:
                differences.append(f"missing {path}.{name}".replace("$.", ""))
            else:
                compare_values(recorded[name], actual[name], f"{path}.{name}", differences, equal_keys)
        for name in actual:
            if name not in recorded:
                differences.append(f"extra {path}.{name}".replace("$.", ""))
        return
    if isinstance(recorded, list):
        if key in equal_keys and recorded != actual and not (all(isinstance(x, str) for x in recorded) and sorted(recorded) == sorted(actual)):
            differences.append(f"value {path}: recorded {json.dumps(recorded)}, FakeEntra {json.dumps(actual)}")
            return
        if recorded and actual and isinstance(recorded[0], dict) and isinstance(actual[0], dict):
            # Elements of a collection: the recorded element against FakeEntra's element closest to it
            # (a demo mailbox's first event may have no attendees where the recorded one has two).
            candidates = []
            for element in actual[:50]:
                found = []
                compare_values(recorded[0], element, f"{path}[]", found, equal_keys)
                candidates.append(found)
            differences.extend(min(candidates, key=len))
        elif recorded and not actual:
            differences.append(f"empty {path}: recorded {len(recorded)} element(s), FakeEntra none")
        return
    if key in equal_keys and recorded != actual:
        if isinstance(recorded, str) and isinstance(actual, str) and recorded.lower() == actual.lower() and key in ("token_type",):
            return
        differences.append(f"value {path}: recorded {json.dumps(recorded)}, FakeEntra {json.dumps(actual)}")
        return
    if isinstance(recorded, str) and recorded.startswith("https://") and " " not in recorded and isinstance(actual, str) and key not in LOCATION_SENSITIVE:
        if url_shape(recorded) != url_shape(actual):
            differences.append(f"url {path}: recorded {url_shape(recorded)}, FakeEntra {url_shape(actual)}")


TRACE_JOIN = re.compile(r"(\r\n|\n| )(Trace ID|Correlation ID): ")


def trace_join(description):
    """How an error_description joins its message and its Trace ID / Correlation ID lines: "CRLF", "space" or
    None (no trace lines). An issue paste may have collapsed CRLF into spaces; raw captures keep it."""
    match = TRACE_JOIN.search(description) if isinstance(description, str) else None
    return None if match is None else ("space" if match.group(1) == " " else "CRLF")


def compare(recording, answer):
    """Every structural difference between a recording and FakeEntra's answer, as short strings."""
    differences = []
    if recording.claims is not None:
        # A decoded token shows the claims of one app's configuration (optional claims, scopes asked): every
        # recorded claim must be there with its type; claims FakeEntra adds are not differences.
        compare_values(recording.claims, answer.body, "claims", differences,
                       equal_keys={"ver", "idtyp", "tfp", "acr", "appidacr", "azpacr"})
        return [d for d in differences if not d.startswith("extra ")]
    status = recording.response.get("status")
    if status is not None and status != answer.status:
        differences.append(f"status: recorded {status}, FakeEntra {answer.status}")
    for name, value in (recording.response.get("headers") or {}).items():
        lowered = name.lower()
        if isinstance(value, list):
            value = ", ".join(value)
        if lowered not in answer.headers:
            differences.append(f"missing header {lowered}")
        elif lowered in ("content-type",):
            recorded_type = value.split(";")[0].strip().lower()
            actual_type = answer.headers[lowered].split(";")[0].strip().lower()
            if recorded_type != actual_type:
                differences.append(f"value header content-type: recorded {recorded_type}, FakeEntra {actual_type}")
        elif lowered in ("access-control-allow-methods", "access-control-allow-origin", "cache-control"):
            tokens = lambda text: sorted(part.strip().lower() for part in text.split(","))
            if tokens(value) != tokens(answer.headers[lowered]):
                differences.append(f"value header {lowered}: recorded {value}, FakeEntra {answer.headers[lowered]}")
    recorded_body = recording.body
    if getattr(recording, "area", None) == "extension":
        compare_callout(recording, answer, differences)
    if recorded_body is not None:
        compare_values(recorded_body, answer.body, "body", differences)
        if isinstance(recorded_body, dict) and isinstance(answer.body, dict):
            recorded_join, actual_join = trace_join(recorded_body.get("error_description")), trace_join(answer.body.get("error_description"))
            if recorded_join and actual_join and recorded_join != actual_join:
                differences.append(f"trace lines of body.error_description: recorded joined by {recorded_join}, FakeEntra by {actual_join}")
    elif "bodyText" in recording.response and answer.body is not None and recording.response["bodyText"].lstrip().startswith("{"):
        differences.append("body: recorded text, FakeEntra JSON")
    return differences


def compare_callout(recording, answer, differences):
    """A callout's event is its `type`; a password context is compared as decoded, its header's suite by
    value (the claims' values are the sign-in's own)."""
    recorded_type, actual_type = recording.body.get("type"), (answer.body or {}).get("type")
    if recorded_type != actual_type:
        differences.append(f"value body.type: recorded {json.dumps(recorded_type)}, FakeEntra {json.dumps(actual_type)}")
    if "passwordContext" in recording.data:
        compare_values(recording.data["passwordContext"], getattr(answer, "password_context", None) or {}, "passwordContext", differences)
        compare_values(recording.data["passwordContextHeader"], getattr(answer, "password_context_header", None) or {}, "passwordContextHeader",
                       differences, equal_keys=EQUAL_VALUES | {"enc", "zip"})


# MARK: the documented differences

class KnownDifferences:
    """differences.json: [{"recordings": [names] or "*", "difference": regex, "reason": text, "gap"?: true}].
    An entry with `gap` is a behaviour of the service FakeEntra does not model yet, shown as such; the others
    are differences it keeps on purpose."""

    def __init__(self, path=HERE / "differences.json"):
        self.entries = json.loads(path.read_text()) if path.exists() else []
        for entry in self.entries:
            entry["pattern"] = re.compile(entry["difference"])

    def reason(self, recording, difference):
        for entry in self.entries:
            names = entry.get("recordings", "*")
            if (names == "*" or recording.name in names) and entry["pattern"].search(difference):
                return ("not modelled yet: " if entry.get("gap") else "") + entry["reason"]
        return None

    def split(self, recording, differences):
        """(unexplained, explained as (difference, reason))."""
        unexplained, explained = [], []
        for difference in differences:
            reason = self.reason(recording, difference)
            if reason:
                explained.append((difference, reason))
            else:
                unexplained.append(difference)
        return unexplained, explained
