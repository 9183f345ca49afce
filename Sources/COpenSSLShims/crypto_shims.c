#ifdef __linux__
#define _GNU_SOURCE 1
#endif
#include <limits.h>
#include <string.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include "CryptoShims.h"

void FakeEntraShims_free(void *pointer) {
    OPENSSL_free(pointer);
}

int FakeEntraShims_refusePassphrase(char *buffer, int size, int writing, void *context) {
    (void)buffer; (void)size; (void)writing; (void)context;
    return -1;
}

static int looksEncrypted(const char *pem, size_t length) {
    return memmem(pem, length, "Proc-Type:", 10) != NULL
        || memmem(pem, length, "-----BEGIN ENCRYPTED", 20) != NULL;
}

/* The decoder chain OpenSSL 3 builds for "any private key" tries every key type it knows and was a
   third of start-up; naming RSA first gives a short chain, and other types still go the long way. */
static EVP_PKEY *decodeAsRSA(BIO *bio) {
    EVP_PKEY *key = NULL;
    int selection = OSSL_KEYMGMT_SELECT_PRIVATE_KEY | OSSL_KEYMGMT_SELECT_PUBLIC_KEY
        | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS;
    OSSL_DECODER_CTX *context = OSSL_DECODER_CTX_new_for_pkey(&key, "PEM", NULL, "RSA", selection, NULL, NULL);
    if (context == NULL) return NULL;
    if (OSSL_DECODER_from_bio(context, bio) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    OSSL_DECODER_CTX_free(context);
    return key;
}

EVP_PKEY *FakeEntraShims_readPrivateKeyPEM(const char *pem, size_t length) {
    if (pem == NULL) { pem = ""; length = 0; }
    if (length > INT_MAX) {
        ERR_raise_data(ERR_LIB_PEM, ERR_R_PASSED_INVALID_ARGUMENT, "a PEM key of %zu bytes", length);
        return NULL;
    }
    if (!looksEncrypted(pem, length)) {
        BIO *bio = BIO_new_mem_buf(pem, (int)length);
        if (bio == NULL) return NULL;
        EVP_PKEY *key = decodeAsRSA(bio);
        BIO_free(bio);
        ERR_clear_error();
        if (key != NULL) return key;
    }
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    if (bio == NULL) return NULL;
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, FakeEntraShims_refusePassphrase, NULL);
    BIO_free(bio);
    return key;
}
