/* The job params that shape the test machine (see vmspec.h). */
#include "vmspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vmspec_params[] = {
	"measure", "accel", "vcpus", "pin", "hugepages", "numa", NULL
};

int vmspec_is_param(const char *key)
{
	for (size_t i = 0; vmspec_params[i]; i++)
		if (!strcmp(vmspec_params[i], key))
			return 1;
	return 0;
}

const char *vmspec_capability(const struct vmspec *v, const char *arch, char *buf, size_t n)
{
	snprintf(buf, n, "%s-%s", v && v->accel && !strcmp(v->accel, "kexec") ? "kexec" : "qemu",
		 arch);
	return buf;
}

const char *vmspec_job_capability(const char *kconfig, const char *arch, const char *params,
				  char *buf, size_t n)
{
	struct vmspec v;
	struct err e = { 0 };
	json_t *p = NULL;
	int shaped;

	if (kconfig && !strcmp(kconfig, "host")) {
		snprintf(buf, n, "host");
		return buf;
	}
	if (params && *params)
		p = json_loads(params, 0, NULL);
	shaped = !vmspec_parse(p, "", &v, &e);
	vmspec_capability(shaped ? &v : NULL, arch ? arch : "x86_64", buf, n);
	json_decref(p);
	return buf;
}

int vmspec_max_vcpus(const char *arch, const char **machine)
{
	int x86 = arch && !strcmp(arch, "x86_64"), arm = arch && !strcmp(arch, "aarch64");

	if (machine)
		*machine = x86 ? "pc" : arm ? "virt" : NULL;
	return x86 ? 255 : arm ? 512 : 1024;
}

static int bad(struct err *e, const char *prefix, const char *key, const char *what)
{
	char field[320];

	snprintf(field, sizeof(field), "%sparams.%s", prefix, key);
	return err_setc(e, ERR_INVALID_FIELD, field, "'%s' is %s", key, what);
}

/* an integer in lo..hi, given as a JSON integer or its decimal text */
static int whole(const json_t *v, long lo, long hi, long *out)
{
	if (json_is_integer(v))
		*out = (long)json_integer_value(v);
	else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char tail;

		if (sscanf(s, "%ld%c", out, &tail) != 1 || s[0] == '+' || s[0] == ' ')
			return 0;
	} else
		return 0;
	return *out >= lo && *out <= hi;
}

int vmspec_parse(const json_t *params, const char *prefix, struct vmspec *v, struct err *e)
{
	const json_t *x;
	const char *s;
	long n;

	memset(v, 0, sizeof(*v));
	if (!json_is_object(params))
		return 0;
	if ((x = json_object_get(params, "measure"))) {
		s = json_string_value(x);
		if (!s || (strcmp(s, "wallclock") && strcmp(s, "icount")))
			return bad(e, prefix, "measure", "\"wallclock\" or \"icount\"");
		v->icount = !strcmp(s, "icount");
	}
	if ((x = json_object_get(params, "accel"))) {
		s = json_string_value(x);
		if (!s || (strcmp(s, "kvm") && strcmp(s, "tcg") && strcmp(s, "kexec")))
			return bad(e, prefix, "accel", "\"kvm\", \"tcg\" or \"kexec\"");
		v->accel = !strcmp(s, "kvm") ? "kvm" : !strcmp(s, "tcg") ? "tcg" : "kexec";
	}
	if ((x = json_object_get(params, "vcpus"))) {
		if (!whole(x, 1, 1024, &n))
			return bad(e, prefix, "vcpus", "a whole number 1..1024");
		v->vcpus = (int)n;
	}
	if ((x = json_object_get(params, "pin"))) {
		s = json_string_value(x);
		if (json_is_boolean(x))
			v->pin = json_is_true(x);
		else if (s && (!strcmp(s, "true") || !strcmp(s, "false")))
			v->pin = !strcmp(s, "true"); /* k=v on a command line: pin=true */
		else if (whole(x, 0, 1, &n))
			v->pin = (int)n;
		else
			return bad(e, prefix, "pin", "true or false");
	}
	if ((x = json_object_get(params, "hugepages"))) {
		s = json_string_value(x);
		if (s && !strcmp(s, "2M"))
			v->hugepages_kb = 2048;
		else if (s && !strcmp(s, "1G"))
			v->hugepages_kb = 1048576;
		else if (!s || strcmp(s, "none"))
			return bad(e, prefix, "hugepages", "\"2M\", \"1G\" or \"none\"");
	}
	if ((x = json_object_get(params, "numa"))) {
		s = json_string_value(x);
		if (s && !strcmp(s, "host"))
			v->numa = -1;
		else if (whole(x, 1, 64, &n))
			v->numa = (int)n;
		else
			return bad(e, prefix, "numa", "\"host\" or a node count 1..64");
	}
	if (v->icount && v->accel && !strcmp(v->accel, "kvm"))
		return bad(e, prefix, "accel",
			   "\"tcg\" under measure \"icount\" (icount is TCG's)");
	if (v->accel && !strcmp(v->accel, "kexec")) {
		/* the machine itself: its CPUs, memory and nodes are what it has */
		static const char *const guest_only[] = { "measure", "vcpus", "pin", "hugepages",
							  "numa" };

		for (size_t i = 0; i < sizeof(guest_only) / sizeof(guest_only[0]); i++)
			if (json_object_get(params, guest_only[i]))
				return bad(e, prefix, guest_only[i],
					   "not for accel \"kexec\" (the job runs on the whole "
					   "machine, in wall-clock time)");
	}
	if (v->icount && v->vcpus > 1)
		return bad(e, prefix, "vcpus", "1 under measure \"icount\" (icount runs one vCPU)");
	/* icount runs one vCPU whether or not vcpus says so: one node */
	if (v->numa > 0 && (v->vcpus || v->icount) && v->numa > (v->vcpus ? v->vcpus : 1))
		return bad(e, prefix, "numa", "at most 'vcpus' nodes (each node needs a vCPU)");
	return 0;
}

/*
 * Whether params' key (pin or hugepages) says what its absence says: pin
 * false, hugepages "none". A host has no guest to pin or to back with huge
 * pages, so asking for neither asks it for nothing (vmspec_canonical() drops
 * both spellings too).
 */
static int says_absent(const json_t *params, const char *key)
{
	json_t *one;
	struct vmspec v;
	struct err ignored = { 0 };
	int absent;

	if (strcmp(key, "pin") && strcmp(key, "hugepages"))
		return 0;
	one = json_object();
	if (!one || json_object_set(one, key, json_object_get(params, key)))
		abort();
	absent = !vmspec_parse(one, "", &v, &ignored) && !v.pin && !v.hugepages_kb;
	json_decref(one);
	return absent;
}

int vmspec_host_check(const json_t *params, const char *prefix, struct err *e)
{
	/* measure is the one a host run reads too: wall-clock (icount needs qemu) */
	for (size_t i = 1; vmspec_params[i]; i++)
		if (json_is_object(params) && json_object_get(params, vmspec_params[i]) &&
		    !says_absent(params, vmspec_params[i])) {
			char field[320];

			snprintf(field, sizeof(field), "%sparams.%s", prefix, vmspec_params[i]);
			return err_setc(e, ERR_INVALID_FIELD, field,
					"'%s' shapes a qemu guest; kconfig \"host\" runs on the host",
					vmspec_params[i]);
		}
	return 0;
}

int vmspec_host_job_check(const json_t *params, const char *prefix, struct err *e)
{
	const char *measure;

	if (vmspec_host_check(params, prefix, e))
		return -1;
	measure = json_string_value(json_object_get(params, "measure"));
	if (measure && !strcmp(measure, "icount")) {
		char field[320];

		snprintf(field, sizeof(field), "%sparams.measure", prefix);
		return err_setc(e, ERR_INVALID_FIELD, field,
				"'measure' \"icount\" needs qemu; kconfig \"host\" measures wall-clock "
				"time");
	}
	return 0;
}

int vmspec_canonical(json_t *params, const char *prefix, struct err *e)
{
	struct vmspec v;

	if (!json_is_object(params))
		return 0;
	if (vmspec_parse(params, prefix, &v, e))
		return -1;
	/* each present key gets the value vmspec_parse() read from it; one that says what its
	 * absence says everywhere (pin false, hugepages "none", measure "wallclock") is left
	 * out, as a machine without it is the same machine */
	if (json_object_get(params, "measure") && !v.icount)
		json_object_del(params, "measure");
	if (json_object_get(params, "pin") && v.pin)
		json_object_set_new(params, "pin", json_true());
	else if (json_object_get(params, "pin"))
		json_object_del(params, "pin");
	if (json_object_get(params, "hugepages") && !v.hugepages_kb)
		json_object_del(params, "hugepages");
	if (json_object_get(params, "vcpus"))
		json_object_set_new(params, "vcpus", json_integer(v.vcpus));
	if (json_object_get(params, "numa"))
		json_object_set_new(params, "numa",
				    v.numa < 0 ? json_string("host") : json_integer(v.numa));
	return 0;
}

int vmspec_arch_check(const json_t *params, const char *arch, const char *prefix, struct err *e)
{
	struct vmspec v;
	const char *machine;
	int most = vmspec_max_vcpus(arch, &machine);
	char what[160];

	if (vmspec_parse(params, prefix, &v, e))
		return -1;
	if (!machine || v.vcpus <= most)
		return 0;
	snprintf(what, sizeof(what), "at most %d on %s (qemu's %s machine takes no more), not %d",
		 most, arch, machine, v.vcpus);
	return bad(e, prefix, "vcpus", what);
}
