#ifdef __linux__
#define _GNU_SOURCE 1
#endif
#include "TLSShims.h"
#include "CryptoShims.h"
#include <string.h>

#ifdef __linux__
int TLSShims_acceptNonBlocking(int listener, struct sockaddr *address, socklen_t *length) {
    return accept4(listener, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
#else
#include <fcntl.h>
#include <unistd.h>
// Darwin has no accept4 nor MSG_NOSIGNAL: the flags are set after accept, and SO_NOSIGPIPE keeps a
// peer that vanished from raising SIGPIPE (already ignored process-wide; this is belt and braces).
int TLSShims_acceptNonBlocking(int listener, struct sockaddr *address, socklen_t *length) {
    int fd = accept(listener, address, length);
    if (fd < 0) return fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
    return fd;
}
#endif

static const unsigned char http11[] = "http/1.1";

// Picks http/1.1 when the client offers it; otherwise no ALPN at all (not a fatal alert), so an
// h2-only client sees a completed handshake without a protocol and can give up cleanly.
static int TLSShims_selectALPN(SSL *ssl, const unsigned char **out, unsigned char *outLength,
                               const unsigned char *in, unsigned int inLength, void *argument) {
    (void)ssl;
    (void)argument;
    unsigned int index = 0;
    while (index < inLength) {
        unsigned int length = in[index];
        if (index + 1 + length > inLength) break;
        if (length == sizeof(http11) - 1 && memcmp(in + index + 1, http11, length) == 0) {
            *out = in + index + 1;
            *outLength = (unsigned char)length;
            return SSL_TLSEXT_ERR_OK;
        }
        index += 1 + length;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

int TLSShims_configureServerContext(SSL_CTX *context) {
    if (SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1) return 0;
    if (SSL_CTX_set_max_proto_version(context, TLS1_3_VERSION) != 1) return 0;
    SSL_CTX_set_options(context, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE
                                     | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_read_ahead(context, 1);
    SSL_CTX_set_alpn_select_cb(context, TLSShims_selectALPN, NULL);
    static const unsigned char sessionContext[] = "fakeentra";
    if (SSL_CTX_set_session_id_context(context, sessionContext, sizeof(sessionContext) - 1) != 1) return 0;
    return 1;
}

enum TLSShims_Outcome TLSShims_classify(const SSL *ssl, int result) {
    switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_NONE: return TLSShims_Outcome_done;
    case SSL_ERROR_WANT_READ: return TLSShims_Outcome_wantRead;
    case SSL_ERROR_WANT_WRITE: return TLSShims_Outcome_wantWrite;
    case SSL_ERROR_ZERO_RETURN: return TLSShims_Outcome_closed;
    default: return TLSShims_Outcome_failed;
    }
}

int TLSShims_handshake(SSL *ssl) {
    ERR_clear_error();
    return SSL_do_handshake(ssl);
}

// The return half of every read of the socket BIO: `*drained` (the callback's argument) becomes 1
// when the read brought fewer bytes than OpenSSL asked for, or none (would block, end of stream).
// Saying "drained" wrongly would only cost a wake-up: every event queue here is level-triggered.
static long TLSShims_noteSocketRead(BIO *bio, int operation, const char *argp, size_t length, int argi,
                                    long argl, int ret, size_t *processed) {
    (void)argp;
    (void)argi;
    (void)argl;
    if (operation == (BIO_CB_READ | BIO_CB_RETURN)) {
        int *drained = (int *)BIO_get_callback_arg(bio);
        if (drained != NULL) *drained = ret <= 0 || processed == NULL || *processed < length;
    }
    return ret;
}

int TLSShims_watchSocketReads(SSL *ssl, int *drained) {
    BIO *bio = SSL_get_rbio(ssl);
    if (bio == NULL) return 0;
    BIO_set_callback_arg(bio, (char *)drained);
    BIO_set_callback_ex(bio, TLSShims_noteSocketRead);
    return 1;
}

int TLSShims_read(SSL *ssl, void *buffer, int length) {
    ERR_clear_error();
    return SSL_read(ssl, buffer, length);
}

int TLSShims_write(SSL *ssl, const void *buffer, int length) {
    ERR_clear_error();
    return SSL_write(ssl, buffer, length);
}

int TLSShims_configureClientContext(SSL_CTX *context, const char *caFile) {
    if (SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1) return 0;
    if (SSL_CTX_set_max_proto_version(context, TLS1_3_VERSION) != 1) return 0;
    SSL_CTX_set_options(context, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(context, SSL_MODE_AUTO_RETRY);
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, NULL);
    if (SSL_CTX_load_verify_file(context, caFile) != 1) return 0;
    static const unsigned char protocols[] = "\x08http/1.1";
    if (SSL_CTX_set_alpn_protos(context, protocols, sizeof(protocols) - 1) != 0) return 0;
    return 1;
}

int TLSShims_expectPeerName(SSL *ssl, const char *host, int isIPAddress) {
    if (isIPAddress) return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1;
    if (SSL_set_tlsext_host_name(ssl, host) != 1) return 0;
    return SSL_set1_host(ssl, host) == 1;
}

// Key files are a few kilobytes; the cap keeps a wrong path (a device, a huge file) from filling memory.
enum { TLSShims_maximumKeyFileSize = 1 << 20 };

int TLSShims_usePrivateKeyFile(SSL_CTX *context, const char *path) {
    BIO *file = BIO_new_file(path, "rb");
    if (file == NULL) return 0;
    BIO *contents = BIO_new(BIO_s_mem());
    char chunk[4096];
    int read = 0, ok = contents != NULL;
    while (ok && (read = BIO_read(file, chunk, sizeof chunk)) > 0) {
        ok = BIO_write(contents, chunk, read) == read;
        if (ok && BIO_ctrl_pending(contents) > TLSShims_maximumKeyFileSize) {
            ERR_raise_data(ERR_LIB_PEM, ERR_R_PASSED_INVALID_ARGUMENT, "%s is larger than a key file (over 1 MiB)", path);
            ok = 0;
        }
    }
    if (ok && read < 0) {  // a directory, an unreadable file: BIO_read has queued the reason
        ok = 0;
    }
    BIO_free(file);
    EVP_PKEY *key = NULL;
    if (ok) {
        char *pem = NULL;
        long length = BIO_get_mem_data(contents, &pem);
        key = FakeEntraShims_readPrivateKeyPEM(pem, length > 0 ? (size_t)length : 0);
    }
    BIO_free(contents);
    if (key == NULL) return 0;
    int used = SSL_CTX_use_PrivateKey(context, key);
    EVP_PKEY_free(key);
    return used;
}
