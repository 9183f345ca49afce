"""A small Flask web API protected by Microsoft Entra ID access tokens: it validates the bearer token's
signature against the tenant's published keys, its issuer, audience and lifetime, then checks a scope.
Nothing in it knows about FakeEntra: pointed at login.microsoftonline.com it works the same."""
import ssl

import jwt
from flask import Flask, g, jsonify, request


def create_app(authority, audience, ca_file=None):
    """`authority` is `https://<host>/<tenant id>` (v2.0 tokens); `audience` the API's client id or URI."""
    app = Flask(__name__)
    context = ssl.create_default_context(cafile=ca_file) if ca_file else None
    keys = jwt.PyJWKClient(f"{authority}/discovery/v2.0/keys", ssl_context=context)
    issuer = f"{authority}/v2.0"

    def require(scope):
        def decorator(view):
            def guarded(*args, **kwargs):
                header = request.headers.get("Authorization", "")
                if not header.startswith("Bearer "):
                    return _challenge("invalid_request", "missing bearer token")
                token = header[len("Bearer "):]
                try:
                    key = keys.get_signing_key_from_jwt(token)
                    g.claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=audience, issuer=issuer)
                except jwt.PyJWTError as error:
                    return _challenge("invalid_token", str(error))
                if scope not in g.claims.get("scp", "").split():
                    return _challenge("insufficient_scope", f"the token lacks the {scope} scope", 403)
                return view(*args, **kwargs)
            guarded.__name__ = view.__name__
            return guarded
        return decorator

    @app.get("/api/hello")
    @require("Hello.Read")
    def hello():
        return jsonify(message=f"Hello, {g.claims.get('name')}", user=g.claims.get("preferred_username"))

    return app


def _challenge(error, description, status=401):
    response = jsonify(error=error, error_description=description)
    response.status_code = status
    response.headers["WWW-Authenticate"] = f'Bearer error="{error}", error_description="{description}"'
    return response
