#ifndef FAKEENTRA_TLS_SHIMS_H
#define FAKEENTRA_TLS_SHIMS_H
#include "../../COpenSSL/shim.h"

// EntraServer's only C module also carries the Linux event headers that Swift's Glibc module
// leaves out (epoll, eventfd), rather than adding a package target for two includes.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
#include <sys/socket.h>
// accept4 is hidden behind _GNU_SOURCE in glibc's headers; this one call saves two fcntl per connection.
// On Darwin: accept, then O_NONBLOCK, FD_CLOEXEC and SO_NOSIGPIPE.
int TLSShims_acceptNonBlocking(int listener, struct sockaddr *address, socklen_t *length);

// Applies the server policy in one call because every piece of it is a macro Swift cannot import
// (SSL_CTX_set_min/max_proto_version, SSL_CTX_set_mode) or needs a C callback (ALPN selection):
// TLS 1.2 and 1.3 only, no compression or renegotiation, tolerate a missing close_notify,
// partial writes from a moving buffer, released idle buffers, ALPN answering `http/1.1`, and reads
// ahead: one read of the socket brings a record's header and body (and whatever follows) at once, so
// SSL_has_pending, not SSL_pending, says whether OpenSSL holds input (whole records or part of one).
// Returns 1 on success, 0 on failure (the OpenSSL error queue says why).
int TLSShims_configureServerContext(SSL_CTX *context);

// Loads the server's private key from a PEM file through FakeEntraShims_readPrivateKeyPEM (an RSA
// key skips the decoder chain SSL_CTX_use_PrivateKey_file builds for every key type; an encrypted
// key is refused, never prompted for). Returns 1 on success, 0 on failure (the error queue says why).
int TLSShims_usePrivateKeyFile(SSL_CTX *context, const char *path);

// SSL_get_error's codes are macros with values Swift sees as Int32 constants, but naming the
// outcomes once here keeps the Swift side free of magic numbers.
enum TLSShims_Outcome {
    TLSShims_Outcome_done = 0,
    TLSShims_Outcome_wantRead = 1,
    TLSShims_Outcome_wantWrite = 2,
    TLSShims_Outcome_closed = 3,
    TLSShims_Outcome_failed = 4,
};

// Classifies the result of SSL_do_handshake/SSL_read/SSL_write (`result` <= 0) with SSL_get_error.
enum TLSShims_Outcome TLSShims_classify(const SSL *ssl, int result);

// Runs the named I/O call after clearing this thread's error queue, as SSL_get_error requires.
int TLSShims_handshake(SSL *ssl);
int TLSShims_read(SSL *ssl, void *buffer, int length);

// Has OpenSSL note in `*drained`, after each read of the session's socket, whether that read came
// back short of what it asked for, or with nothing (1), or brought all it asked for (0). Reading a
// record's header ahead, OpenSSL asks for all the room its buffer has; completing a record's body, for
// exactly the rest. A short read means the socket had nothing more: with level-triggered readiness the
// connection waits for the next report instead of reading until EAGAIN. A read that brought all it
// asked for says nothing, and the connection reads once more.
// `drained` must outlive the session. Returns 0 when the session has no socket yet.
int TLSShims_watchSocketReads(SSL *ssl, int *drained);
int TLSShims_write(SSL *ssl, const void *buffer, int length);

// The client policy of `fakeentra browse`, for the same macro reasons: TLS 1.2 and 1.3, peer
// verification against the CA file `caFile` only (never the system store: the server is ours),
// ALPN offering `http/1.1`. Returns 1 on success, 0 on failure (the error queue says why).
int TLSShims_configureClientContext(SSL_CTX *context, const char *caFile);

// Makes the handshake check that the peer's certificate names `host` (an IP address is matched
// against the IP SANs) and sends it as SNI when it is a name (SSL_set_tlsext_host_name is a macro).
int TLSShims_expectPeerName(SSL *ssl, const char *host, int isIPAddress);

#endif
