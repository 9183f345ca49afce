"""`fakeentra browse` over real sockets and TLS: exit codes in the foreground, delivery to a loopback
listener, returning at once in the background, and certificate plus host-name verification."""
import http.server
import os
import pathlib
import ssl
import subprocess
import threading
import time
import urllib.parse
import uuid

import pytest

from harness import ADELE, CONTOSO, PASSWORD


class Listener:
    """An app's loopback redirect listener: records what the browser delivers."""

    def __init__(self):
        self.received = []
        self.arrived = threading.Event()
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self._record("")

            def do_POST(self):
                self._record(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())

            def _record(self, body):
                listener.received.append((self.command, self.path, body))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
                listener.arrived.set()

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def redirect_uri(self):
        return f"http://localhost:{self.port}/"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    app = Listener()
    yield app
    app.close()


def authorize_url(server, redirect_uri, **extra):
    query = {"client_id": str(uuid.uuid4()), "response_type": "code", "redirect_uri": redirect_uri,
             "scope": "openid profile offline_access User.Read", "state": "s-1", "nonce": "n-1",
             "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256", **extra}
    return f"{server.url}/{CONTOSO}/oauth2/v2.0/authorize?" + urllib.parse.urlencode(query)


def browse(*args, user=ADELE, password=PASSWORD, ca=None, foreground=True, tmp=None):
    log = pathlib.Path(tmp or "/tmp") / f"browse-{uuid.uuid4().hex}.log"
    command = [os.environ["FAKEENTRA_BINARY"], "browse", "--username", user, "--password", password, "--log", str(log)]
    if ca:
        command += ["--ca", ca]
    if foreground:
        command.append("--foreground")
    result = subprocess.run(command + list(args), capture_output=True, text=True, timeout=60)
    return result, log


def test_signs_in_and_delivers_the_query(server, listener, tmp_path):
    result, log = browse(authorize_url(server, listener.redirect_uri), ca=server.ca, tmp=tmp_path)
    assert result.returncode == 0, (result.stderr, log.read_text())
    method, path, _ = listener.received[0]
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(path).query))
    assert method == "GET" and query["state"] == "s-1" and query["code"], listener.received
    assert "delivered" in log.read_text()


def test_form_post_is_posted(server, listener, tmp_path):
    result, _ = browse(authorize_url(server, listener.redirect_uri, response_mode="form_post"), ca=server.ca, tmp=tmp_path)
    assert result.returncode == 0, result.stderr
    method, _, body = listener.received[0]
    assert method == "POST" and "code=" in body and "state=s-1" in body


def test_returns_at_once_and_finishes_in_the_background(server, listener, tmp_path):
    started = time.monotonic()
    result, log = browse(authorize_url(server, listener.redirect_uri), ca=server.ca, foreground=False, tmp=tmp_path)
    assert result.returncode == 0 and result.stdout == "", result.stderr
    assert time.monotonic() - started < 5, "the caller is not kept waiting for the sign-in"
    assert listener.arrived.wait(30), log.read_text() if log.exists() else "no log"


def test_exit_codes(server, listener, tmp_path):
    url = authorize_url(server, listener.redirect_uri)
    bad_url, _ = browse("https://localhost/no-redirect-uri", ca=server.ca, tmp=tmp_path)
    assert bad_url.returncode == 64 and "redirect_uri" in bad_url.stderr
    wrong_password, log = browse(url, password="not-it", ca=server.ca, tmp=tmp_path)
    assert wrong_password.returncode == 4, wrong_password.stderr
    assert "refused what was entered" in log.read_text() and "AADSTS50126: Error validating credentials" in log.read_text()
    gone = Listener()
    gone.close()
    unreachable_app, _ = browse(authorize_url(server, gone.redirect_uri), ca=server.ca, tmp=tmp_path)
    assert unreachable_app.returncode == 5, unreachable_app.stderr
    error_page, log = browse(authorize_url(server, listener.redirect_uri).replace(CONTOSO, "nowhere.onmicrosoft.com"), ca=server.ca, tmp=tmp_path)
    assert error_page.returncode == 4 and "AADSTS" in error_page.stderr, error_page.stderr
    # Each failure the app could be told of reached it at once: an error answer with the reason and its state.
    told = [dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(path).query)) for _, path, _ in listener.received]
    assert [answer["error"] for answer in told] == ["access_denied", "access_denied"], listener.received
    assert "AADSTS50126: Error validating credentials due to invalid username or password." in told[0]["error_description"], told
    assert "AADSTS" in told[1]["error_description"] and "&#" not in told[1]["error_description"], told
    assert all(answer["state"] == "s-1" and "code" not in answer for answer in told), told


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory):
    """A CA of its own with two leaf certificates: one for 127.0.0.1, one for another name only."""
    d = tmp_path_factory.mktemp("other-ca")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Other CA", cwd=d)
    for name, san in (("ip", "IP:127.0.0.1"), ("name", "DNS:elsewhere.test")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", "/CN=leaf", cwd=d)
        (d / f"{name}.ext").write_text(f"subjectAltName={san}\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", f"{name}.pem",
                "-days", "2", "-extfile", f"{name}.ext", cwd=d)
    return d


def tls_server(directory, leaf):
    """A one-page https server with `leaf`'s certificate: a page without a form."""
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "20")
            self.end_headers()
            self.wfile.write(b"<p>no form here</p>\n")

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Page)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(directory / f"{leaf}.pem", directory / f"{leaf}.key")
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def test_tls_checks_the_chain_and_the_host_name(server, other_ca, tmp_path):
    redirect = "http://localhost:9/"
    # FakeEntra's certificate is not signed by another CA: refused before any page.
    untrusted, log = browse(authorize_url(server, redirect), ca=str(other_ca / "ca.pem"), tmp=tmp_path)
    assert untrusted.returncode == 3 and "certificate" in untrusted.stderr, untrusted.stderr
    for leaf, expected in (("ip", 4), ("name", 3)):
        httpd = tls_server(other_ca, leaf)
        try:
            url = f"https://127.0.0.1:{httpd.server_address[1]}/authorize?redirect_uri=" + urllib.parse.quote(redirect)
            result, _ = browse(url, ca=str(other_ca / "ca.pem"), tmp=tmp_path)
        finally:
            httpd.shutdown()
            httpd.server_close()
        # The right name: TLS passes and the form-less page is a dead end (4); another name: refused (3).
        assert result.returncode == expected, (leaf, result.stderr)
    assert "mismatch" in result.stderr, result.stderr
