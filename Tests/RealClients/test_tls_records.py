"""How requests arrive in TLS records, driven by Python's own TLS (OpenSSL through the `ssl` module's
memory BIOs, so the test decides exactly which bytes go in which record and which records share one
TCP send). The server reads records ahead: one read of the socket can bring several records, and what it
does not decrypt at once stays in OpenSSL's buffer, where no readiness report announces it. Every
request must still be answered, in order; a socket timeout turns a stalled answer into a failure."""
import socket
import ssl
import urllib.parse

CONTOSO = "contoso.onmicrosoft.com"
TOKEN_BODY = ("grant_type=client_credentials&client_id=2f0e3c1a-5b7d-4e9f-8a6c-1d2e3f4a5b6c&client_secret=s"
              "&scope=https%3A%2F%2Fgraph.microsoft.com%2F.default")


class RecordClient:
    """A TLS client whose records the test composes: `record(bytes)` makes one TLS record, `flush()` sends
    every record made so far in one `sendall`."""

    def __init__(self, server, maximum_version=None, send_finished=True):
        parts = urllib.parse.urlsplit(server.url)
        self.host = parts.hostname
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=20)
        context = ssl.create_default_context(cafile=server.ca)
        if maximum_version:
            context.maximum_version = maximum_version
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_hostname=parts.hostname)
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self.flush()
                self._receive()
        # Unsent, the handshake's last flight leaves with the first records the test makes.
        if send_finished:
            self.flush()
        self.plain = b""

    def record(self, data):
        assert len(data) <= 16384
        self.tls.write(data)

    def flush(self):
        pending = self.outgoing.read()
        if pending:
            self.sock.sendall(pending)

    def _receive(self):
        data = self.sock.recv(65536)  # a stalled server raises socket.timeout here
        assert data, "the server closed the connection"
        self.incoming.write(data)

    def response(self):
        """The next response: (status line, body)."""
        while b"\r\n\r\n" not in self.plain:
            self._fill()
        head, rest = self.plain.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        length = next(int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:"))
        while len(rest) < length:
            self.plain += self._fill() or b""
            head, rest = self.plain.split(b"\r\n\r\n", 1)
        self.plain = rest[length:]
        return lines[0], rest[:length]

    def _fill(self):
        while True:
            try:
                chunk = self.tls.read(65536)
                self.plain += chunk
                return chunk
            except ssl.SSLWantReadError:
                self._receive()

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def health(host, last=False):
    return f"GET /_fakeentra/health HTTP/1.1\r\nHost: {host}\r\n{'Connection: close' + chr(13) + chr(10) if last else ''}\r\n".encode()


def token_request(host):
    return (f"POST /{CONTOSO}/oauth2/v2.0/token HTTP/1.1\r\nHost: {host}\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(TOKEN_BODY)}\r\n\r\n{TOKEN_BODY}").encode()


def test_records_sent_together_are_each_answered_in_order(server):
    with RecordClient(server) as client:
        # Three requests, each its own record, in one TCP send: one read of the socket brings them all.
        client.record(token_request(client.host))
        client.record(health(client.host))
        client.record(token_request(client.host))
        client.flush()
        statuses = [client.response() for _ in range(3)]
        assert [status for status, _ in statuses] == ["HTTP/1.1 200 OK"] * 3
        assert b'"access_token"' in statuses[0][1] and b'"access_token"' in statuses[2][1]
        assert b'"access_token"' not in statuses[1][1]
        # The connection is still usable after the burst.
        client.record(health(client.host))
        client.flush()
        assert client.response()[0] == "HTTP/1.1 200 OK"


def test_a_request_split_over_many_small_records_sent_at_once(server):
    with RecordClient(server) as client:
        request = token_request(client.host) + health(client.host)
        for start in range(0, len(request), 7):
            client.record(request[start:start + 7])
        client.flush()
        first, second = client.response(), client.response()
        assert first[0] == "HTTP/1.1 200 OK" and b'"access_token"' in first[1]
        assert second[0] == "HTTP/1.1 200 OK"


def test_a_record_cut_across_two_sends(server):
    with RecordClient(server) as client:
        client.record(token_request(client.host))
        client.record(health(client.host, last=True))
        wire = client.outgoing.read()
        # The first send ends inside the second record's header: the server holds a whole record and
        # a fragment, answers the first request and waits for the rest of the second.
        first_length = int.from_bytes(wire[3:5], "big")
        cut = 5 + first_length + 2
        client.sock.sendall(wire[:cut])
        assert client.response()[0] == "HTTP/1.1 200 OK"
        client.sock.sendall(wire[cut:])
        assert client.response()[0] == "HTTP/1.1 200 OK"


def test_the_first_request_in_the_same_send_as_the_handshakes_last_flight(server):
    # TLS 1.3: the client's Finished is the handshake's last flight (in TLS 1.2 the server's is).
    with RecordClient(server, send_finished=False) as client:
        assert client.tls.version() == "TLSv1.3"
        client.record(token_request(client.host))
        client.record(health(client.host))
        client.flush()
        first, second = client.response(), client.response()
        assert first[0] == "HTTP/1.1 200 OK" and b'"access_token"' in first[1]
        assert second[0] == "HTTP/1.1 200 OK"


def test_records_sent_together_over_tls_1_2(server):
    with RecordClient(server, maximum_version=ssl.TLSVersion.TLSv1_2) as client:
        assert client.tls.version() == "TLSv1.2"
        for _ in range(3):
            client.record(health(client.host))
        client.flush()
        assert [client.response()[0] for _ in range(3)] == ["HTTP/1.1 200 OK"] * 3


def test_a_request_followed_by_close_notify_in_one_send(server):
    with RecordClient(server) as client:
        client.record(token_request(client.host))
        try:
            client.tls.unwrap()  # writes close_notify, then wants the server's
        except ssl.SSLWantReadError:
            pass
        client.flush()
        status, body = client.response()
        assert status == "HTTP/1.1 200 OK" and b'"access_token"' in body


def test_clients_that_start_a_handshake_and_stop_keep_no_one_out(make_server):
    """Hundreds of connections that sent 3 bytes of a record, and hundreds that sent a whole ClientHello
    and never answered the server's flight (more than the server's handshake slots): a new client's
    handshake still completes, within the 10 s its socket allows (the stalled ones hold their places
    until their own deadlines otherwise)."""
    import resource
    server = make_server()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 2048)), hard))
    parts = urllib.parse.urlsplit(server.url)
    context = ssl._create_unverified_context()
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    try:
        context.wrap_bio(incoming, outgoing, server_hostname=parts.hostname).do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outgoing.read()
    held = []
    try:
        for payload in [b"\x16\x03\x01"] * 400 + [hello] * 400:
            connection = socket.create_connection((parts.hostname, parts.port), timeout=10)
            connection.sendall(payload)
            held.append(connection)
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as raw, \
                ssl.create_default_context(cafile=server.ca).wrap_socket(raw, server_hostname=parts.hostname) as tls:
            tls.sendall(f"GET /_fakeentra/health HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode())
            assert tls.recv(64).startswith(b"HTTP/1.1 200")
    finally:
        for connection in held:
            connection.close()
