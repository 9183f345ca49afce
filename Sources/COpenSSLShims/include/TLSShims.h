#ifndef FAKEENTRA_TLS_SHIMS_H
#define FAKEENTRA_TLS_SHIMS_H
#include "../../COpenSSL/shim.h"
#endif
