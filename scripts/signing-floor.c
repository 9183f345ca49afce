/* signing-floor: the least work a TLS server must do per client-credentials token, as a reference for
 * scripts/bench (built there with clang; not part of FakeEntra). Per request it reads an HTTP/1.1
 * request head and its Content-Length body, stamps a new token id into fixed claims, base64url-encodes
 * them, signs header.claims with RS256 (SHA-256, then EVP_PKEY_sign on a context made once per thread
 * over that thread's own copy of the key, as FakeEntra does) and writes the response in one TLS write.
 * It parses no form, authenticates no client, builds no claims, journals nothing: what FakeEntra costs
 * above it is the cost of being an identity platform rather than a signing loop. One event loop per
 * core, connections dealt to them in turn, OpenSSL TLS, keep-alive; no chunked bodies.
 *
 * usage: signing-floor CERT.pem CERTKEY.pem SIGNINGKEY.pem SAMPLE.json THREADS PORTFILE|-
 * SAMPLE.json is one token response of FakeEntra's: every answer has its shape and size, with the same
 * JWT header and claims except the "uti", stamped per token. The chosen port is written to PORTFILE
 * (or, for "-", as a line on standard output, which a caller can wait on) once the server accepts. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static SSL_CTX *tls;
static int listener;
static int pollers[64];
static const char *signing_key_path;
static char *payload_template;
static size_t payload_length;
static size_t uti_offset;
static char header_b64[1024];
static size_t header_b64_length;
static char *body_prefix, *body_suffix;
static size_t body_prefix_length, body_suffix_length;

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void die(const char *what) { fprintf(stderr, "signing-floor: %s\n", what); ERR_print_errors_fp(stderr); exit(1); }

static size_t base64url(const unsigned char *in, size_t n, char *out) {
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = in[i] << 16 | in[i + 1] << 8 | in[i + 2];
        out[o++] = alphabet[v >> 18]; out[o++] = alphabet[v >> 12 & 63]; out[o++] = alphabet[v >> 6 & 63]; out[o++] = alphabet[v & 63];
    }
    if (n - i == 1) { unsigned v = in[i] << 16; out[o++] = alphabet[v >> 18]; out[o++] = alphabet[v >> 12 & 63]; }
    if (n - i == 2) { unsigned v = in[i] << 16 | in[i + 1] << 8; out[o++] = alphabet[v >> 18]; out[o++] = alphabet[v >> 12 & 63]; out[o++] = alphabet[v >> 6 & 63]; }
    return o;
}

static size_t base64url_decode(const char *in, size_t n, char *out) {
    size_t o = 0; unsigned v = 0; int bits = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = strchr(alphabet, in[i]);
        if (!p || !in[i]) die("the sample's token is not base64url");
        v = v << 6 | (unsigned)(p - alphabet); bits += 6;
        if (bits >= 8) { bits -= 8; out[o++] = (char)(v >> bits & 255); }
    }
    return o;
}

/* Per thread: its signing context, its token counter, and the Date header of the current second. */
struct signer { EVP_PKEY_CTX *context; unsigned long counter; int thread; time_t date_second; char date[64]; };
struct connection { int fd; SSL *ssl; size_t length; char input[16384]; };

/* Writes the whole response; a loopback socket takes 2 KB at once, so waiting is the rare path. */
static int write_all(SSL *ssl, const char *bytes, size_t n) {
    while (n > 0) {
        int w = SSL_write(ssl, bytes, (int)n);
        if (w > 0) { bytes += w; n -= (size_t)w; continue; }
        int e = SSL_get_error(ssl, w);
        if (e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ) return -1;
        struct pollfd p = { SSL_get_fd(ssl), e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN, 0 };
        poll(&p, 1, 1000);
    }
    return 0;
}

static int answer(struct signer *s, SSL *ssl) {
    char payload[8192], token[12288], response[20480];
    unsigned char digest[32], signature[512];
    memcpy(payload, payload_template, payload_length);
    unsigned long id = ++s->counter;
    for (int i = 0; i < 22; i++) { payload[uti_offset + 21 - i] = alphabet[id & 63]; id >>= 6; }
    payload[uti_offset] = alphabet[s->thread & 63];
    memcpy(token, header_b64, header_b64_length);
    size_t t = header_b64_length;
    token[t++] = '.';
    t += base64url((unsigned char *)payload, payload_length, token + t);
    SHA256((unsigned char *)token, t, digest);
    size_t signature_length = sizeof signature;
    if (EVP_PKEY_sign(s->context, signature, &signature_length, digest, sizeof digest) != 1) die("EVP_PKEY_sign");
    token[t++] = '.';
    t += base64url(signature, signature_length, token + t);
    time_t now = time(NULL);
    if (now != s->date_second) {
        struct tm gmt;
        gmtime_r(&now, &gmt);
        strftime(s->date, sizeof s->date, "%a, %d %b %Y %H:%M:%S GMT", &gmt);
        s->date_second = now;
    }
    size_t body_length = body_prefix_length + t + body_suffix_length;
    int head = snprintf(response, sizeof response,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store, no-cache\r\n"
        "Pragma: no-cache\r\nx-ms-request-id: 00000000-0000-0000-0000-%012lx\r\nContent-Length: %zu\r\nDate: %s\r\n"
        "Connection: keep-alive\r\n\r\n", s->counter, body_length, s->date);
    if (head < 0 || (size_t)head + body_length > sizeof response) die("an answer outgrew its buffer");
    /* The body is the sample's, with the new token in place of its own. */
    char *at = response + head;
    memcpy(at, body_prefix, body_prefix_length); at += body_prefix_length;
    memcpy(at, token, t); at += t;
    memcpy(at, body_suffix, body_suffix_length); at += body_suffix_length;
    return write_all(ssl, response, (size_t)(at - response));
}

/* Answers every complete request in the buffer; returns -1 when the connection must close. */
static int serve(struct signer *s, struct connection *c) {
    for (;;) {
        char *end = memmem(c->input, c->length, "\r\n\r\n", 4);
        if (!end) return c->length == sizeof c->input ? -1 : 0;
        size_t head = (size_t)(end - c->input) + 4, body = 0;
        for (char *line = c->input; line < end;) {
            char *newline = memchr(line, '\n', (size_t)(end - line));
            char *line_end = newline ? newline : end;
            if (line_end - line >= 15 && strncasecmp(line, "content-length:", 15) == 0) {
                /* Digits only, within the line: strtoul would take a sign and skip line breaks. */
                char *digit = line + 15;
                while (digit < line_end && (*digit == ' ' || *digit == '\t')) digit++;
                if (digit == line_end || *digit < '0' || *digit > '9') return -1;
                for (body = 0; digit < line_end && *digit >= '0' && *digit <= '9'; digit++) {
                    body = body * 10 + (size_t)(*digit - '0');
                    if (body > sizeof c->input) return -1;
                }
                while (digit < line_end && (*digit == ' ' || *digit == '\t' || *digit == '\r')) digit++;
                if (digit != line_end) return -1;
            }
            if (!newline) break;
            line = newline + 1;
        }
        if (head + body > sizeof c->input) return -1;
        if (c->length < head + body) return 0;
        if (answer(s, c->ssl) < 0) return -1;
        memmove(c->input, c->input + head + body, c->length - head - body);
        c->length -= head + body;
    }
}

static void close_connection(int poller, struct connection *c) {
    ERR_clear_error();   /* a failed read or write leaves its error for the thread's next connection */
    epoll_ctl(poller, EPOLL_CTL_DEL, c->fd, NULL);
    SSL_free(c->ssl);
    close(c->fd);
    free(c);
}

static void *run(void *argument) {
    struct signer s = { 0 };
    s.thread = (int)(long)argument;
    FILE *f = fopen(signing_key_path, "r");
    if (!f) die("cannot open the signing key");
    EVP_PKEY *key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    if (!key || !(s.context = EVP_PKEY_CTX_new(key, NULL)) || EVP_PKEY_sign_init(s.context) != 1
        || EVP_PKEY_CTX_set_rsa_padding(s.context, RSA_PKCS1_PADDING) != 1
        || EVP_PKEY_CTX_set_signature_md(s.context, EVP_sha256()) != 1) die("signing context");
    int poller = pollers[s.thread];
    struct epoll_event events[64];
    for (;;) {
        int n = epoll_wait(poller, events, 64, -1);
        for (int i = 0; i < n; i++) {
            struct connection *c = events[i].data.ptr;
            for (;;) {
                int r = SSL_read(c->ssl, c->input + c->length, (int)(sizeof c->input - c->length));
                if (r > 0) {
                    c->length += (size_t)r;
                    if (serve(&s, c) < 0) { close_connection(poller, c); break; }
                    continue;
                }
                int e = SSL_get_error(c->ssl, r);
                if (e == SSL_ERROR_WANT_READ) break;
                if (e == SSL_ERROR_WANT_WRITE) { struct pollfd p = { c->fd, POLLOUT, 0 }; poll(&p, 1, 1000); continue; }
                ERR_clear_error();
                close_connection(poller, c);
                break;
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 7) die("usage: signing-floor CERT.pem CERTKEY.pem SIGNINGKEY.pem SAMPLE.json THREADS PORTFILE|-");
    signal(SIGPIPE, SIG_IGN);
    signing_key_path = argv[3];
    FILE *f = fopen(argv[4], "r");
    if (!f) die("cannot open the sample response");
    char *sample = calloc(1, 8192);
    size_t sample_length = fread(sample, 1, 8192, f);
    fclose(f);
    if (sample_length == 8192) die("the sample response is over 8 KB");
    char *token = memmem(sample, sample_length, "\"access_token\":\"", 16);
    if (!token) die("the sample has no access_token");
    token += 16;
    char *token_end = memchr(token, '"', (size_t)(sample + sample_length - token));
    if (!token_end) die("the sample's access_token has no end");
    char *dot1 = memchr(token, '.', (size_t)(token_end - token));
    char *dot2 = dot1 ? memchr(dot1 + 1, '.', (size_t)(token_end - dot1 - 1)) : NULL;
    if (!dot1 || !dot2) die("the sample's access_token is not a JWS");
    body_prefix = sample; body_prefix_length = (size_t)(token - sample);
    body_suffix = token_end; body_suffix_length = (size_t)(sample + sample_length - token_end);
    while (body_suffix_length > 0 && (body_suffix[body_suffix_length - 1] == '\n' || body_suffix[body_suffix_length - 1] == '\r')) body_suffix_length--;
    if ((size_t)(dot1 - token) > sizeof header_b64) die("the sample's JWT header is too long");
    memcpy(header_b64, token, (size_t)(dot1 - token));
    header_b64_length = (size_t)(dot1 - token);
    payload_template = malloc(8192);
    payload_length = base64url_decode(dot1 + 1, (size_t)(dot2 - dot1 - 1), payload_template);
    char *uti = memmem(payload_template, payload_length, "\"uti\":\"", 7);
    if (!uti || uti + 7 + 22 >= payload_template + payload_length || uti[7 + 22] != '"') die("the sample's claims have no 22-character \"uti\"");
    uti_offset = (size_t)(uti - payload_template) + 7;

    if (!(tls = SSL_CTX_new(TLS_server_method()))) die("SSL_CTX_new");
    SSL_CTX_set_min_proto_version(tls, TLS1_2_VERSION);
    if (SSL_CTX_use_certificate_chain_file(tls, argv[1]) != 1 || SSL_CTX_use_PrivateKey_file(tls, argv[2], SSL_FILETYPE_PEM) != 1)
        die("certificate or its key");
    SSL_CTX_set_mode(tls, SSL_MODE_RELEASE_BUFFERS);

    listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t size = sizeof address;
    if (bind(listener, (struct sockaddr *)&address, size) != 0 || listen(listener, 1024) != 0
        || getsockname(listener, (struct sockaddr *)&address, &size) != 0) die("listen");
    int threads = atoi(argv[5]);
    if (threads < 1 || threads > 64) die("THREADS is 1 to 64");
    pthread_t thread;
    for (int i = 0; i < threads; i++) {
        if ((pollers[i] = epoll_create1(0)) < 0) die("epoll_create1");
        if (pthread_create(&thread, NULL, run, (void *)(long)i) != 0) die("pthread_create");
    }
    if (strcmp(argv[6], "-") == 0) {
        printf("%d\n", ntohs(address.sin_port));
        fflush(stdout);
    } else {
        char temporary[4096];
        snprintf(temporary, sizeof temporary, "%s.tmp", argv[6]);
        f = fopen(temporary, "w");
        if (!f) die("cannot write the port file");
        fprintf(f, "%d\n", ntohs(address.sin_port));
        fclose(f);
        rename(temporary, argv[6]);
    }
    /* Connections are dealt to the loops in turn, so that a handful of them use every core. */
    struct pollfd ready = { listener, POLLIN, 0 };
    for (unsigned long next = 0;; next++) {
        int fd;
        while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) < 0) poll(&ready, 1, -1);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct connection *c = calloc(1, sizeof *c);
        if (!c || !(c->ssl = SSL_new(tls))) die("out of memory for a connection");
        c->fd = fd;
        SSL_set_fd(c->ssl, fd);
        SSL_set_accept_state(c->ssl);
        struct epoll_event e = { .events = EPOLLIN | EPOLLET | EPOLLRDHUP, .data.ptr = c };
        if (epoll_ctl(pollers[next % (unsigned long)threads], EPOLL_CTL_ADD, fd, &e) != 0) die("epoll_ctl");
    }
}
