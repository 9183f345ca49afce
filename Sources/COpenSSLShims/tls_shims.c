#include "TLSShims.h"
