"""Servers and scenario bindings the real-client tests share. A module of its own rather than conftest.py:
`from conftest import …` finds whichever conftest.py a pytest process imported first, which is another
directory's when several test directories run in one process."""
import json
import os
import pathlib
import socket

from fakeentra import FakeEntra


def port_443_available():
    """MSAL Python's username/password flow asks /common/userrealm on port 443 whatever the authority's
    port, so those tests need a server there: root, or a free unprivileged 443."""
    if os.geteuid() == 0:
        return True
    probe = socket.socket()
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", 443))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def RunningServer(args, certs_dir, port=0):
    """A server with extra `serve` options, for module-scoped fixtures (the factory is per test)."""
    return FakeEntra(*args, certs_dir=certs_dir, port=port)


def RunningServerWithConfig(config, certs_dir, folder):
    """A server reading `config` (a dict, written as config.json in `folder`) on top of the embedded defaults."""
    import json
    path = pathlib.Path(folder) / "config.json"
    path.write_text(json.dumps(config))
    return RunningServer(["--config", str(path)], certs_dir)


def bind_scenario(server, scenario, **target):
    """POST /_fakeentra/bindings: binds `scenario` to a clientId, user or tenantAlias+tenant; returns the id."""
    return server.bind(scenario, client_id=target.get("clientId"), user=target.get("user"),
                       tenant_alias=target.get("tenantAlias"), tenant=target.get("tenant"))


def binding_rules(server, binding_id):
    """Each rule's {matched, fired, times} of a binding, in the scenario's order."""
    return server.binding(binding_id)["rules"]


def bound_app(server, scenario, **kwargs):
    """A public MSAL app with a fresh client id, and the id of the binding of `scenario` to that client."""
    import uuid
    from test_msal_public_client import public_app
    client_id = str(uuid.uuid4())
    binding = bind_scenario(server, scenario, clientId=client_id)
    return public_app(server, client_id=client_id, **kwargs), binding
