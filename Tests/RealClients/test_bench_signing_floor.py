"""scripts/bench's signing floor (scripts/signing-floor.c): the C server whose tokens/s FakeEntra's are
compared with. The comparison is fair only if the floor answers FakeEntra's own token request with a
response of the same size and shape, the same JWT header and claims (a new "uti" each time), signed with
the same key; OpenSSL's command line checks the signatures, curl and Python's ssl speak to it."""
import base64
import json
import os
import pathlib
import select
import shutil
import socket
import ssl
import subprocess
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN_PATH = "/contoso.onmicrosoft.com/oauth2/v2.0/token"
# The request scripts/bench sends (its client is in the embedded defaults).
TOKEN_BODY = ("grant_type=client_credentials&client_id=5c1a9e3d-7b2f-4e8a-9d6c-0f1e2d3c4b5a&client_secret=bench-secret"
              "&scope=https%3A%2F%2Fgraph.microsoft.com%2F.default")


def decode_segment(segment):
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


@pytest.fixture(scope="module")
def floor(server, certs_dir):
    compiler = os.environ.get("CC") or shutil.which("clang") or shutil.which("cc")
    assert compiler, "scripts/bench builds the floor with clang (Swift's toolchain has one)"
    work = tempfile.mkdtemp()
    binary = os.path.join(work, "signing-floor")
    built = subprocess.run([compiler, "-O2", "-pthread", "-o", binary, os.path.join(ROOT, "scripts", "signing-floor.c"), "-lssl", "-lcrypto"],
                           capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    sample = os.path.join(work, "token-response.json")
    subprocess.run(["curl", "-sS", "--fail-with-body", "--cacert", server.ca, "-o", sample, "-X", "POST",
                    "-H", "Content-Type: application/x-www-form-urlencoded", "--data", TOKEN_BODY, server.url + TOKEN_PATH],
                   check=True, capture_output=True, timeout=60)
    # "-": the floor prints its port on standard output once it accepts.
    process = subprocess.Popen([binary, os.path.join(certs_dir, "server.pem"), os.path.join(certs_dir, "server.key.pem"),
                                os.path.join(certs_dir, "token-signing.key.pem"), sample, "2", "-"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([process.stdout], [], [], 30)
        line = process.stdout.readline() if ready else ""
        assert line.strip(), "the signing floor printed no port: " + (process.stderr.read() if process.poll() is not None else "")
        port = int(line)
        yield {"port": port, "sample": pathlib.Path(sample).read_bytes(), "work": work, "ca": server.ca, "certs": certs_dir, "process": process}
    finally:
        process.terminate()
        process.communicate(timeout=30)   # waits, and closes its pipes
        shutil.rmtree(work, ignore_errors=True)


def read_responses(connection, count):
    """`count` HTTP/1.1 responses with Content-Length bodies, read off one connection."""
    buffer, responses = b"", []
    while len(responses) < count:
        while b"\r\n\r\n" not in buffer:
            chunk = connection.recv(65536)
            assert chunk, "the floor closed the connection"
            buffer += chunk
        head, rest = buffer.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        headers = {line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip() for line in lines[1:]}
        length = int(headers["content-length"])
        while len(rest) < length:
            chunk = connection.recv(65536)
            assert chunk, "the floor closed the connection"
            rest += chunk
        responses.append((lines[0], headers, rest[:length]))
        buffer = rest[length:]
    return responses


def test_the_floor_answers_pipelined_requests_with_fakeentras_response_newly_signed(floor):
    request = (f"POST {TOKEN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
               f"Content-Length: {len(TOKEN_BODY)}\r\n\r\n{TOKEN_BODY}").encode()
    context = ssl.create_default_context(cafile=floor["ca"])
    with socket.create_connection(("127.0.0.1", floor["port"]), timeout=30) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as connection:
            # Two requests and the third up to the middle of its body in one write, the rest in a second.
            connection.sendall(request + request + request[:-10])
            connection.sendall(request[-10:])
            responses = read_responses(connection, 3)

    sample = json.loads(floor["sample"])
    sample_header, sample_claims, _ = sample["access_token"].split(".")
    public_key = os.path.join(floor["work"], "token-signing.pub.pem")
    subprocess.run(["openssl", "pkey", "-in", os.path.join(floor["certs"], "token-signing.key.pem"), "-pubout", "-out", public_key],
                   check=True, capture_output=True, timeout=60)
    identifiers = set()
    for status, headers, body in responses:
        assert status == "HTTP/1.1 200 OK"
        assert headers["content-type"] == "application/json; charset=utf-8"
        assert len(body) == len(floor["sample"]), "the floor's answer must weigh what FakeEntra's does"
        answer = json.loads(body)
        assert {k: v for k, v in answer.items() if k != "access_token"} == {k: v for k, v in sample.items() if k != "access_token"}
        header, claims, signature = answer["access_token"].split(".")
        assert header == sample_header
        decoded, expected = json.loads(decode_segment(claims)), json.loads(decode_segment(sample_claims))
        assert decoded["uti"] != expected["uti"] and len(decoded["uti"]) == len(expected["uti"])
        identifiers.add(decoded["uti"])
        assert {k: v for k, v in decoded.items() if k != "uti"} == {k: v for k, v in expected.items() if k != "uti"}
        signed_input, signature_file = os.path.join(floor["work"], "input"), os.path.join(floor["work"], "signature")
        pathlib.Path(signed_input).write_bytes(f"{header}.{claims}".encode())
        pathlib.Path(signature_file).write_bytes(decode_segment(signature))
        verified = subprocess.run(["openssl", "dgst", "-sha256", "-verify", public_key, "-signature", signature_file, signed_input],
                                  capture_output=True, text=True, timeout=60)
        assert verified.stdout.strip() == "Verified OK", verified.stdout + verified.stderr
    assert len(identifiers) == 3


def test_the_floor_answers_curl_over_keep_alive(floor):
    out = subprocess.run(["curl", "-sS", "--fail-with-body", "--cacert", floor["ca"], "-o", "/dev/null", "-o", "/dev/null",
                          "-w", "%{http_code} %{num_connects}\n", "-X", "POST", "-H", "Content-Type: application/x-www-form-urlencoded",
                          "--data", TOKEN_BODY, f"https://localhost:{floor['port']}{TOKEN_PATH}", f"https://localhost:{floor['port']}{TOKEN_PATH}"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # The second request reuses the first one's connection.
    assert out.stdout.split("\n")[:2] == ["200 1", "200 0"]


@pytest.mark.parametrize("length", ["-5", "", "12abc\r\nX-Other: 1", "99999999999999999999"])
def test_a_bad_content_length_closes_that_connection_and_the_floor_goes_on(floor, length):
    context = ssl.create_default_context(cafile=floor["ca"])
    with socket.create_connection(("127.0.0.1", floor["port"]), timeout=30) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as connection:
            connection.sendall(f"POST {TOKEN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {length}\r\n\r\n".encode())
            try:
                closed = connection.recv(65536) == b""
            except (ssl.SSLError, ConnectionResetError):
                closed = True
            assert closed, "the floor answered a request whose length it cannot know"
    assert floor["process"].poll() is None
    out = subprocess.run(["curl", "-sS", "--fail-with-body", "--cacert", floor["ca"], "-o", "/dev/null", "-w", "%{http_code}",
                          "-X", "POST", "--data", TOKEN_BODY, f"https://localhost:{floor['port']}{TOKEN_PATH}"],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout == "200", out.stderr
