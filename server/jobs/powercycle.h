#ifndef REGTRACK_SERVER_POWERCYCLE_H
#define REGTRACK_SERVER_POWERCYCLE_H

/*
 * Power-cycling a bare-metal machine whose kexec'd test kernel hung
 * (worker/kexec.h). The server decides, as a kernel lab's dispatcher does:
 * a hung machine cannot, and the server is the one that sees its lease
 * expire. When the lease of a job on a machine with a kexec-ARCH
 * capability expires (lease.c), the program named by the config key
 * `power_cycle` (what the lab wires to IPMI or a PDU; no shell) runs as
 *
 *	PROGRAM HOSTNAME MACHINE_ID JOB_ID
 *
 * with a limit of `power_cycle_timeout_s`, in a thread of its own (the
 * lease thread never waits for it); its exit and output are logged. The
 * machine then boots its own kernel, and its worker, finding the spool
 * record of a boot with no result, completes the job boot-failed if it
 * is leased the job again, else the job's next attempt runs elsewhere.
 * The deadline is the lease: lease_timeout_s must cover a kexec cycle
 * (kexec, the case, the reboot through the firmware).
 */

/* The argv of one power cycle into argv[5] (pointers into the arguments and ids[2][24]). */
void powercycle_argv(const char *argv[5], const char *program, const char *host,
		     long long machine_id, long long job_id, char ids[2][24]);

/*
 * Runs it now and waits (at most timeout_s): 0 when it exited 0, -1 (and
 * a log line saying how it ended) otherwise.
 */
int powercycle_run(const char *program, int timeout_s, const char *host, long long machine_id,
		   long long job_id);

/* As powercycle_run in a detached thread (strings copied); a thread that cannot start is logged. */
void powercycle_start(const char *program, int timeout_s, const char *host, long long machine_id,
		      long long job_id);

#endif
