#ifndef FAKEENTRA_COPENSSL_SHIM_H
#define FAKEENTRA_COPENSSL_SHIM_H
// Only includes: macros that need code live in COpenSSLShims.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/opensslv.h>
#if OPENSSL_VERSION_MAJOR < 3
#error "FakeEntra needs OpenSSL 3 (Debian: libssl-dev)"
#endif
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#endif
