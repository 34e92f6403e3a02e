#ifndef REGTRACK_ATTR_H
#define REGTRACK_ATTR_H

/*
 * The compiler attributes the project uses, one name each (GCC and Clang
 * spellings; C and C++). Put them where the declaration is read: on the
 * prototype in the header, or on the parameter in the definition.
 */

/*
 * A parameter (or variable) a definition does not use, on purpose: a
 * callback's fixed signature, a cmocka test's `void **state`. The build
 * has -Wunused-parameter on (-Wextra), so an unmarked unused parameter is
 * an error:
 *
 *	static void test_empty(void **state UNUSED)
 */
#define UNUSED __attribute__((unused))

/*
 * On a fallible function's prototype (house style: 0 or a negative error
 * code): ignoring the result is a warning, an error under -Werror. A caller
 * that really does not care writes `if (f()) { }` or assigns it, not a cast.
 */
#define WARN_UNUSED_RESULT __attribute__((warn_unused_result))

/*
 * printf-like checking of a format argument: `fmt` is the 1-based index of
 * the format parameter, `args` of the first variadic argument (0 for a
 * va_list function).
 */
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))

/* The function does not return (exit, abort, longjmp). */
#define NORETURN __attribute__((noreturn))

#endif
