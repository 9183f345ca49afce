"""An HTTP CONNECT proxy on loopback for clients that only talk to the real service's host names: it maps
"host:port" onto the FakeEntra server (a hosts file cannot map *.ciamlogin.com, nor run without root)."""
import select
import socket
import socketserver
import threading


class ConnectProxy:
    """HTTP CONNECT proxy on loopback: `routes` maps "host:port" to (host, port); other loopback targets pass
    through; anything else (another host, a plain-HTTP proxy request) gets 403 and is logged as refused."""

    # az's first run in a config dir fetches the latest versions (core/util.py handle_version_update ->
    # get_cached_latest_versions -> https://azcliprod.blob.core.windows.net/cli/...): refused, and harmless.
    KNOWN = ("azcliprod.blob.core.windows.net:443",)

    def __init__(self, routes=()):
        self.routes, self.log = dict(routes), []
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                self.request.settimeout(30)
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = self.request.recv(4096)
                    if not chunk:
                        return
                    head += chunk
                method, target, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
                host, _, port = target.rpartition(":")
                route = proxy.routes.get(target)
                if route is None and host.strip("[]") in ("127.0.0.1", "localhost", "::1") and port.isdigit():
                    route = (host.strip("[]"), int(port))
                proxy.log.append((method, target, route))
                if method != "CONNECT" or route is None:
                    self.request.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                try:
                    upstream = socket.create_connection(route, timeout=10)
                except OSError:
                    self.request.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                self.request.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                try:
                    while True:
                        readable, _, _ = select.select([self.request, upstream], [], [], 60)
                        if not readable:
                            return
                        for s in readable:
                            data = s.recv(65536)
                            if not data:
                                return
                            (upstream if s is self.request else self.request).sendall(data)
                except OSError:
                    return
                finally:
                    upstream.close()

        class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.environment = {"HTTPS_PROXY": self.url, "https_proxy": self.url, "HTTP_PROXY": self.url,
                            "http_proxy": self.url, "NO_PROXY": "", "no_proxy": "", "ALL_PROXY": "", "all_proxy": ""}
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def refused(self):
        return [(m, t) for m, t, r in self.log if r is None and t not in self.KNOWN]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
