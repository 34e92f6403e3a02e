/*
 * An A/B request from a kernel test robot report:
 * POST /api/v1/requests with "from_mail" (the mail's raw text). The mail
 * gives what the body leaves out (robotmail_request(): head, base,
 * testcases mapped onto this lab's cases, label); the body still names
 * the tree and targets. "dry_run": true answers 200 {request, robot}, the
 * request that would be queued and what was read from the mail, and
 * stores nothing (no tree or target needed then).
 */
#include "server/api/api.h"
#include "robotmail.h"

int requests_from_mail(json_t *b, json_t **dry, struct err *e)
{
	json_t *mail = json_object_get(b, "from_mail"), *dr = json_object_get(b, "dry_run");
	struct robotmail m;

	*dry = NULL;
	if (dr && !json_is_boolean(dr))
		return err_setc(e, ERR_INVALID_FIELD, "dry_run", "'dry_run' must be true or false");
	if (!mail) {
		if (json_is_true(dr))
			return err_setc(e, ERR_INVALID_FIELD, "dry_run",
					"'dry_run' goes with 'from_mail'");
		json_object_del(b, "dry_run");
		return 0;
	}
	if (!json_is_string(mail))
		return err_setc(e, ERR_INVALID_FIELD, "from_mail",
				"'from_mail' must be the text of a kernel test robot mail");
	if (robotmail_parse(json_string_value(mail), json_string_length(mail), &m, e))
		return -1;
	json_object_del(b, "from_mail");
	json_object_del(b, "dry_run");
	if (robotmail_request(&m, b, e)) {
		robotmail_release(&m);
		return -1;
	}
	if (json_is_true(dr))
		*dry = json_pack("{s:O,s:o}", "request", b, "robot", robotmail_json(&m));
	robotmail_release(&m);
	return 0;
}
