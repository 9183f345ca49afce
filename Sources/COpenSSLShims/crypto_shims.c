#include "CryptoShims.h"

void FakeEntraShims_free(void *pointer) {
    OPENSSL_free(pointer);
}
