#include "arch.h"

#include <string.h>

static const struct {
	const char *name;
	const char *canonical;
} arch_names[] = {
	{ "aarch64", "aarch64" }, { "amd64", "x86_64" },  { "arm64", "aarch64" },
	{ "x86-64", "x86_64" },	  { "x86_64", "x86_64" },
};

/* The canonical name of s[0..n), NULL when unknown. */
static const char *lookup(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(arch_names) / sizeof(arch_names[0]); i++)
		if (strlen(arch_names[i].name) == n && !memcmp(arch_names[i].name, s, n))
			return arch_names[i].canonical;
	return NULL;
}

const char *arch_normalize(const char *name)
{
	return name ? lookup(name, strlen(name)) : NULL;
}

const char *arch_of_kconfig(const char *kconfig)
{
	const char *dash;

	if (!kconfig)
		return NULL;
	dash = strchr(kconfig, '-');
	return lookup(kconfig, dash ? (size_t)(dash - kconfig) : strlen(kconfig));
}
