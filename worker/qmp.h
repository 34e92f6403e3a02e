#ifndef REGTRACK_QMP_H
#define REGTRACK_QMP_H

#include <jansson.h>
#include <stdatomic.h>

#include "buf.h"
#include "err.h"

/*
 * A client of qemu's machine protocol (QMP) over a unix socket: qemu
 * started with `-qmp unix:PATH,server=on,wait=off` listens on PATH; the
 * client reads the greeting, sends {"execute": "qmp_capabilities"}, then
 * one command at a time, each reply one JSON line ({"return": ...} or
 * {"error": {"class", "desc"}}); asynchronous {"event": ...} lines between
 * them are skipped. Every wait is bounded by the timeout given.
 */
struct qmp {
	int fd;		/* the connected socket, -1 when closed */
	struct buf in;	/* bytes read and not yet taken as a line (capped at 1 MiB) */
	int timeout_ms; /* per read or write */
};

/*
 * Connects to the socket at path, retrying every 20 ms while it does not
 * exist yet or refuses (qemu creates it while starting), for up to
 * timeout_ms in all or until *stop (may be NULL) becomes non-zero, then
 * negotiates capabilities. m needs no init; after
 * a failure it is closed (qmp_close() is harmless). Returns 0, or -1 with
 * e: ERR_TRANSPORT (no socket within the time, reset, a read timed out),
 * ERR_SPAWN (qemu's reply was not QMP: detail the text).
 */
int qmp_connect(struct qmp *m, const char *path, int timeout_ms, const atomic_int *stop,
		struct err *e) __attribute__((warn_unused_result));

/*
 * Runs command `execute` (with args, borrowed; NULL: none) and stores its
 * "return" value in *ret (new reference, caller json_decref()s; NULL on
 * failure). Returns 0, or -1 with e: ERR_TRANSPORT (connection lost, timed
 * out), ERR_SPAWN (qemu answered with an error: its desc, detail the command).
 */
int qmp_execute(struct qmp *m, const char *execute, json_t *args, json_t **ret, struct err *e)
	__attribute__((warn_unused_result));

/* One vCPU as query-cpus-fast describes it. */
struct qmp_vcpu {
	int index; /* cpu-index: 0 .. vCPUs-1 */
	int tid;   /* thread-id: the host thread that runs it */
	int node;  /* props.node-id, -1 when the guest has no NUMA nodes */
};

/*
 * query-cpus-fast: the vCPUs into out[0..max) sorted by index, their count
 * in *n. qemu answers it under TCG too (one thread per vCPU with MTTCG,
 * which qemu uses where guest and host memory models agree). Returns 0, or
 * -1 with e as qmp_execute(), or ERR_SPAWN when the reply lacks the fields
 * or names more than max vCPUs.
 */
int qmp_vcpus(struct qmp *m, struct qmp_vcpu *out, int max, int *n, struct err *e)
	__attribute__((warn_unused_result));

void qmp_close(struct qmp *m);

#endif
