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

#endif
