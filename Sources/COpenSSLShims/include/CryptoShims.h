#ifndef FAKEENTRA_CRYPTO_SHIMS_H
#define FAKEENTRA_CRYPTO_SHIMS_H
#include "../../COpenSSL/shim.h"

// OPENSSL_free is a function-like macro (it passes __FILE__/__LINE__ to CRYPTO_free), so Swift
// cannot call it; memory returned by ASN1_STRING_to_UTF8 and friends must be freed through it.
void FakeEntraShims_free(void *pointer);

#endif
