#include "CryptoShims.h"
