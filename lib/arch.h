#ifndef REGTRACK_ARCH_H
#define REGTRACK_ARCH_H

/*
 * CPU architecture names. regtrack's canonical names are uname -m's:
 * "x86_64" and "aarch64". The kernel's names (arm64, x86) and Debian's
 * (amd64, arm64) are accepted on input and mapped to them.
 */

/*
 * The canonical name of an architecture name: "x86_64" for x86_64, amd64,
 * x86-64; "aarch64" for aarch64, arm64. NULL for anything else (or NULL).
 * The result is a static string.
 */
const char *arch_normalize(const char *name);

/*
 * The architecture a kconfig name builds for, from its first
 * '-'-separated word: "x86_64-tiny-mm" -> "x86_64", "arm64-defconfig" and
 * "aarch64-..." -> "aarch64" (any name arch_normalize() knows). NULL when
 * the first word is no architecture ("host", "tiny-mm"). Static string.
 */
const char *arch_of_kconfig(const char *kconfig);

#endif
