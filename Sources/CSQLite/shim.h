// Debian's libsqlite3 (libsqlite3-dev). Only the StateStore module imports it.
#include <sqlite3.h>
