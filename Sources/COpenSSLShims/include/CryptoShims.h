#ifndef FAKEENTRA_CRYPTO_SHIMS_H
#define FAKEENTRA_CRYPTO_SHIMS_H
#include "../../COpenSSL/shim.h"

// OPENSSL_free is a function-like macro (it passes __FILE__/__LINE__ to CRYPTO_free), so Swift
// cannot call it; memory returned by ASN1_STRING_to_UTF8 and friends must be freed through it.
void FakeEntraShims_free(void *pointer);

// A passphrase callback that refuses: OpenSSL's default would read the terminal and hang a server
// handed an encrypted key or certificate; refusing makes encrypted PEM fail cleanly instead.
int FakeEntraShims_refusePassphrase(char *buffer, int size, int writing, void *context);

// An unencrypted PEM private key (PKCS#8 or traditional), or NULL with OpenSSL's error queue set.
// RSA is decoded through a short decoder chain, other types through the generic reader; encrypted
// PEM is refused without prompting. The server's TLS key and every RSAPrivateKey are read here.
EVP_PKEY *FakeEntraShims_readPrivateKeyPEM(const char *pem, size_t length);

// SHA-256 through the low-level functions, whose state is plain memory: an EVP_MD_CTX takes a reference
// to the shared algorithm object at each init and copy, an atomic write on a cache line both event
// loops use, four times per token. The state's size and alignment are checked in crypto_shims.c.
typedef struct { _Alignas(16) unsigned char bytes[128]; } FakeEntraShims_SHA256State;
void FakeEntraShims_sha256Init(FakeEntraShims_SHA256State *state);
void FakeEntraShims_sha256Update(FakeEntraShims_SHA256State *state, const void *data, size_t length);
// The digest of what was fed so far; the state is left as it was, so feeding can go on.
void FakeEntraShims_sha256Digest(const FakeEntraShims_SHA256State *state, unsigned char digest[32]);
void FakeEntraShims_sha256(const void *data, size_t length, unsigned char digest[32]);

#endif
