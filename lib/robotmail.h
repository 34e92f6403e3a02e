#ifndef REGTRACK_ROBOTMAIL_H
#define REGTRACK_ROBOTMAIL_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"

/*
 * A report mail of the 0-day kernel test robot, read back (to answer
 * "does this x86 report hold on arm64?"). Both layouts the robot has used:
 *
 *   2019-2022 (ROBOTMAIL_FYI)             today (ROBOTMAIL_NOTICED)
 *   FYI, we noticed a 385.1% improvement  kernel test robot noticed a -7.1%
 *   of M due to commit:                   regression of M on:
 *   commit: SHA ("subject")               commit: SHA ("subject")
 *   URL BRANCH                            URL BRANCH
 *   in testcase: T                        testcase: T
 *   on test machine: DESCRIPTION          config: K          (not always)
 *   with following parameters:            compiler: C        (not always)
 *       key: value (indented)             test machine: DESCRIPTION
 *                                         parameters:
 *                                             key: value (indented)
 *
 * and in both the LKP comparison block below: the axis line
 * (`compiler/cpufreq_governor/kconfig/.../tbox_group/test/testcase:`) with
 * its values, then `commit:` and the two commits compared (base, head) and
 * the table's header row with longer prefixes of both shas. kconfig,
 * compiler and tbox_group come from the `config:`/`compiler:` lines when
 * the mail has them, else from the axis of the block whose testcase is the
 * mail's. The mail may be a bare body, RFC 5322 headers and a body, or
 * multipart (the first text/plain part is read); a quoted-printable part
 * is decoded. Header continuation lines are unfolded. A report quoted in
 * a reply (`> `, `>>> `: the prefix of its headline line) is read with that
 * prefix taken off each line; lines quoted less deeply or not at all read
 * as blank. The compiler of a functional report ("FYI, we noticed the
 * following commit (built with gcc-9):") comes from that headline.
 *
 * Pure: text in, fields out (a scratch copy of the body aside, the params
 * object is the one allocation that outlives the call). At most 16 MiB.
 */

enum robotmail_layout { ROBOTMAIL_FYI = 1, ROBOTMAIL_NOTICED = 2 };

struct robotmail {
	enum robotmail_layout layout;
	char message_id[256]; /* "<...>" as in the header; "" when absent */
	char subject[512];    /* unfolded; "" when absent */
	char commit[41];      /* the tested commit: 7..40 lowercase hex */
	char commit_subject[512];
	char repo_url[512], repo_branch[128]; /* the line under commit:; "" when absent */
	/*
	 * A base the mail names itself (a `base:` or `base-commit:` line with
	 * a sha); "" when none, as in every report on a tree's own commit: the
	 * request's base is then COMMIT^.
	 */
	char base[41];
	/*
	 * A report on a posted patch names where the commit was made and on
	 * what: `url: https://github.com/intel-lab-lkp/...` (in repo_url),
	 * `base: URL SHA-or-BRANCH` and `patch link: LORE-URL`; "" when absent.
	 */
	char base_url[512], base_branch[128], patch_link[512];
	/* the comparison's base as the table abbreviates it (its longest prefix); "" when no table */
	char compared_base[41];
	char testcase[128];
	json_t *params; /* new object {key: "value"} of the parameters block, in order; never NULL after 0 */
	char kconfig[128], compiler[64], tbox_group[128]; /* "" when the mail names none */
	char machine[512]; /* the test machine line ("128 threads 2 sockets Intel(R) ...") */
	/* the headline: "-7.1% regression of vm-scalability.throughput" */
	char metric[256];     /* "" when the mail's headline is no performance change */
	char change_pct[32];  /* as written: "-7.1", "385.1", "+2.1e+05" */
	char change_kind[16]; /* "regression" or "improvement" */
};

/*
 * Reads the mail text[0..len) (need not be NUL-terminated) into *out
 * (cleared first). Returns 0, or -1 with e (out's params released):
 * ERR_TOO_LARGE (detail "from_mail") past 16 MiB; ERR_INVALID_FIELD "not a
 * kernel test robot report" (detail "from_mail": neither headline), or the
 * first missing part in the order commit, testcase, machine (detail
 * "from_mail.commit", "from_mail.testcase", "from_mail.machine"; a machine
 * is the test machine line or a tbox_group). Release *out with
 * robotmail_release() after 0.
 */
int robotmail_parse(const char *text, size_t len, struct robotmail *out, struct err *e)
	__attribute__((warn_unused_result));

void robotmail_release(struct robotmail *m);

/*
 * The mail's fields as a new JSON object (caller decrefs): layout ("fyi"
 * or "noticed"), message_id, subject, commit, commit_subject, repo {url,
 * branch}, base, base_repo {url, branch} (null without a base: line),
 * patch_link, compared_base, testcase, params, kconfig, compiler,
 * tbox_group, machine, change {metric, pct, kind}; "" fields are null.
 */
json_t *robotmail_json(const struct robotmail *m);

/*
 * Fills the A/B request object req (POST /api/v1/requests' fields; borrowed)
 * from the mail, for each field req does not have yet: head (the commit;
 * not with "patches", a series tested on the base instead),
 * base (the mail's base, else COMMIT^), testcases ([{testcase, params}]:
 * the robot's testcase and params mapped onto this lab's case, below) and
 * label (the Message-ID). kconfig and compiler are left to req and the
 * lab's defaults: the robot's (x86_64-rhel-8.3, gcc-13) are its own
 * machines' and robotmail_json() reports them.
 *
 * The mapping, a table in robotmail.c: vm-scalability test small-allocs
 * and small-allocs-mt -> small-allocs mode=process / mode=thread;
 * unixbench test execl -> execl; will-it-scale test page_fault2 ->
 * page-fault; nr_task (and will-it-scale's mode) carried over, the rest
 * (runtime, cpufreq_governor, ucode: the robot's machine setup) left out.
 * A case with no mapping is -1 with e (ERR_INVALID_FIELD, detail
 * "from_mail.testcase", message "the robot's testcase 'T' (test: X) is not
 * one this lab runs (it runs ...; name the testcases to run another)"):
 * a req that names its own testcases is not mapped. Returns 0, or -1 with e.
 */
int robotmail_request(const struct robotmail *m, json_t *req, struct err *e)
	__attribute__((warn_unused_result));

#endif
