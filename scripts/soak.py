"""Soak client for scripts/soak: N requests over C keep-alive connections, in a mix that looks like a
population of apps using FakeEntra (health, discovery, every grant, Graph, sign-in pages), and samples the
server's resident memory and open file descriptors while it runs. Not a test: it prints figures.

Each connection plays one app instance with one signed-in user, as MSAL does: it keeps its cookies and
its latest refresh token, signs in through the pages (prompt=login, so the pages render every cycle),
redeems the code with PKCE, refreshes, calls Graph with its access token, and also runs the password,
client-credentials and device-code grants. Every response is checked against the status (and for some,
the body) the real service would give; anything else, a dropped connection or a timeout is an error.
"""
import argparse
import asyncio
import base64
import hashlib
import json
import multiprocessing
import os
import re
import signal
import ssl
import sys
import time
import urllib.parse
import uuid

TENANT = "contoso.onmicrosoft.com"
USER, PASSWORD = "alex.wilber@contoso.onmicrosoft.com", "Passw0rd!"
REDIRECT = "http://localhost"
SCOPES = "openid profile offline_access User.Read User.ReadBasic.All Calendars.Read"
CTX = re.compile(rb'name="ctx" value="([^"]+)"')
ACTION = re.compile(rb'<form[^>]*action="([^"]+)"')


class SoakError(Exception):
    """A request failed (already counted); the app starts its next cycle."""


class BudgetSpent(Exception):
    """This process has sent its share of the requests."""


class Connection:
    """One HTTP/1.1 keep-alive connection with just enough of the protocol for FakeEntra's answers."""

    def __init__(self, host, port, tls, timeout):
        self.host, self.port, self.tls, self.timeout = host, port, tls, timeout
        self.reader = self.writer = None

    async def open(self):
        context = None
        if self.tls:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        self.reader, self.writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.port, ssl=context), self.timeout)

    def close(self):
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    async def request(self, method, target, headers=None, form=None):
        if self.writer is None:
            await self.open()
        body = urllib.parse.urlencode(form).encode() if form is not None else b""
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        if form is not None:
            lines.append("Content-Type: application/x-www-form-urlencoded")
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        return await asyncio.wait_for(self._response(method), self.timeout)

    async def _response(self, method):
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head[:-4].split(b"\r\n")
        status = int(status_line.split(b" ", 2)[1])
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(b":")
            headers.setdefault(name.strip().lower().decode(), []).append(value.strip().decode("latin-1"))
        if method == "HEAD" or status in (204, 304):
            body = b""
        elif "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"][0]))
        elif "chunked" in ",".join(headers.get("transfer-encoding", [])).lower():
            body = b""
            while (size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)) > 0:
                body += await self.reader.readexactly(size)
                await self.reader.readexactly(2)
            while await self.reader.readuntil(b"\r\n") != b"\r\n":
                pass
        else:
            body = await self.reader.read()
            self.close()
        if "close" in ",".join(headers.get("connection", [])).lower():
            self.close()
        return status, headers, body


def pkce():
    verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class App:
    """One app instance on one connection: its client id, cookies, refresh and access tokens."""

    def __init__(self, connection, stats, budget):
        self.c, self.stats, self.budget = connection, stats, budget
        self.client_id = str(uuid.uuid4())
        self.confidential_id, self.secret = str(uuid.uuid4()), base64.b64encode(os.urandom(18)).decode()
        self.cookies = {}
        self.refresh_token = self.access_token = None

    async def call(self, kind, method, target, expect, headers=None, form=None, check=None):
        if not self.budget.take():
            raise BudgetSpent
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            status, response_headers, body = await self.c.request(method, target, headers, form)
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, asyncio.LimitOverrunError, ValueError) as error:
            self.c.close()
            self.stats.error(kind, f"transport: {type(error).__name__} {error}")
            raise SoakError(kind)
        for cookie in response_headers.get("set-cookie", []):
            name, _, rest = cookie.partition("=")
            value = rest.split(";", 1)[0]
            if "max-age=0" in cookie.lower():
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        if status not in expect or (check is not None and not check(status, response_headers, body)):
            self.stats.error(kind, f"{method} {target[:80]} -> {status} {body[:300]!r}")
            raise SoakError(kind)
        self.stats.ok(kind)
        return status, response_headers, body

    async def sign_in(self):
        """Authorization code flow with PKCE through the sign-in (and, the first time, consent) pages."""
        verifier, challenge = pkce()
        query = urllib.parse.urlencode({
            "client_id": self.client_id, "response_type": "code", "redirect_uri": REDIRECT, "scope": SCOPES,
            "state": "s", "nonce": "n", "code_challenge": challenge, "code_challenge_method": "S256",
            "prompt": "login", "login_hint": USER, "client_info": "1"})
        status, headers, body = await self.call("page:authorize", "GET", f"/{TENANT}/oauth2/v2.0/authorize?{query}", {200})
        for _ in range(4):
            if status == 302:
                location = headers["location"][0]
                code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query).get("code")
                if not code:
                    self.stats.error("page:redirect", location[:200])
                    raise SoakError("page:redirect")
                break
            ctx, action = CTX.search(body), ACTION.search(body)
            if not ctx or not action:
                self.stats.error("page:form", body[:300].decode(errors="replace"))
                raise SoakError("page:form")
            fields = {"ctx": ctx.group(1).decode()}
            if b'name="passwd"' in body:
                kind = "page:signin"
                fields.update({"action": "signin", "login": USER, "passwd": PASSWORD})
            else:
                kind, fields["action"] = "page:consent", "accept"
            target = action.group(1).decode().replace("&amp;", "&")
            status, headers, body = await self.call(kind, "POST", target, {200, 302}, form=fields)
        else:
            self.stats.error("page:loop", "no redirect after four pages")
            raise SoakError("page:loop")
        _, _, body = await self.call("grant:authorization_code", "POST", f"/{TENANT}/oauth2/v2.0/token", {200}, form={
            "client_id": self.client_id, "grant_type": "authorization_code", "code": code[0],
            "redirect_uri": REDIRECT, "code_verifier": verifier, "scope": SCOPES, "client_info": "1"},
            check=has_tokens("access_token", "refresh_token", "id_token"))
        self.remember(body)

    def remember(self, body):
        tokens = json.loads(body)
        self.access_token = tokens["access_token"]
        self.refresh_token = tokens.get("refresh_token", self.refresh_token)

    async def discovery(self):
        await self.call("health", "GET", "/_fakeentra/health", {200})
        await self.call("discovery:openid", "GET", f"/{TENANT}/v2.0/.well-known/openid-configuration", {200}, check=json_with("issuer"))
        await self.call("discovery:keys", "GET", "/common/discovery/v2.0/keys", {200}, check=json_with("keys"))
        await self.call("discovery:instance", "GET", "/common/discovery/instance?api-version=1.1&authorization_endpoint="
                        "https://login.microsoftonline.com/common/oauth2/v2.0/authorize", {200}, check=json_with("metadata"))
        await self.call("discovery:b2c", "GET", "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/v2.0/.well-known/openid-configuration", {200})

    async def graph(self):
        bearer = {"Authorization": f"Bearer {self.access_token}"}
        await self.call("graph:me", "GET", "/v1.0/me", {200}, headers=bearer, check=json_with("userPrincipalName"))
        await self.call("graph:users", "GET", "/v1.0/users?$top=5&$select=id,displayName", {200}, headers=bearer, check=json_with("value"))
        await self.call("graph:events", "GET", "/v1.0/me/events?$top=3", {200}, headers=bearer, check=json_with("value"))
        await self.call("graph:calendarView", "GET", "/v1.0/me/calendarView?startDateTime=2026-01-01T00:00:00Z"
                        "&endDateTime=2027-01-01T00:00:00Z&$top=5", {200}, headers=bearer, check=json_with("value"))
        await self.call("health", "GET", "/_fakeentra/health", {200})

    async def cycle(self):
        """28 requests: what an app does in a while. Discovery and Graph calls outnumber sign-ins, as in real use."""
        await self.discovery()
        await self.sign_in()
        await self.graph()
        await self.graph()
        _, _, body = await self.call("grant:refresh_token", "POST", f"/{TENANT}/oauth2/v2.0/token", {200}, form={
            "client_id": self.client_id, "grant_type": "refresh_token", "refresh_token": self.refresh_token,
            "scope": SCOPES, "client_info": "1"}, check=has_tokens("access_token", "refresh_token"))
        self.remember(body)
        await self.graph()
        await self.call("grant:password", "POST", f"/{TENANT}/oauth2/v2.0/token", {200}, form={
            "client_id": self.client_id, "grant_type": "password", "username": USER, "password": PASSWORD,
            "scope": "User.Read openid profile"}, check=has_tokens("access_token"))
        await self.call("grant:client_credentials", "POST", f"/{TENANT}/oauth2/v2.0/token", {200}, form={
            "client_id": self.confidential_id, "client_secret": self.secret, "grant_type": "client_credentials",
            "scope": "https://graph.microsoft.com/.default"}, check=has_tokens("access_token"))
        _, _, body = await self.call("grant:devicecode", "POST", f"/{TENANT}/oauth2/v2.0/devicecode", {200}, form={
            "client_id": self.client_id, "scope": "User.Read"}, check=json_with("device_code"))
        await self.call("grant:device_code(pending)", "POST", f"/{TENANT}/oauth2/v2.0/token", {400}, form={
            "client_id": self.client_id, "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            "device_code": json.loads(body)["device_code"]}, check=json_with_value("error", "authorization_pending"))

    async def run(self):
        while True:
            try:
                await self.cycle()
            except SoakError:
                continue
            except BudgetSpent:
                return


def json_with(member):
    return lambda status, headers, body: member in json.loads(body)


def json_with_value(member, value):
    return lambda status, headers, body: json.loads(body).get(member) == value


def has_tokens(*names):
    return lambda status, headers, body: all(json.loads(body).get(n) for n in names)


class Budget:
    """The requests this process may still send."""

    def __init__(self, total, stop):
        self.left, self.stop = total, stop

    def take(self):
        if self.left <= 0 or self.stop.value:
            return False
        self.left -= 1
        return True


class Stats:
    def __init__(self, shared_done, shared_errors):
        self.by_kind, self.errors, self.examples = {}, 0, []
        self.shared_done, self.shared_errors = shared_done, shared_errors
        self.pending = 0

    def ok(self, kind):
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
        self._count()

    def error(self, kind, detail):
        self.errors += 1
        self.by_kind["ERROR " + kind] = self.by_kind.get("ERROR " + kind, 0) + 1
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: {detail}")
        with self.shared_errors.get_lock():
            self.shared_errors.value += 1
        self._count()

    def _count(self):
        self.pending += 1
        if self.pending >= 200:
            with self.shared_done.get_lock():
                self.shared_done.value += self.pending
            self.pending = 0

    def flush(self):
        with self.shared_done.get_lock():
            self.shared_done.value += self.pending
        self.pending = 0


def worker(args, requests, connections, done, errors, stop, results):
    async def main():
        stats, budget = Stats(done, errors), Budget(requests, stop)
        conns = [Connection(args.host, args.port, args.tls, args.timeout) for _ in range(connections)]
        await asyncio.gather(*(App(c, stats, budget).run() for c in conns))
        for c in conns:
            c.close()
        stats.flush()
        results.put((stats.by_kind, stats.errors, stats.examples))
    asyncio.run(main())


def sample(pid):
    """The server's resident memory (MB), open file descriptors and CPU time so far (s)."""
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return rss, len(os.listdir(f"/proc/{pid}/fd")), cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--server-pid", type=int, required=True)
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--interval", type=float, default=10.0)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--time-limit", type=float, default=1800.0, help="stop sending after this many seconds")
    args = parser.parse_args()

    done, errors, stop = multiprocessing.Value("q", 0), multiprocessing.Value("q", 0), multiprocessing.Value("b", 0)
    # SIGTERM or the time limit: the clients stop sending, and the figures so far are still printed.
    signal.signal(signal.SIGTERM, lambda *_: setattr(stop, "value", 1))
    results = multiprocessing.Queue()
    share = [args.requests // args.processes + (1 if i < args.requests % args.processes else 0) for i in range(args.processes)]
    conns = [args.connections // args.processes + (1 if i < args.connections % args.processes else 0) for i in range(args.processes)]
    workers = [multiprocessing.Process(target=worker, args=(args, share[i], conns[i], done, errors, stop, results)) for i in range(args.processes)]
    start = time.monotonic()
    rss0, fds0, cpu0 = sample(args.server_pid)
    samples = [(0.0, 0, rss0, fds0)]
    print(f"soak: {args.requests:,} requests over {args.connections} connections ({'TLS' if args.tls else 'plain HTTP'}), "
          f"{args.processes} client processes", flush=True)
    print(f"{'elapsed s':>9} {'requests':>10} {'req/s':>7} {'errors':>6} {'RSS MB':>7} {'fds':>5} {'server CPU':>10}", flush=True)
    print(f"{0:9.0f} {0:10,} {0:7.0f} {0:6} {rss0:7.1f} {fds0:5}", flush=True)
    for w in workers:
        w.start()
    last_time, last_done, last_cpu = start, 0, cpu0
    while any(w.is_alive() for w in workers):
        for w in workers:
            w.join(timeout=max(0.0, args.interval - (time.monotonic() - last_time)) / len(workers))
        now = time.monotonic()
        if now - start > args.time_limit and not stop.value:
            print(f"soak: time limit of {args.time_limit:.0f} s reached, stopping", flush=True)
            stop.value = 1
        if now - last_time >= args.interval or not any(w.is_alive() for w in workers):
            rss, fds, cpu = sample(args.server_pid)
            current = done.value
            samples.append((now - start, current, rss, fds))
            print(f"{now - start:9.0f} {current:10,} {(current - last_done) / (now - last_time):7.0f} {errors.value:6} {rss:7.1f} {fds:5} "
                  f"{100 * (cpu - last_cpu) / (now - last_time):9.0f}%", flush=True)
            last_time, last_done, last_cpu = now, current, cpu
    elapsed = time.monotonic() - start
    by_kind, total_errors, examples = {}, 0, []
    for _ in workers:
        kinds, errs, ex = results.get()
        total_errors += errs
        examples += ex
        for kind, count in kinds.items():
            by_kind[kind] = by_kind.get(kind, 0) + count
    sent = sum(by_kind.values())
    print(f"\nsoak: {sent:,} requests in {elapsed:.0f} s ({sent / elapsed:,.0f} req/s), {total_errors} errors")
    for kind in sorted(by_kind):
        print(f"  {kind:32} {by_kind[kind]:>9,}")
    for example in examples:
        print(f"  error: {example}")
    # Flat after warm-up: the samples taken under load from a quarter of the run on.
    warm = [s for s in samples[:-1] if s[1] >= sent * 0.25] or samples[-1:]
    _, _, cpu_end = sample(args.server_pid)
    rss_values, fd_values = [s[2] for s in warm], [s[3] for s in warm]
    print(f"after warm-up (25% of requests on): RSS {min(rss_values):.1f}-{max(rss_values):.1f} MB "
          f"(start {warm[0][2]:.1f}, end {warm[-1][2]:.1f}), fds {min(fd_values)}-{max(fd_values)} "
          f"(idle server before the run: {rss0:.1f} MB, {fds0} fds; after it: {samples[-1][2]:.1f} MB, {samples[-1][3]} fds)")
    print(f"server CPU time: {cpu_end - cpu0:.0f} s ({1e6 * (cpu_end - cpu0) / max(sent, 1):.0f} µs per request)")
    sys.exit(1 if total_errors or sent != args.requests else 0)


if __name__ == "__main__":
    main()
