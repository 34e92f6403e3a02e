/* lib/vmspec.c: the machine params of a job, as the server checks them at submit and the
 * worker reads them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "vmspec.h"

static int parse(const char *json, struct vmspec *v, struct err *e)
{
	json_t *p = json_loads(json, 0, NULL);
	int rc;

	assert_non_null(p);
	rc = vmspec_parse(p, "", v, e);
	json_decref(p);
	return rc;
}

static void test_good(void **state UNUSED)
{
	struct vmspec v;
	struct err e;

	assert_int_equal(parse("{\"nr_task\": 16}", &v, &e), 0);
	assert_null(v.accel);
	assert_int_equal(v.vcpus + v.pin + v.hugepages_kb + v.numa + v.icount, 0);
	assert_int_equal(parse("{\"accel\": \"kvm\", \"vcpus\": 16, \"pin\": true, "
			       "\"hugepages\": \"1G\", \"numa\": \"host\"}",
			       &v, &e),
			 0);
	assert_string_equal(v.accel, "kvm");
	assert_int_equal(v.vcpus, 16);
	assert_int_equal(v.pin, 1);
	assert_int_equal(v.hugepages_kb, 1048576);
	assert_int_equal(v.numa, -1);
	/* as a command line's k=v gives them: text */
	assert_int_equal(parse("{\"vcpus\": \"8\", \"pin\": \"true\", \"numa\": \"2\", "
			       "\"hugepages\": \"2M\", \"measure\": \"wallclock\"}",
			       &v, &e),
			 0);
	assert_int_equal(v.vcpus, 8);
	assert_int_equal(v.pin, 1);
	assert_int_equal(v.numa, 2);
	assert_int_equal(v.hugepages_kb, 2048);
	assert_int_equal(parse("{\"measure\": \"icount\", \"vcpus\": 1, \"accel\": \"tcg\", "
			       "\"pin\": 0}",
			       &v, &e),
			 0);
	assert_int_equal(v.icount, 1);
	assert_int_equal(v.pin, 0);
	{
		char cap[32];

		assert_string_equal(vmspec_capability(&v, "aarch64", cap, sizeof(cap)),
				    "qemu-aarch64");
		assert_int_equal(parse("{\"accel\": \"kexec\", \"nr_task\": 8}", &v, &e), 0);
		assert_string_equal(v.accel, "kexec");
		assert_string_equal(vmspec_capability(&v, "x86_64", cap, sizeof(cap)),
				    "kexec-x86_64");
		assert_string_equal(vmspec_capability(NULL, "x86_64", cap, sizeof(cap)),
				    "qemu-x86_64");
		/* the one mapping every path that queues a job uses */
		assert_string_equal(vmspec_job_capability("arm64-defconfig", "aarch64",
							  "{\"accel\":\"kexec\"}", cap,
							  sizeof(cap)),
				    "kexec-aarch64");
		assert_string_equal(vmspec_job_capability("x86_64-defconfig", NULL,
							  "{\"accel\":\"kexec\",\"nr_task\":1}",
							  cap, sizeof(cap)),
				    "kexec-x86_64");
		assert_string_equal(vmspec_job_capability("x86_64-defconfig", "x86_64",
							  "{\"accel\":\"tcg\"}", cap, sizeof(cap)),
				    "qemu-x86_64");
		assert_string_equal(vmspec_job_capability("x86_64-defconfig", "x86_64", NULL, cap,
							  sizeof(cap)),
				    "qemu-x86_64");
		/* a shape refused at submit, or text that is not JSON: qemu (the 400 is the
		 * caller's) */
		assert_string_equal(vmspec_job_capability("x86_64-defconfig", "x86_64",
							  "{\"accel\":\"kexec\",\"vcpus\":4}", cap,
							  sizeof(cap)),
				    "qemu-x86_64");
		assert_string_equal(vmspec_job_capability("x86_64-defconfig", "x86_64", "{", cap,
							  sizeof(cap)),
				    "qemu-x86_64");
		assert_string_equal(vmspec_job_capability("host", NULL, "{\"accel\":\"kexec\"}",
							  cap, sizeof(cap)),
				    "host");
	}
	assert_true(vmspec_is_param("numa"));
	assert_false(vmspec_is_param("nr_task"));
}

static void test_bad(void **state UNUSED)
{
	static const struct {
		const char *json, *detail, *message;
	} cases[] = {
		{ "{\"vcpus\": 0}", "params.vcpus", "'vcpus' is a whole number 1..1024" },
		{ "{\"vcpus\": 1025}", "params.vcpus", "'vcpus' is a whole number 1..1024" },
		{ "{\"vcpus\": \"8 \"}", "params.vcpus", "'vcpus' is a whole number 1..1024" },
		{ "{\"vcpus\": 2.5}", "params.vcpus", "'vcpus' is a whole number 1..1024" },
		{ "{\"pin\": \"yes\"}", "params.pin", "'pin' is true or false" },
		{ "{\"accel\": \"hvf\"}", "params.accel",
		  "'accel' is \"kvm\", \"tcg\" or \"kexec\"" },
		{ "{\"accel\": \"kexec\", \"vcpus\": 4}", "params.vcpus",
		  "'vcpus' is not for accel \"kexec\" (the job runs on the whole machine, in "
		  "wall-clock time)" },
		{ "{\"accel\": \"kexec\", \"measure\": \"icount\"}", "params.measure",
		  "'measure' is not for accel \"kexec\" (the job runs on the whole machine, in "
		  "wall-clock time)" },
		{ "{\"hugepages\": 2}", "params.hugepages",
		  "'hugepages' is \"2M\", \"1G\" or \"none\"" },
		{ "{\"numa\": 0}", "params.numa", "'numa' is \"host\" or a node count 1..64" },
		{ "{\"numa\": 3, \"vcpus\": 2}", "params.numa",
		  "'numa' is at most 'vcpus' nodes (each node needs a vCPU)" },
		{ "{\"measure\": \"cycles\"}", "params.measure",
		  "'measure' is \"wallclock\" or \"icount\"" },
		{ "{\"measure\": \"icount\", \"vcpus\": 2}", "params.vcpus",
		  "'vcpus' is 1 under measure \"icount\" (icount runs one vCPU)" },
		{ "{\"measure\": \"icount\", \"accel\": \"kvm\"}", "params.accel",
		  "'accel' is \"tcg\" under measure \"icount\" (icount is TCG's)" },
		/* icount's one vCPU has one node: the worker would refuse 2 after the build */
		{ "{\"measure\": \"icount\", \"numa\": 2}", "params.numa",
		  "'numa' is at most 'vcpus' nodes (each node needs a vCPU)" },
	};
	struct vmspec v;
	struct err e;
	json_t *p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].json, &v, &e), -1);
		assert_int_equal(e.id, ERR_INVALID_FIELD);
		assert_string_equal(e.detail, cases[i].detail);
		assert_string_equal(e.message, cases[i].message);
	}
	/* in a plan or request: the testcase's place first */
	p = json_pack("{s:i}", "vcpus", -1);
	assert_int_equal(vmspec_parse(p, "testcases[2].", &v, &e), -1);
	assert_string_equal(e.detail, "testcases[2].params.vcpus");
	json_decref(p);
}

/* params JSON in, its text after vmspec_canonical() (sorted, compact) out */
static char *canonical(const char *json, const char *prefix, int *rc, struct err *e)
{
	json_t *p = json_loads(json, 0, NULL);
	char *text;

	assert_non_null(p);
	*rc = vmspec_canonical(p, prefix, e);
	text = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(p);
	return text;
}

static void test_canonical(void **state UNUSED)
{
	/* each spelling a command line, the API or a plan gives, and the one form of it */
	static const struct {
		const char *json, *want;
	} cases[] = {
		{ "{\"pin\": true}", "{\"pin\":true}" },
		{ "{\"pin\": \"true\"}", "{\"pin\":true}" },
		{ "{\"pin\": 1}", "{\"pin\":true}" },
		{ "{\"pin\": \"1\"}", "{\"pin\":true}" },
		/* what leaving the key out means, in any spelling: left out, one setup */
		{ "{\"pin\": false}", "{}" },
		{ "{\"pin\": \"false\"}", "{}" },
		{ "{\"pin\": 0}", "{}" },
		{ "{\"pin\": \"0\", \"vcpus\": 4}", "{\"vcpus\":4}" },
		{ "{\"hugepages\": \"none\", \"vcpus\": \"4\"}", "{\"vcpus\":4}" },
		{ "{\"measure\": \"wallclock\", \"nr_task\": 4}", "{\"nr_task\":4}" },
		{ "{\"measure\": \"wallclock\", \"pin\": false, \"hugepages\": \"none\"}", "{}" },
		/* absent, the worker chooses (the KVM probe, its CPUs): a value written is kept */
		{ "{\"accel\": \"tcg\", \"vcpus\": 2}", "{\"accel\":\"tcg\",\"vcpus\":2}" },
		{ "{\"accel\": \"kvm\"}", "{\"accel\":\"kvm\"}" },
		/* the same as absent only under icount, which a plan adds afterwards: kept */
		{ "{\"measure\": \"icount\", \"vcpus\": 1, \"accel\": \"tcg\"}",
		  "{\"accel\":\"tcg\",\"measure\":\"icount\",\"vcpus\":1}" },
		{ "{\"vcpus\": 1}", "{\"vcpus\":1}" },
		/* one declared node is not none */
		{ "{\"numa\": 1}", "{\"numa\":1}" },
		/* the values that are not the default stay */
		{ "{\"pin\": true, \"hugepages\": \"1G\", \"measure\": \"icount\"}",
		  "{\"hugepages\":\"1G\",\"measure\":\"icount\",\"pin\":true}" },
		{ "{\"vcpus\": 4}", "{\"vcpus\":4}" },
		{ "{\"vcpus\": \"4\"}", "{\"vcpus\":4}" },
		{ "{\"vcpus\": \"1024\"}", "{\"vcpus\":1024}" },
		{ "{\"numa\": 2, \"vcpus\": 2}", "{\"numa\":2,\"vcpus\":2}" },
		{ "{\"numa\": \"2\", \"vcpus\": \"2\"}", "{\"numa\":2,\"vcpus\":2}" },
		{ "{\"numa\": \"host\"}", "{\"numa\":\"host\"}" },
		{ "{\"measure\": \"icount\", \"accel\": \"tcg\", \"hugepages\": \"2M\"}",
		  "{\"accel\":\"tcg\",\"hugepages\":\"2M\",\"measure\":\"icount\"}" },
		{ "{\"accel\": \"kexec\"}", "{\"accel\":\"kexec\"}" },
		/* the case's own params are its own business: "16" stays text, "true" too */
		{ "{\"nr_task\": \"16\", \"test\": \"true\", \"pin\": \"true\"}",
		  "{\"nr_task\":\"16\",\"pin\":true,\"test\":\"true\"}" },
		{ "{}", "{}" },
	};
	static const struct {
		const char *json, *detail, *message;
	} bad[] = {
		{ "{\"pin\": \"yes\", \"vcpus\": \"2\"}", "testcases[1].params.pin",
		  "'pin' is true or false" },
		{ "{\"pin\": 2}", "testcases[1].params.pin", "'pin' is true or false" },
		{ "{\"pin\": \"True\"}", "testcases[1].params.pin", "'pin' is true or false" },
		{ "{\"vcpus\": \"4x\", \"pin\": \"true\"}", "testcases[1].params.vcpus",
		  "'vcpus' is a whole number 1..1024" },
		{ "{\"vcpus\": \"0\"}", "testcases[1].params.vcpus",
		  "'vcpus' is a whole number 1..1024" },
		{ "{\"numa\": \"two\"}", "testcases[1].params.numa",
		  "'numa' is \"host\" or a node count 1..64" },
		{ "{\"numa\": \"3\", \"vcpus\": \"2\"}", "testcases[1].params.numa",
		  "'numa' is at most 'vcpus' nodes (each node needs a vCPU)" },
		/* a default is still a key: not for kexec, and kept when the rest is refused */
		{ "{\"accel\": \"kexec\", \"pin\": false}", "testcases[1].params.pin",
		  "'pin' is not for accel \"kexec\" (the job runs on the whole machine, in "
		  "wall-clock time)" },
		{ "{\"hugepages\": \"none\", \"vcpus\": \"0\"}", "testcases[1].params.vcpus",
		  "'vcpus' is a whole number 1..1024" },
	};
	struct err e;
	char *text;
	int rc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		text = canonical(cases[i].json, "", &rc, &e);
		assert_int_equal(rc, 0);
		assert_string_equal(text, cases[i].want);
		free(text);
	}
	/* refused with the field named, and params left as they were */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *before = json_loads(bad[i].json, 0, NULL);
		char *was = json_dumps(before, JSON_COMPACT | JSON_SORT_KEYS);

		text = canonical(bad[i].json, "testcases[1].", &rc, &e);
		assert_int_equal(rc, -1);
		assert_int_equal(e.id, ERR_INVALID_FIELD);
		assert_string_equal(e.detail, bad[i].detail);
		assert_string_equal(e.message, bad[i].message);
		assert_string_equal(text, was);
		free(text);
		free(was);
		json_decref(before);
	}
	/* no params: nothing to do */
	assert_int_equal(vmspec_canonical(NULL, "", &e), 0);
}

/* host mode: none of accel..numa, the first in the table's order named; measure passes, and
 * pin false or hugepages "none" (what their absence says) */
static void test_host_check(void **state)
{
	static const struct {
		const char *json, *detail, *message;
	} cases[] = {
		{ "{\"pin\":true}", "params.pin",
		  "'pin' shapes a qemu guest; kconfig \"host\" runs on the host" },
		{ "{\"numa\":1,\"vcpus\":\"2\"}", "params.vcpus",
		  "'vcpus' shapes a qemu guest; kconfig \"host\" runs on the host" },
		{ "{\"hugepages\":\"2M\",\"accel\":\"tcg\"}", "testcases[0].params.accel",
		  "'accel' shapes a qemu guest; kconfig \"host\" runs on the host" },
		{ "{\"numa\":\"host\",\"nr_task\":4}", "params.numa",
		  "'numa' shapes a qemu guest; kconfig \"host\" runs on the host" },
		{ "{\"hugepages\":\"1G\",\"pin\":false}", "params.hugepages",
		  "'hugepages' shapes a qemu guest; kconfig \"host\" runs on the host" },
		{ "{\"pin\":\"maybe\"}", "params.pin",
		  "'pin' shapes a qemu guest; kconfig \"host\" runs on the host" },
	};
	/* what their absence says, in each spelling vmspec_parse() takes: nothing asked */
	static const char *const absent[] = {
		"{\"pin\":false,\"hugepages\":\"none\"}",
		"{\"pin\":\"false\"}",
		"{\"pin\":0}",
		"{\"pin\":\"0\",\"measure\":\"wallclock\"}",
	};
	struct err e = { 0 };
	json_t *p;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = json_loads(cases[i].json, 0, NULL);
		assert_int_equal(vmspec_host_check(p,
						   strncmp(cases[i].detail, "testcases", 9) ?
							   "" :
							   "testcases[0].",
						   &e),
				 -1);
		assert_int_equal(e.id, ERR_INVALID_FIELD);
		assert_string_equal(e.detail, cases[i].detail);
		assert_string_equal(e.message, cases[i].message);
		json_decref(p);
	}
	p = json_loads("{\"measure\":\"wallclock\",\"nr_task\":4,\"test\":\"x\"}", 0, NULL);
	assert_int_equal(vmspec_host_check(p, "", &e), 0);
	json_decref(p);
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		p = json_loads(absent[i], 0, NULL);
		assert_non_null(p);
		assert_int_equal(vmspec_host_check(p, "", &e), 0);
		json_decref(p);
	}
	assert_int_equal(vmspec_host_check(NULL, "", &e), 0);
}

/* what qemu's machine of each arch takes: pc 255, virt 512, else vmspec_parse()'s 1024 */
static void test_max_vcpus(void **state)
{
	static const struct {
		const char *arch, *json, *prefix, *message; /* message NULL: accepted */
	} cases[] = {
		{ "x86_64", "{\"vcpus\":255}", "", NULL },
		{ "x86_64", "{\"vcpus\":256}", "",
		  "'vcpus' is at most 255 on x86_64 (qemu's pc machine takes no more), not 256" },
		{ "x86_64", "{\"vcpus\":\"1024\"}", "testcases[1].",
		  "'vcpus' is at most 255 on x86_64 (qemu's pc machine takes no more), not 1024" },
		{ "aarch64", "{\"vcpus\":512,\"pin\":true}", "", NULL },
		{ "aarch64", "{\"vcpus\":513}", "",
		  "'vcpus' is at most 512 on aarch64 (qemu's virt machine takes no more), not 513" },
		{ NULL, "{\"vcpus\":1024}", "", NULL },
		{ "riscv64", "{\"vcpus\":1024}", "", NULL },
		{ "x86_64", "{\"nr_task\":4096}", "", NULL },
		{ "x86_64", NULL, "", NULL },
	};
	const char *machine = "unset";
	struct err e = { 0 };
	char detail[64];
	json_t *p;

	(void)state;
	assert_int_equal(vmspec_max_vcpus("x86_64", &machine), 255);
	assert_string_equal(machine, "pc");
	assert_int_equal(vmspec_max_vcpus("aarch64", &machine), 512);
	assert_string_equal(machine, "virt");
	assert_int_equal(vmspec_max_vcpus("arm64", &machine), 1024);
	assert_null(machine);
	assert_int_equal(vmspec_max_vcpus(NULL, NULL), 1024);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = cases[i].json ? json_loads(cases[i].json, 0, NULL) : NULL;
		if (!cases[i].message) {
			assert_int_equal(vmspec_arch_check(p, cases[i].arch, cases[i].prefix, &e),
					 0);
		} else {
			assert_int_equal(vmspec_arch_check(p, cases[i].arch, cases[i].prefix, &e),
					 -1);
			snprintf(detail, sizeof(detail), "%sparams.vcpus", cases[i].prefix);
			assert_int_equal(e.id, ERR_INVALID_FIELD);
			assert_string_equal(e.detail, detail);
			assert_string_equal(e.message, cases[i].message);
		}
		json_decref(p);
	}
	/* vmspec_parse()'s own refusals come first, whatever the arch */
	p = json_loads("{\"vcpus\":1025}", 0, NULL);
	assert_int_equal(vmspec_arch_check(p, "x86_64", "", &e), -1);
	assert_string_equal(e.message, "'vcpus' is a whole number 1..1024");
	json_decref(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),	  cmocka_unit_test(test_bad),
		cmocka_unit_test(test_canonical), cmocka_unit_test(test_host_check),
		cmocka_unit_test(test_max_vcpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
