/* Bare-metal host mode: kexec's argv, the spool record, the resume decision (kexec.h). */
#include "kexec.h"
#include "apiclient.h"
#include "buf.h"
#include "fsutil.h"
#include "kernel.h"
#include "sha256.h"
#include "runcmd.h"
#include "wlog.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

void kexec_load_argv(const char *argv[8], const char *bin, const char *image, const char *initrd,
		     const char *cmdline)
{
	argv[0] = bin;
	argv[1] = "-l";
	argv[2] = image;
	argv[3] = "--initrd";
	argv[4] = initrd;
	argv[5] = "--append";
	argv[6] = cmdline;
	argv[7] = NULL;
}

void kexec_exec_argv(const char *argv[8], const char *bin)
{
	argv[0] = bin;
	argv[1] = "-e";
	argv[2] = NULL;
}

char *kexec_cmdline(const struct kexec_conf *c, long long job_id, const char *nonce)
{
	const char *app = c->append ? c->append : "";

	return xstrfmt("%s%spanic=%d rt.result=%s rt.nonce=%s rt.job=%lld", app, *app ? " " : "",
		       c->panic_s > 0 ? c->panic_s : 10, c->result_dev, nonce, job_id);
}

void kexec_new_nonce(char nonce[KEXECREC_NONCE_LEN + 1])
{
	unsigned char r[KEXECREC_NONCE_LEN / 2];
	size_t got = 0;

	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			abort(); /* the kernel's random source: cannot fail once seeded */
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(nonce + 2 * i, 3, "%02x", r[i]);
}

char *kexec_record_path(const char *work_dir, long long job_id)
{
	return xstrfmt("%s/kexec/job-%lld.json", work_dir, job_id);
}

static int fsync_path(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int kexec_record_save(const char *path, const json_t *rec, struct err *e)
{
	char *tmp = xstrfmt("%s.tmp", path), *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int rc = -1;

	if (slash)
		*slash = '\0';
	if (slash && mkdir(dir, 0700) < 0 && errno != EEXIST) {
		err_setc(e, ERR_IO, dir, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	if (json_dump_file(rec, tmp, JSON_COMPACT) < 0 || fsync_path(tmp, O_RDONLY) < 0 ||
	    rename(tmp, path) < 0 || (slash && fsync_path(dir, O_RDONLY | O_DIRECTORY) < 0)) {
		err_setc(e, ERR_IO, path, "cannot write the kexec record '%s': %s", path,
			 strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(dir);
	free(tmp);
	return rc;
}

int kexec_record_load(const char *path, json_t **rec, struct err *e)
{
	json_error_t je;
	json_t *r;

	*rec = NULL;
	if (access(path, F_OK) < 0) {
		if (errno == ENOENT)
			return 0;
		return err_setc(e, ERR_IO, path, "cannot read '%s': %s", path, strerror(errno));
	}
	r = json_load_file(path, 0, &je);
	if (!json_is_object(r) || !json_is_integer(json_object_get(r, "job_id")) ||
	    !kexecrec_nonce_ok(json_string_value(json_object_get(r, "nonce")))) {
		/* kept for a person: it may name a boot whose result is on the device */
		char *aside = xstrfmt("%s.torn", path);

		json_decref(r);
		if (rename(path, aside) < 0)
			err_setc(e, ERR_IO, path, "torn kexec record '%s' cannot be moved: %s",
				 path, strerror(errno));
		else
			err_setc(e, ERR_TORN, path, "torn kexec record '%s' moved to '%s'", path,
				 aside);
		free(aside);
		return -1;
	}
	*rec = r;
	return 1;
}

int kexec_records_sweep(const char *work_dir)
{
	char *dir = xstrfmt("%s/kexec", work_dir);
	DIR *d = opendir(dir);
	struct dirent *de;
	json_t *done = json_string("done");
	int n = 0, rc = 0;

	if (!d) {
		json_decref(done);
		if (errno != ENOENT) {
			wlog_warn("kexec boot records: cannot read '%s': %s", dir, strerror(errno));
			rc = -1;
		}
		free(dir);
		return rc;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		json_t *rec = NULL;
		char *path;
		struct err e;
		int r;

		if (strncmp(de->d_name, "job-", 4) || len < 10 ||
		    strcmp(de->d_name + len - 5, ".json"))
			continue;
		path = xstrfmt("%s/%s", dir, de->d_name);
		r = kexec_record_load(path, &rec, &e);
		if (r < 0) {
			wlog_warn("kexec boot records: %s", e.message);
			if (e.id != ERR_TORN)
				rc = -1; /* a torn one was moved aside, as a load does */
		} else if (r == 1 && json_object_get(rec, "state") &&
			   json_equal(json_object_get(rec, "state"), done)) {
			if (unlink(path) == 0 || errno == ENOENT) {
				n++;
			} else {
				wlog_warn("kexec boot records: cannot delete '%s': %s", path,
					  strerror(errno));
				rc = -1;
			}
		}
		json_decref(rec);
		free(path);
	}
	closedir(d);
	free(dir);
	json_decref(done);
	if (n)
		wlog_info("kexec boot records: %d of ended jobs deleted", n);
	return rc < 0 ? -1 : n;
}

void kexec_boot_id(char id[37])
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	id[0] = '\0';
	if (!f)
		return;
	if (!fgets(id, 37, f))
		id[0] = '\0';
	id[strcspn(id, "\n")] = '\0';
	fclose(f);
}

enum kexec_next kexec_decide(int have_record, int same_boot, enum kexecrec_state dev, int run_ok,
			     int runs_done, int repeat)
{
	if (!have_record)
		return KEXEC_FRESH;
	if (same_boot && dev != KEXECREC_VALID)
		return KEXEC_BOOT_AGAIN;
	switch (dev) {
	case KEXECREC_NONE:
		/* the machine came back and the test kernel's /init never wrote */
		return KEXEC_BOOT_FAILED;
	case KEXECREC_VALID:
		if (!run_ok)
			return KEXEC_RUN_FAILED;
		return runs_done + 1 < (repeat > 0 ? repeat : 1) ? KEXEC_BOOT_NEXT : KEXEC_DONE;
	case KEXECREC_TORN:
	case KEXECREC_IO:
	default:
		return KEXEC_RUN_FAILED;
	}
}

static int run_kexec(const struct kexec_conf *c, const char *const *argv, const char *what,
		     struct err *e)
{
	struct runcmd cmd;
	char how[64];
	int rc = 0;

	runcmd_init(&cmd, argv, c->timeout_s > 0 ? c->timeout_s : 60);
	cmd.merge_stderr = 1;
	if (runcmd_run(&cmd, e) < 0) {
		rc = -1;
	} else if (!runcmd_ok(&cmd)) {
		err_setc(e, ERR_SPAWN, what, "%s failed (%s): %.400s", what,
			 runcmd_describe(&cmd, how, sizeof(how)), cmd.out.data);
		rc = -1;
	}
	runcmd_release(&cmd);
	return rc;
}

int kexec_boot(const struct kexec_conf *c, const json_t *rec, struct err *e)
{
	const char *image = json_string_value(json_object_get(rec, "image"));
	const char *initrd = json_string_value(json_object_get(rec, "initrd"));
	const char *cmdline = json_string_value(json_object_get(rec, "cmdline"));
	const char *argv[8];

	if (!image || !initrd || !cmdline)
		return err_setc(e, ERR_INVALID_JOB, "kexec",
				"kexec record without image, initrd or cmdline");
	kexec_load_argv(argv, c->bin, image, initrd, cmdline);
	if (run_kexec(c, argv, "kexec -l", e) < 0)
		return -1;
	/* what the test kernel may not reach: the record and the load are on disk */
	sync();
	kexec_exec_argv(argv, c->bin);
	if (run_kexec(c, argv, "kexec -e", e) < 0)
		return -1;
	/* kexec -e came back with status 0: it did not jump (no kernel loaded, or a stand-in) */
	return err_setc(e, ERR_SPAWN, "kexec -e", "kexec -e returned without starting the kernel");
}

/* 1 when the file at path holds bytes whose SHA-256 is sha256 */
static int file_is(const char *path, const char *sha256)
{
	char got[65];

	return access(path, R_OK) == 0 && kernel_file_sha256(path, got) == 0 &&
	       !strcmp(got, sha256);
}

static int hex64(const char *s)
{
	size_t n = s ? strspn(s, "0123456789abcdef") : 0;

	return n == 64 && !s[64];
}

int kexec_image_fetch(const struct kexec_conf *c, const char *work_dir, const char *sha256,
		      char **path, struct err *e)
{
	struct api_client api = { 0 };
	struct buf body = BUF_INIT(KEXEC_IMAGE_MAX);
	char *dir = NULL, *tmp = NULL, *url = NULL, got[65];
	long status = 0;
	int fd, rc = -1;

	*path = NULL;
	if (!hex64(sha256))
		return err_setc(e, ERR_INVALID_JOB, "image_sha256",
				"image_sha256 '%.80s' is not 64 lowercase hex digits", sha256);
	dir = xstrfmt("%s/images", work_dir);
	*path = xstrfmt("%s/%s", dir, sha256);
	if (file_is(*path, sha256)) {
		free(dir);
		return 0;
	}
	if (!c || !c->server_url || !*c->server_url) {
		err_setc(e, ERR_INVALID_JOB, "image_sha256", "no server to fetch image %s from",
			 sha256);
		goto out;
	}
	url = xstrfmt("/api/v1/images/%s", sha256);
	if (api_client_init(&api, c->server_url, c->token,
			    c->http_timeout_s > 0 ? c->http_timeout_s : 300, e) ||
	    api_client_send(&api, "GET", url, NULL, 0, 0, &body, &status, e))
		goto out;
	if (status != 200) {
		err_setc(e, ERR_INVALID_JOB, "image_sha256", "GET %s: HTTP %ld%s: %.200s", url,
			 status, status == 404 ? " (no worker uploaded it)" : "",
			 body.len ? body.data : "");
		goto out;
	}
	sha256_hex(body.data, body.len, got);
	if (strcmp(got, sha256)) {
		err_setc(e, ERR_INVALID_JOB, "image_sha256",
			 "the server's image %s hashes to %s: not booted", sha256, got);
		goto out;
	}
	if (fs_mkdirs(dir, 0755, e))
		goto out;
	tmp = xstrfmt("%s.XXXXXX", *path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err_setc(e, ERR_IO, *path, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (fs_write_all(fd, body.data, body.len) || fsync(fd)) {
		err_setc(e, ERR_IO, *path, "cannot write '%s': %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, *path)) {
		err_setc(e, ERR_IO, *path, "cannot rename to '%s': %s", *path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	if (rc) {
		free(*path);
		*path = NULL;
	}
	api_client_release(&api);
	buf_release(&body);
	free(url);
	free(tmp);
	free(dir);
	return rc;
}

int kexec_image_upload(const struct kexec_conf *c, const char *path, const char *sha256,
		       struct err *e)
{
	struct api_client api = { 0 };
	struct buf img = BUF_INIT(KEXEC_IMAGE_MAX), reply = BUF_INIT(4096);
	char *url = NULL;
	long status = 0;
	int rc = -1;

	if (!c || !c->server_url || !*c->server_url || !hex64(sha256))
		return err_setc(e, ERR_INVALID_JOB, "image_sha256",
				"no server, or no image hash, to upload '%s' under", path);
	if (buf_read_file(&img, path)) {
		err_setc(e, ERR_IO, path, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	url = xstrfmt("/api/v1/images/%s", sha256);
	if (api_client_init(&api, c->server_url, c->token,
			    c->http_timeout_s > 0 ? c->http_timeout_s : 300, e) ||
	    api_client_send(&api, "PUT", url, img.data, img.len, 0, &reply, &status, e))
		goto out;
	if (status != 200 && status != 201) {
		err_setc(e, ERR_INVALID_JOB, "image_sha256", "PUT %s: HTTP %ld: %.200s", url,
			 status, reply.len ? reply.data : "");
		goto out;
	}
	rc = 0;
out:
	api_client_release(&api);
	buf_release(&img);
	buf_release(&reply);
	free(url);
	return rc;
}
