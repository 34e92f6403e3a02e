#include "worker/heartbeat.h"
#include "worker/wlog.h"
#include "xalloc.h"
#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int heartbeat_init(struct heartbeat *h, const struct worker_config *cfg, struct err *e)
{
	pthread_condattr_t ca;

	memset(h, 0, sizeof(*h));
	h->cfg = cfg;
	h->lease_timeout_s = -1;
	h->period_s = cfg->heartbeat_s;
	h->run_period_s = cfg->heartbeat_run_s;
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);
	return api_client_init(&h->api, cfg->server_url, cfg->token, cfg->http_timeout_s, e);
}

/*
 * Heartbeat periods: as configured, but at most half the server's lease
 * timeout (0 = unknown), so that one lost heartbeat does not cost the
 * lease. The timeout comes with the register, lease and heartbeat replies;
 * the periods change when it does (a server restarted with another
 * --lease-timeout). The caller holds h->lock (the heartbeat thread reads
 * the periods under it). `from` names the reply, for the log.
 */
static void set_periods(struct heartbeat *h, long long lease_timeout_s, const char *from)
{
	int cap;

	if (lease_timeout_s < 0)
		lease_timeout_s = 0;
	if (lease_timeout_s == h->lease_timeout_s)
		return; /* nothing new: no second warning */
	if (h->lease_timeout_s >= 0)
		wlog_info("the server's lease timeout is now %lld s (was %lld s, told by the %s reply)",
			  lease_timeout_s, h->lease_timeout_s, from);
	h->lease_timeout_s = lease_timeout_s;
	cap = lease_timeout_s > 0 ? (int)(lease_timeout_s / 2) : 0;
	h->period_s = h->cfg->heartbeat_s;
	h->run_period_s = h->cfg->heartbeat_run_s;
	if (cap < 1 && lease_timeout_s > 0)
		cap = 1;
	if (cap && h->period_s > cap)
		h->period_s = cap;
	if (cap && h->run_period_s > cap) {
		wlog_warn("heartbeat_run_s %d is over half the server's lease timeout (%lld s); using %d s",
			  h->run_period_s, lease_timeout_s, cap);
		h->run_period_s = cap;
	}
}

void heartbeat_set_lease_timeout(struct heartbeat *h, long long lease_timeout_s, const char *from)
{
	pthread_mutex_lock(&h->lock);
	set_periods(h, lease_timeout_s, from);
	pthread_mutex_unlock(&h->lock);
}

void heartbeat_learn_lease_timeout(struct heartbeat *h, const json_t *reply, const char *from)
{
	json_t *v = json_object_get(reply, "lease_timeout_s");

	if (!json_is_integer(v) || json_integer_value(v) <= 0)
		return; /* an older server: keep what we know */
	heartbeat_set_lease_timeout(h, json_integer_value(v), from);
}

static void wait_until(struct heartbeat *h, double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	pthread_cond_timedwait(&h->cond, &h->lock, &ts);
}

int heartbeat_post(struct api_client *c, json_t *machine_id, long long job_id, const char *phase,
		   double progress, const char *message, long long *lease_timeout_s, struct err *e)
{
	char *path = xstrfmt("/api/v1/jobs/%lld/heartbeat", job_id);
	json_t *body = json_pack("{s:O, s:s, s:f, s:s}", "machine_id", machine_id, "phase", phase,
				 "progress", progress, "message", message);
	struct api_reply r;
	int ret = -1;

	if (!api_client_post(c, path, body, 0, &r, e)) {
		if (r.status == 409) {
			ret = 1;
		} else if (r.status >= 200 && r.status < 300) {
			ret = 0;
			if (lease_timeout_s) {
				json_t *v = json_object_get(r.body, "lease_timeout_s");

				*lease_timeout_s = json_is_integer(v) ? json_integer_value(v) : 0;
			}
		} else {
			api_reply_error(&r, "heartbeat", e);
		}
		api_reply_release(&r);
	}
	json_decref(body);
	free(path);
	return ret;
}

static void *heartbeat_main(void *arg)
{
	struct heartbeat *h = arg;
	double last = 0;

	pthread_mutex_lock(&h->lock);
	while (!h->quit) {
		long long job_id;
		json_t *machine_id;
		char phase[sizeof(h->phase)], message[sizeof(h->message)];
		double progress, period, due;
		long long told = 0;
		unsigned long asked;
		int in_run, rc;
		struct err e;

		if (!h->job_id || h->completing) {
			/* idle, or the main thread is delivering the completion */
			pthread_cond_wait(&h->cond, &h->lock);
			last = 0;
			continue;
		}
		in_run = !strcmp(h->phase, "run");
		period = in_run ? h->run_period_s : h->period_s;
		if (!last)
			last = mono_s(); /* the lease itself is fresh */
		due = last + period;
		if (!(h->phase_changed && (!in_run || h->run_step)) && mono_s() < due) {
			wait_until(h, due);
			continue; /* re-check everything after a wake-up */
		}
		if (atomic_load(&h->abandon)) {
			/* lost already: nothing to renew */
			pthread_cond_wait(&h->cond, &h->lock);
			continue;
		}
		h->phase_changed = 0;
		h->run_step = 0;
		asked = h->steps_asked;
		job_id = h->job_id;
		progress = h->progress;
		memcpy(phase, h->phase, sizeof(phase));
		memcpy(message, h->message, sizeof(message));
		machine_id = json_incref(h->machine_id);
		pthread_mutex_unlock(&h->lock);
		rc = heartbeat_post(&h->api, machine_id, job_id, phase, progress, message, &told,
				    &e);
		json_decref(machine_id);
		last = mono_s();
		pthread_mutex_lock(&h->lock);
		h->steps_posted = asked; /* posted, or failed trying: the run may start */
		pthread_cond_broadcast(&h->cond);
		if (!rc && told > 0)
			set_periods(h, told, "heartbeat"); /* the next due time uses them */
		/* a reply for a job that is over, or being completed, says nothing */
		if (h->job_id != job_id || h->completing)
			continue;
		if (rc == 1) {
			atomic_store(&h->abandon, 1);
			if (!in_run)
				wlog_warn("job %lld: lease lost (heartbeat got 409); abandoning the job",
					  job_id);
		} else if (rc < 0) {
			atomic_fetch_add(&h->failures, 1);
			if (!in_run)
				wlog_warn("job %lld: heartbeat failed: %s", job_id, e.message);
		}
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

void heartbeat_set_job(struct heartbeat *h, long long job_id, json_t *machine_id, const char *phase)
{
	pthread_mutex_lock(&h->lock);
	h->job_id = job_id;
	snprintf(h->phase, sizeof(h->phase), "%s", phase);
	h->progress = 0;
	h->message[0] = '\0';
	h->phase_changed = 0;
	h->completing = 0;
	json_decref(h->machine_id);
	h->machine_id = job_id ? json_incref(machine_id) : NULL;
	if (job_id) {
		atomic_store(&h->abandon, 0);
		atomic_store(&h->failures, 0);
	}
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

void heartbeat_on_phase(void *ctx, const char *phase, double progress, const char *message)
{
	struct heartbeat *h = ctx;
	long long job_id;
	int changed, step;
	char msg[sizeof(h->message)];

	if (!phase)
		return;
	snprintf(msg, sizeof(msg), "%s", message ? message : "");
	pthread_mutex_lock(&h->lock);
	job_id = h->job_id;
	changed = strcmp(h->phase, phase) != 0;
	step = !strcmp(phase, "run") && (changed || strcmp(h->message, msg));
	if (changed) {
		snprintf(h->phase, sizeof(h->phase), "%s", phase);
		h->phase_changed = 1;
	}
	h->progress = progress < 0 ? 0 : progress > 1 ? 1 : progress;
	memcpy(h->message, msg, sizeof(msg));
	if (step && h->running && job_id) {
		/* the server records the step; wait for the post, so it is over before the run */
		unsigned long want = ++h->steps_asked;
		double until = mono_s() +
			       (h->cfg->http_timeout_s > 0 ? h->cfg->http_timeout_s : 30);

		h->phase_changed = h->run_step = 1;
		pthread_cond_broadcast(&h->cond);
		while (h->steps_posted < want && !h->quit && h->job_id == job_id &&
		       !atomic_load(&h->abandon) && mono_s() < until)
			wait_until(h, until);
	} else if (changed) {
		pthread_cond_broadcast(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
	if (changed)
		wlog_info("job %lld: phase %s%s%s", job_id, phase, *msg ? ": " : "", msg);
	else if (step)
		wlog_info("job %lld: %s", job_id, msg);
}

void heartbeat_completing(struct heartbeat *h)
{
	pthread_mutex_lock(&h->lock);
	h->completing = 1;
	snprintf(h->phase, sizeof(h->phase), "upload");
	pthread_mutex_unlock(&h->lock);
}

int heartbeat_start(struct heartbeat *h)
{
	if (pthread_create(&h->thread, NULL, heartbeat_main, h))
		return -1;
	h->running = 1;
	return 0;
}

void heartbeat_release(struct heartbeat *h)
{
	if (h->running) {
		pthread_mutex_lock(&h->lock);
		h->quit = 1;
		pthread_cond_broadcast(&h->cond);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->thread, NULL);
		h->running = 0;
	}
	api_client_release(&h->api);
	json_decref(h->machine_id);
	h->machine_id = NULL;
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
}
