#ifndef FAKEENTRA_CRYPTO_SHIMS_H
#define FAKEENTRA_CRYPTO_SHIMS_H
#include "../../COpenSSL/shim.h"
#endif
