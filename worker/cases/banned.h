/*
 * The cases are built without -Ilib (static, standalone binaries), so
 * `#include "banned.h"` in the cases' .c files finds this file first; it pulls
 * in the project's list of banned functions.
 */
#include "../../lib/banned.h"
