#ifndef REGTRACK_SERVER_POLLER_H
#define REGTRACK_SERVER_POLLER_H

/*
 * The tree poller: a background thread (bgthread.h) that polls
 * each tree when it is due (sql/0014: every poll_s seconds while an
 * enabled plan uses it, or when POST /api/v1/trees/{name}/poll asked) and
 * turns new branch heads into jobs:
 *
 *  1. one server polls a tree at a time: a session advisory lock on the
 *     tree's id (a killed server's lock goes with its connection), taken
 *     without waiting, so another server moves on to other trees;
 *  2. the mirror is fetched (gitmirror_sync: it follows the tree's url),
 *     new commits imported after the tree's last topo_order, and the
 *     branch heads compared with the last seen (tree_branches; a head
 *     that is not a descendant of the last is a force-push);
 *  3. for each enabled plan and each branch its globs match whose head
 *     moved since the plan last scheduled it: the pushed range is the
 *     first-parent chain merge-base(old, new)..new (so after a force-push,
 *     only the commits since the merge base; runs of the old ones stay),
 *     scheduler_plan() picks the commits, and the jobs (commits x the
 *     plan's matrix), the push record and the plan's new head are written
 *     in one transaction, each job with INSERT ... ON CONFLICT DO NOTHING
 *     on (plan, commit, setup): a server killed mid-poll leaves nothing
 *     half done, and nothing is queued twice;
 *  4. when a target's queue of tracking jobs is deeper than
 *     track_queue_limit, the push's new head supersedes the branch's older
 *     queued jobs of the plan (cancelled, phase "superseded", the reason in
 *     fail_reason; counted in the push record);
 *  5. a fetch that fails is stored on the tree (poll_error, git's message)
 *     and retried after a backoff; the other trees go on;
 *  6. a plan is checked again before it is scheduled, as a new one would
 *     be (plan_normalize with this server's limits): one stored before a
 *     check existed (vcpus its arch's qemu machine cannot boot) or before
 *     plan_max_jobs_per_push was lowered queues nothing, the server log
 *     says which field ("plan 'P' not scheduled: ... testcases[0].params.
 *     vcpus: ..."), and its branches' heads stay unseen so that the
 *     mended plan (PUT) tests them; the tree's other plans go on.
 *
 * Tracking jobs get priority track_priority + the plan's priority, kept
 * below bisect_priority: bisects and jobs asked for by hand lease first.
 * Config: poll_tick_ms (how often due trees are looked for), poll_timeout_s
 * (each git command of a poll), data_dir (the mirrors), track_priority.
 */
struct server;
struct poller;

/* Starts the thread; NULL (logged) when it cannot start. */
struct poller *poller_start(struct server *srv);
/* Looks for due trees now (a poll asked for, a plan stored). NULL is a no-op. */
void poller_kick(struct poller *p);
/* Stops the thread after the tree in hand; kicks are ignored from then on. */
void poller_halt(struct poller *p);
/* poller_halt() and frees p; call once no handler can kick it. NULL is a no-op. */
void poller_stop(struct poller *p);

#endif
