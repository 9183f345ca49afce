"""A custom authentication extension endpoint for tests: the REST API Entra calls at token issuance, at
External ID's attribute collection and at its password submission (just-in-time migration), standing in for the developer's Azure Function so a test can decide
what it answers and see what it was sent.

    with ExtensionEndpoint(lambda call: provide_claims(loyaltyTier="gold")) as endpoint:
        server = fakeentra_factory(config={"tenants": [{..., "customAuthenticationExtensions": [
            {"event": "tokenIssuanceStart", "targetUrl": endpoint.url, "resourceId": endpoint.resource_id(API_APP_ID),
             "applications": [CLIENT_ID]}]}]})

It listens on http://localhost (FakeEntra calls http only on this machine, and not with --strict). Each call
is kept in `calls` with its JSON body and the claims of its bearer token; `verify_with(server)` makes the
endpoint check that token's signature against the server's JWKS, as a real endpoint must.
"""
import base64
import http.server
import json
import threading
import time


class ExtensionCall:
    """One request the service made: `event` (tokenIssuanceStart…), `body`, `token_claims`, `authorization`."""

    def __init__(self, body, authorization, token_claims):
        self.body = body
        self.authorization = authorization
        self.token_claims = token_claims
        self.event = (body.get("type") or "").rsplit(".", 1)[-1]

    @property
    def data(self):
        return self.body.get("data") or {}

    @property
    def context(self):
        return self.data.get("authenticationContext") or {}

    def password_context(self, private_key_pem):
        """passwordSubmit: the claims of `encryptedPasswordContext` (`user-password`, `username`, `nonce`…),
        opened with the private key of the extension's encryption certificate; needs `cryptography`."""
        return _open_password_context(self.data["encryptedPasswordContext"], private_key_pem)

    @property
    def attributes(self):
        """attributeCollection events: the values as sent, by name."""
        attributes = (self.data.get("userSignUpInfo") or {}).get("attributes") or {}
        return {name: value.get("value") for name, value in attributes.items()}


class Answer:
    """A raw answer, for endpoints that misbehave: any status, content type, body or delay."""

    def __init__(self, status=200, body=b"", content_type="application/json", delay=0.0):
        self.status, self.body, self.content_type, self.delay = status, body, content_type, delay


def _response(data_type, action):
    return {"data": {"@odata.type": f"microsoft.graph.{data_type}", "actions": [action]}}


def provide_claims(**claims):
    """tokenIssuanceStart: claims for the token (strings or lists of strings)."""
    return _response("onTokenIssuanceStartResponseData",
                     {"@odata.type": "microsoft.graph.tokenIssuanceStart.provideClaimsForToken", "claims": claims})


def continue_with_default_behavior(event):
    """attributeCollectionStart or attributeCollectionSubmit: carry on."""
    kind = event[0].upper() + event[1:]
    return _response(f"on{kind}ResponseData", {"@odata.type": f"microsoft.graph.{event}.continueWithDefaultBehavior"})


def set_prefill_values(**inputs):
    """attributeCollectionStart: values the sign-up page shows already filled in."""
    return _response("onAttributeCollectionStartResponseData",
                     {"@odata.type": "microsoft.graph.attributeCollectionStart.setPrefillValues", "inputs": inputs})


def show_block_page(event, message=None):
    """attributeCollectionStart or attributeCollectionSubmit: the sign-up stops on a page saying `message`."""
    kind = event[0].upper() + event[1:]
    action = {"@odata.type": f"microsoft.graph.{event}.showBlockPage"}
    if message is not None:
        action["message"] = message
    return _response(f"on{kind}ResponseData", action)


def modify_attribute_values(**attributes):
    """attributeCollectionSubmit: the values stored instead of those entered."""
    return _response("onAttributeCollectionSubmitResponseData",
                     {"@odata.type": "microsoft.graph.attributeCollectionSubmit.modifyAttributeValues", "attributes": attributes})


def show_validation_error(message, **attribute_errors):
    """attributeCollectionSubmit: the page again, with `message` and an error under each attribute named."""
    return _response("onAttributeCollectionSubmitResponseData",
                     {"@odata.type": "microsoft.graph.attributeCollectionSubmit.showValidationError",
                      "message": message, "attributeErrors": attribute_errors})


def _password_submit(action, nonce, **members):
    answer = _response("onPasswordSubmitResponseData", {"@odata.type": f"microsoft.graph.passwordSubmit.{action}", **members})
    answer["data"]["nonce"] = nonce
    return answer


def migrate_password(nonce):
    """passwordSubmit: the legacy system knows this password; it becomes the account's."""
    return _password_submit("MigratePassword", nonce)


def update_password(nonce):
    """passwordSubmit: the password is right but weak or expired; it is kept and must be changed now."""
    return _password_submit("UpdatePassword", nonce)


def retry_password(nonce):
    """passwordSubmit: the password is wrong; the person may try again."""
    return _password_submit("Retry", nonce)


def block_sign_in(nonce, title=None, message=None):
    """passwordSubmit: the sign-in stops, on a page with `title` and `message`."""
    members = {name: value for name, value in (("title", title), ("message", message)) if value is not None}
    return _password_submit("Block", nonce, **members)


def encryption_certificate(common_name="JitMigration"):
    """passwordSubmit: a self-signed RSA certificate for the extension app (`encryptionCertificate`, PEM)
    and its private key (PEM, for `password_context`); needs `cryptography`."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    return (certificate.public_bytes(serialization.Encoding.PEM).decode(),
            key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode())


def _b64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _open_password_context(token, private_key_pem):
    """RSA-OAEP and A128CBC-HS256 (RFC 7516, RFC 7518 section 5.2), then `zip: DEF`."""
    import hmac
    import zlib

    from cryptography.hazmat.primitives import hashes, padding as block_padding, serialization
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    encoded_header, wrapped, iv, ciphertext, tag = token.split(".")
    header = json.loads(_b64(encoded_header))
    assert header["alg"] == "RSA-OAEP" and header["enc"] == "A128CBC-HS256", header
    key = serialization.load_pem_private_key(private_key_pem if isinstance(private_key_pem, bytes) else private_key_pem.encode(), None)
    content_key = key.decrypt(_b64(wrapped), padding.OAEP(padding.MGF1(hashes.SHA1()), hashes.SHA1(), None))
    aad = encoded_header.encode()
    mac = hmac.new(content_key[:16], aad + _b64(iv) + _b64(ciphertext) + (len(aad) * 8).to_bytes(8, "big"), "sha256").digest()
    if not hmac.compare_digest(mac[:16], _b64(tag)):
        raise ValueError("the password context's authentication tag does not match")
    decryptor = Cipher(algorithms.AES(content_key[16:]), modes.CBC(_b64(iv))).decryptor()
    unpadder = block_padding.PKCS7(128).unpadder()
    plaintext = unpadder.update(decryptor.update(_b64(ciphertext)) + decryptor.finalize()) + unpadder.finalize()
    if header.get("zip") == "DEF":
        plaintext = zlib.decompress(plaintext, -15)
    return json.loads(plaintext)


def _claims(authorization):
    try:
        payload = authorization.split(" ", 1)[1].split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return None


class ExtensionEndpoint:
    """An extension endpoint on http://localhost:<port>/; `handler(call)` returns a dict (200 JSON), an
    `Answer`, or raises to answer 500. Without a handler it continues (attribute events) or provides no
    claims (token issuance)."""

    def __init__(self, handler=None, path="/api/extension"):
        self.handler = handler
        self.calls = []
        self._verifier = None
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                authorization = self.headers.get("Authorization") or ""
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                call = ExtensionCall(body, authorization, _claims(authorization))
                endpoint.calls.append(call)
                if endpoint._verifier and not endpoint._verifier(authorization):
                    return self._send(Answer(401, b'{"error":"invalid_token"}'))
                try:
                    answer = endpoint.handler(call) if endpoint.handler else endpoint._default(call)
                except Exception as error:  # the test's handler failed: the service sees a 500
                    answer = Answer(500, json.dumps({"error": str(error)}).encode())
                self._send(answer if isinstance(answer, Answer) else Answer(200, json.dumps(answer).encode()))

            def _send(self, answer):
                if answer.delay:
                    time.sleep(answer.delay)
                body = answer.body if isinstance(answer.body, bytes) else str(answer.body).encode()
                try:
                    self.send_response(answer.status)
                    if answer.content_type:
                        self.send_header("Content-Type", answer.content_type)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the service gave up waiting (a timeout the test asked for)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://localhost:{self.port}{path}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @staticmethod
    def _default(call):
        if call.event == "tokenIssuanceStart":
            return provide_claims()
        if call.event == "passwordSubmit":
            raise ValueError("a passwordSubmit endpoint needs a handler: it must open the password context to answer")
        return continue_with_default_behavior(call.event)

    @staticmethod
    def resource_id(app_id):
        """`authenticationConfiguration.resourceId` for this endpoint: api://localhost/{app id}."""
        return f"api://localhost/{app_id}"

    def verify_with(self, server, audience=None):
        """Refuse (401) a call whose bearer token is not signed by `server`'s keys, not from the service's
        caller app, or (with `audience`) for another API app; needs PyJWT."""
        import jwt

        keys = jwt.PyJWKClient(f"{server.url}/common/discovery/v2.0/keys", ssl_context=_context(server.ca))

        def verify(authorization):
            try:
                token = authorization.split(" ", 1)[1]
                claims = jwt.decode(token, keys.get_signing_key_from_jwt(token).key, algorithms=["RS256"],
                                    audience=audience, options={"verify_aud": audience is not None})
            except Exception:
                return False
            return claims.get("azp") == "99045fe1-7639-4a75-9d4a-577b6ca3810f"

        self._verifier = verify
        return self

    def close(self):
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _context(ca):
    import ssl

    return ssl.create_default_context(cafile=ca)
