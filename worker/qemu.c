#include "qemu.h"
#include "runcmd.h"
#include "xalloc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* the profile block (<= 4 MiB of folded stacks, plus "rt| " per line) and the boot fit */
#define QEMU_LOG_CAP (16u << 20)

/*
 * x86 under icount (measured here, tiny-mm kernel, TCG, -icount
 * shift=0,sleep=off): with no extra options the boot spent ~12 s of host
 * time in calibrate_APIC_clock() (the LAPIC timer is measured against the
 * PIT over many jiffies) and ~0.5 s in the timer IRQ check; with them it
 * reaches /init in ~1 s.
 *   nolapic_timer        no LAPIC timer, so no calibration: the PIT is the
 *                        tick (a single vCPU needs no per-CPU timer)
 *   no_timer_check       skips the check that the timer IRQ works
 *   lpj=4000000          skips calibrate_delay(); only sizes udelay() loops
 *   tsc_early_khz=1000000  takes the TSC frequency as given: shift=0 makes
 *                        the guest clock 1 GHz (one instruction per ns)
 * Secondary CPUs did not come up under icount (the boot hung in "Bringing
 * up secondary CPUs" for > 200 s), so icount runs use one vCPU on every
 * arch: icount serializes vCPUs anyway.
 */
const char QEMU_X86_ICOUNT_APPEND[] =
	"nolapic_timer no_timer_check lpj=4000000 tsc_early_khz=1000000";

void qemu_init(struct qemu *q)
{
	memset(q, 0, sizeof(*q));
	q->log_fd = -1;
	buf_init(&q->log, QEMU_LOG_CAP);
}

void qemu_release(struct qemu *q)
{
	buf_release(&q->log);
}

int qemu_run(struct qemu *q, struct err *e)
{
	const char *argv[40];
	char smp[64], mem[32];
	const char *prog, *console;
	struct runcmd cmd;
	int n = 0, is_x86, rc;
	int cpus = q->icount ? 1 : q->cpus > 0 ? q->cpus : 2;

	if (!q->arch || (strcmp(q->arch, "x86_64") && strcmp(q->arch, "aarch64")))
		return err_setc(e, ERR_INVALID_JOB, "arch", "no qemu for arch '%s'",
				q->arch ? q->arch : "");
	if (!q->accel || (strcmp(q->accel, "kvm") && strcmp(q->accel, "tcg")))
		return err_setc(e, ERR_INVALID_JOB, "accel", "unknown accel");
	if (q->icount && strcmp(q->accel, "tcg"))
		return err_setc(e, ERR_INVALID_JOB, "measure", "icount needs tcg");
	is_x86 = !strcmp(q->arch, "x86_64");
	prog = is_x86 ? "qemu-system-x86_64" : "qemu-system-aarch64";
	console = is_x86 ? "ttyS0" : "ttyAMA0";

	snprintf(q->cmdline, sizeof(q->cmdline), "console=%s panic=-1 oops=panic%s%s%s%s", console,
		 is_x86 ? " reboot=t" : "", is_x86 && q->icount ? " " : "",
		 is_x86 && q->icount ? QEMU_X86_ICOUNT_APPEND : "", q->append ? " " : "");
	if (q->append) {
		size_t len = strlen(q->cmdline);

		snprintf(q->cmdline + len, sizeof(q->cmdline) - len, "%s", q->append);
	}
	if (is_x86)
		snprintf(smp, sizeof(smp), "%d,sockets=%d,cores=1", cpus, cpus);
	else
		snprintf(smp, sizeof(smp), "%d", cpus);
	snprintf(mem, sizeof(mem), "%d", q->mem_mb > 0 ? q->mem_mb : 512);

	argv[n++] = prog;
	argv[n++] = "-M";
	argv[n++] = is_x86 ? "pc" : "virt";
	if (!is_x86) {
		argv[n++] = "-cpu";
		argv[n++] = !strcmp(q->accel, "kvm") ? "host" : "max";
	}
	argv[n++] = "-accel";
	argv[n++] = q->accel;
	if (q->icount) {
		argv[n++] = "-icount";
		argv[n++] = "shift=0,sleep=off";
	}
	argv[n++] = "-m";
	argv[n++] = mem;
	argv[n++] = "-smp";
	argv[n++] = smp;
	argv[n++] = "-nographic";
	argv[n++] = "-no-reboot";
	argv[n++] = "-kernel";
	argv[n++] = q->kernel;
	argv[n++] = "-initrd";
	argv[n++] = q->initrd;
	argv[n++] = "-append";
	argv[n++] = q->cmdline;
	argv[n] = NULL;

	runcmd_init(&cmd, argv, q->timeout_s > 0 ? q->timeout_s : 600);
	cmd.merge_stderr = 1;
	cmd.out.cap = QEMU_LOG_CAP;
	cmd.log_fd = q->log_fd;
	cmd.cancel = q->cancel;
	rc = runcmd_run(&cmd, e);
	if (!rc) {
		buf_release(&q->log);
		q->log = cmd.out;
		buf_init(&cmd.out, 0);
		q->exited = cmd.exited;
		q->exit_code = cmd.exit_code;
		q->timed_out = cmd.timed_out;
		q->cancelled = cmd.cancelled;
		q->elapsed_s = cmd.elapsed_s;
	}
	runcmd_release(&cmd);
	return rc;
}

struct kvm_verdict {
	const char *arch;
	int known, usable;
	char why[320];
};

static struct kvm_verdict kvm_verdicts[] = { { "x86_64", 0, 0, "" }, { "aarch64", 0, 0, "" } };

int qemu_kvm_usable(const char *arch, const char *kernel, const char *initrd, const char *append,
		    const char *marker, int timeout_s, char *why, size_t why_len)
{
	struct kvm_verdict *v = NULL;
	struct utsname u;
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(kvm_verdicts); i++)
		if (arch && !strcmp(kvm_verdicts[i].arch, arch))
			v = &kvm_verdicts[i];
	if (!v) {
		if (why)
			snprintf(why, why_len, "no qemu for arch '%s'", arch ? arch : "");
		return 0;
	}
	if (v->known)
		goto out;
	v->known = 1;
	uname(&u);
	if (strcmp(u.machine, arch)) {
		snprintf(v->why, sizeof(v->why), "host is %s", u.machine);
		goto out;
	}
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(v->why, sizeof(v->why), "/dev/kvm cannot be opened");
		goto out;
	}
	close(fd);
	{
		struct qemu q;
		struct err e;

		qemu_init(&q);
		q.arch = arch;
		q.kernel = kernel;
		q.initrd = initrd;
		q.append = append;
		q.accel = "kvm";
		q.mem_mb = 256;
		q.cpus = 1;
		q.timeout_s = timeout_s;
		if (qemu_run(&q, &e) < 0)
			snprintf(v->why, sizeof(v->why), "%s", e.message);
		else if (!strstr(q.log.data, marker))
			snprintf(v->why, sizeof(v->why), "a kvm test boot did not reach /init (%s)",
				 q.timed_out ? "timed out" : "qemu exited");
		else {
			v->usable = 1;
			snprintf(v->why, sizeof(v->why), "a kvm test boot reached /init in %.1f s",
				 q.elapsed_s);
		}
		qemu_release(&q);
	}
out:
	if (why)
		snprintf(why, why_len, "%s", v->why);
	return v->usable;
}
