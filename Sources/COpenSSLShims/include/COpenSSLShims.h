#ifndef FAKEENTRA_COPENSSL_SHIMS_H
#define FAKEENTRA_COPENSSL_SHIMS_H
// Functions wrapping OpenSSL macros and varargs that Swift cannot import. Each says why it exists.
// Crypto shims (EntraCrypto) and TLS shims (EntraServer) live in separate files.
#include "CryptoShims.h"
#include "TLSShims.h"
#endif
