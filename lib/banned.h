#ifndef REGTRACK_BANNED_H
#define REGTRACK_BANNED_H

/*
 * Functions that are easy to misuse (after git's banned.h). The Makefile
 * forces this file into every C and C++ object with `-include lib/banned.h`
 * (BANNED_FLAGS; also the cases, the guest /init, bench/ and fuzz/), so no
 * source file includes it and none can forget to.
 *
 * Because it comes first rather than last, it first includes the system
 * headers that declare the banned functions: their declarations (and
 * glibc's inline and fortified definitions) are read before the macros
 * exist, and a later #include of the same header is a no-op. A call of a
 * banned function then expands to an undeclared identifier, a hard error:
 *
 *	strcpy(dst, src)  ->  error: 'sorry_strcpy_is_a_banned_function' undeclared
 *
 * Feature-test macros (_GNU_SOURCE) must therefore come from the command
 * line, not from a #define in a source file. tests/lint.sh checks that each
 * banned call fails to compile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef gmtime
#define gmtime(x) BANNED(gmtime)
#undef localtime
#define localtime(x) BANNED(localtime)
#undef gets
#define gets(x) BANNED(gets)

#endif
