#include "worker/fingerprint.h"
#include "buf.h"
#include "xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* sysfs/procfs files are small; anything bigger is not what we expect */
#define MAX_FILE (1 << 20)

/* Names of arm64 cores by MIDR implementer and part (after util-linux lscpu-arm). */
static const struct arm_part {
	unsigned implementer, part;
	const char *name;
} arm_parts[] = {
	{ 0x41, 0xd03, "ARM Cortex-A53" },
	{ 0x41, 0xd04, "ARM Cortex-A35" },
	{ 0x41, 0xd05, "ARM Cortex-A55" },
	{ 0x41, 0xd07, "ARM Cortex-A57" },
	{ 0x41, 0xd08, "ARM Cortex-A72" },
	{ 0x41, 0xd09, "ARM Cortex-A73" },
	{ 0x41, 0xd0a, "ARM Cortex-A75" },
	{ 0x41, 0xd0b, "ARM Cortex-A76" },
	{ 0x41, 0xd0c, "ARM Neoverse-N1" },
	{ 0x41, 0xd0d, "ARM Cortex-A77" },
	{ 0x41, 0xd40, "ARM Neoverse-V1" },
	{ 0x41, 0xd41, "ARM Cortex-A78" },
	{ 0x41, 0xd44, "ARM Cortex-X1" },
	{ 0x41, 0xd46, "ARM Cortex-A510" },
	{ 0x41, 0xd47, "ARM Cortex-A710" },
	{ 0x41, 0xd48, "ARM Cortex-X2" },
	{ 0x41, 0xd49, "ARM Neoverse-N2" },
	{ 0x41, 0xd4f, "ARM Neoverse-V2" },
	{ 0x43, 0x0af, "Cavium ThunderX2" },
	{ 0x46, 0x001, "Fujitsu A64FX" },
	{ 0x48, 0xd01, "HiSilicon Kunpeng-920" },
	{ 0x51, 0xc00, "Qualcomm Falkor" },
	{ 0xc0, 0xac3, "Ampere-1" },
	{ 0xc0, 0xac4, "Ampere-1a" },
};

static void strip_newlines(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* Whole file as a new string, NULL when it cannot be read. */
static char *read_text(const char *root, const char *rel)
{
	char *path = xstrfmt("%s/%s", root, rel);
	struct buf b = BUF_INIT(MAX_FILE);
	int rc = buf_read_file(&b, path);

	free(path);
	if (rc) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

static char *read_line(const char *root, const char *rel)
{
	char *s = read_text(root, rel);

	if (s) {
		char *nl = strchr(s, '\n');

		if (nl)
			*nl = '\0';
	}
	return s;
}

/*
 * Value of the first "key<tabs/spaces>: value" line of text whose key is
 * `key`, new string, NULL when absent.
 */
static char *colon_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > klen && !strncmp(line, key, klen)) {
			const char *p = line + klen, *end = line + len;

			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p < end && *p == ':') {
				p++;
				while (p < end && isspace((unsigned char)*p))
					p++;
				while (end > p && isspace((unsigned char)end[-1]))
					end--;
				return xstrndup(p, (size_t)(end - p));
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static int parse_hex(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!s)
		return -1;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static char *arm_cpu_model(const char *cpuinfo)
{
	char *imp_s = colon_field(cpuinfo, "CPU implementer");
	char *part_s = colon_field(cpuinfo, "CPU part");
	unsigned imp, part;
	char *res = NULL;

	if (!parse_hex(imp_s, &imp) && !parse_hex(part_s, &part)) {
		for (size_t i = 0; i < ARRAY_SIZE(arm_parts); i++)
			if (arm_parts[i].implementer == imp && arm_parts[i].part == part)
				res = xstrdup(arm_parts[i].name);
		if (!res)
			res = xstrfmt("implementer 0x%02x part 0x%03x", imp, part);
	}
	free(imp_s);
	free(part_s);
	return res;
}

long fingerprint_count_cpulist(const char *list)
{
	const char *p = list;
	long n = 0;

	while (*p && *p != '\n') {
		char *end;
		unsigned long a, b;

		if (!isdigit((unsigned char)*p))
			return -1;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -1;
			b = strtoul(p + 1, &end, 10);
			p = end;
			if (b < a)
				return -1;
		}
		n += (long)(b - a + 1);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return n ? n : -1;
}

static long count_processors(const char *cpuinfo)
{
	long n = 0;

	for (const char *line = cpuinfo; line && *line;) {
		if (!strncmp(line, "processor", 9) &&
		    (line[9] == ' ' || line[9] == '\t' || line[9] == ':'))
			n++;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static json_t *read_vulnerabilities(const char *root)
{
	char *dir = xstrfmt("%s/sys/devices/system/cpu/vulnerabilities", root);
	DIR *d = opendir(dir);
	json_t *obj = json_object();
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0;

	free(dir);
	if (!d)
		return obj;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr; i++) {
		char *rel = xstrfmt("sys/devices/system/cpu/vulnerabilities/%s", names[i]);
		char *v = read_text(root, rel);

		if (v) {
			strip_newlines(v);
			json_object_set_new(obj, names[i], json_string(v));
		}
		free(v);
		free(rel);
		free(names[i]);
	}
	free(names);
	return obj;
}

/* "0:0-3 1:4-7": each NUMA node with CPUs and its CPU list, by node id; NULL without nodes */
static char *read_numa_nodes(const char *root)
{
	char *dir = xstrfmt("%s/sys/devices/system/node", root);
	DIR *d = opendir(dir);
	struct dirent *de;
	long ids[1024];
	size_t nr = 0;
	struct buf b = BUF_INIT(0);
	char *out = NULL;

	free(dir);
	if (!d)
		return NULL;
	while ((de = readdir(d)) && nr < 1024)
		if (!strncmp(de->d_name, "node", 4) && de->d_name[4] >= '0' && de->d_name[4] <= '9')
			ids[nr++] = strtol(de->d_name + 4, NULL, 10);
	closedir(d);
	for (size_t i = 1; i < nr; i++)
		for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			long t = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	for (size_t i = 0; i < nr; i++) {
		char *rel = xstrfmt("sys/devices/system/node/node%ld/cpulist", ids[i]);
		char *list = read_line(root, rel);

		if (list && *list && buf_addf(&b, "%s%ld:%s", b.len ? " " : "", ids[i], list))
			abort(); /* uncapped */
		free(list);
		free(rel);
	}
	if (b.len)
		out = xstrdup(b.data);
	buf_release(&b);
	return out;
}

int fingerprint_collect(struct fingerprint *fp, const char *root, struct err *e)
{
	struct utsname u;
	char *cpuinfo, *meminfo, *online, *mem;

	memset(fp, 0, sizeof(*fp));
	if (!root || !strcmp(root, "/"))
		root = "";
	if (!uname(&u))
		fp->arch = xstrdup(u.machine);
	fp->hostname = read_line(root, "proc/sys/kernel/hostname");
	fp->kernel_release = read_line(root, "proc/sys/kernel/osrelease");
	fp->kernel_version = read_line(root, "proc/sys/kernel/version");
	fp->cmdline = read_line(root, "proc/cmdline");
	fp->cpufreq_governor = read_line(root,
					 "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	fp->cpufreq_driver = read_line(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
	fp->smt_control = read_line(root, "sys/devices/system/cpu/smt/control");
	fp->smt_active = read_line(root, "sys/devices/system/cpu/smt/active");

	cpuinfo = read_text(root, "proc/cpuinfo");
	if (cpuinfo) {
		fp->cpu_model = colon_field(cpuinfo, "model name");
		if (!fp->cpu_model)
			fp->cpu_model = arm_cpu_model(cpuinfo);
		fp->microcode = colon_field(cpuinfo, "microcode");
	}
	online = read_line(root, "sys/devices/system/cpu/online");
	if (online)
		fp->nr_cpus = fingerprint_count_cpulist(online);
	if (fp->nr_cpus <= 0)
		fp->nr_cpus = cpuinfo ? count_processors(cpuinfo) : 0;
	free(online);
	free(cpuinfo);

	meminfo = read_text(root, "proc/meminfo");
	mem = meminfo ? colon_field(meminfo, "MemTotal") : NULL;
	if (mem) {
		long kb = strtol(mem, NULL, 10);

		fp->memory_mb = kb > 0 ? kb / 1024 : 0;
	}
	free(mem);
	free(meminfo);
	fp->vulnerabilities = read_vulnerabilities(root);
	fp->numa_nodes = read_numa_nodes(root);

	if (!fp->kernel_release)
		return err_setc(e, ERR_IO, "proc/sys/kernel/osrelease",
				"cannot read '%s/proc/sys/kernel/osrelease'", root);
	return 0;
}

void fingerprint_release(struct fingerprint *fp)
{
	free(fp->hostname);
	free(fp->arch);
	free(fp->kernel_release);
	free(fp->kernel_version);
	free(fp->cmdline);
	free(fp->cpu_model);
	free(fp->microcode);
	free(fp->cpufreq_governor);
	free(fp->cpufreq_driver);
	free(fp->smt_control);
	free(fp->smt_active);
	free(fp->numa_nodes);
	json_decref(fp->vulnerabilities);
	memset(fp, 0, sizeof(*fp));
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *fingerprint_json(const struct fingerprint *fp)
{
	json_t *o = json_object();

	json_object_set_new(o, "hostname", str_or_null(fp->hostname));
	json_object_set_new(o, "arch", str_or_null(fp->arch));
	json_object_set_new(o, "kernel_release", str_or_null(fp->kernel_release));
	json_object_set_new(o, "kernel_version", str_or_null(fp->kernel_version));
	json_object_set_new(o, "cmdline", str_or_null(fp->cmdline));
	json_object_set_new(o, "cpu_model", str_or_null(fp->cpu_model));
	json_object_set_new(o, "microcode", str_or_null(fp->microcode));
	json_object_set_new(o, "nr_cpus", json_integer(fp->nr_cpus));
	json_object_set_new(o, "memory_mb", json_integer(fp->memory_mb));
	json_object_set_new(o, "cpufreq_governor", str_or_null(fp->cpufreq_governor));
	json_object_set_new(o, "cpufreq_driver", str_or_null(fp->cpufreq_driver));
	json_object_set_new(o, "smt_control", str_or_null(fp->smt_control));
	json_object_set_new(o, "smt_active", str_or_null(fp->smt_active));
	json_object_set_new(o, "numa_nodes", str_or_null(fp->numa_nodes));
	json_object_set_new(o, "vulnerabilities",
			    fp->vulnerabilities ? json_deep_copy(fp->vulnerabilities) :
						  json_object());
	return o;
}

void fingerprint_stamp_runs(const struct fingerprint *fp, json_t *runs)
{
	json_t *run;
	size_t i;

	json_array_foreach (runs, i, run) {
		json_t *hfp = json_object();

		/* a value that is not UTF-8 (json_string() NULL) leaves its field out: hostfp.h
		 * compares only fields every run carries */
		json_object_set_new(hfp, "cpu_model", str_or_null(fp->cpu_model));
		json_object_set_new(hfp, "microcode", str_or_null(fp->microcode));
		json_object_set_new(hfp, "cpufreq_governor", str_or_null(fp->cpufreq_governor));
		json_object_set_new(hfp, "kernel_release", str_or_null(fp->kernel_release));
		json_object_set_new(hfp, "cmdline", str_or_null(fp->cmdline));
		json_object_set_new(hfp, "numa_nodes", str_or_null(fp->numa_nodes));
		json_object_set_new(hfp, "accel",
				    str_or_null(json_string_value(json_object_get(run, "accel"))));
		json_object_set_new(run, "host_fingerprint", hfp);
	}
}
