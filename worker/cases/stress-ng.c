/*
 * stress-ng — one stressor of Debian's stress-ng, as LKP's stress-ng job runs it.
 *
 * A tool case (README "Benchmark tools"): this program checks the params
 * against its table, records the tool's version (case_tool_version) and runs
 *
 *   stress-ng --STRESSOR N --timeout T --metrics-brief
 *
 * with the tool's output on stdout, which the worker parses with
 * lib/parse/stress_ng.c (worker/tools.c names the parser): the metrics are
 * LKP's stress-ng.STRESSOR.ops (bogo ops) and stress-ng.STRESSOR.ops_per_sec
 * (bogo ops per second of real time; higher is better), plus the
 * stressor's own extra lines (stress-ng.brk.nanosecs_per_sbrk_page_expand,
 * ...). The whole run is the measured phase for perf.
 *
 * The stressors are the ones `stress-ng --stressors` lists for Debian 12's
 * 0.15.06 (the same list on every arch; a stressor a kernel or an arch
 * lacks fails the run, which stress-ng says in the log), less those that act
 * on the machine beyond the run, which a submit token must not reach on a
 * host-mode worker: reboot, cpu-online, memhotplug, watchdog, softlockup,
 * swap, smi, efivar.
 *
 * Example: stress-ng stressor=mmap nr_threads=100% timeout=30s
 */
#include <stdio.h>

#include "casecommon.h"

enum { P_STRESSOR, P_NR_THREADS, P_TIMEOUT };

static struct case_param params[] = {
	[P_STRESSOR] = { "stressor", CASE_PARAM_CHOICE, "mmap", 0, 0,
			 "access|af-alg|affinity|aio|aiol|apparmor|alarm|atomic|bad-altstack|bad-ioctl|"
			 "bigheap|bind-mount|binderfs|branch|brk|bsearch|cache|cacheline|cap|chattr|chdir|"
			 "chmod|chown|chroot|clock|clone|close|context|copy-file|cpu|crypt|cyclic|daemon|dccp|"
			 "dekker|dentry|dev|dev-shm|dir|dirdeep|dirmany|dnotify|dup|dynlib|enosys|env|epoll|"
			 "eventfd|exec|exit-group|fallocate|fanotify|far-branch|fault|fcntl|fiemap|fifo|"
			 "file-ioctl|filename|flock|flushcache|fork|forkheavy|fp|fp-error|fpunch|fsize|fstat|"
			 "full|funccall|funcret|futex|get|getdent|getrandom|goto|gpu|handle|hash|hdd|heapsort|"
			 "hrtimers|hsearch|icache|icmp-flood|idle-page|inode-flags|inotify|io|iomix|ioport|"
			 "ioprio|io-uring|ipsec-mb|itimer|jpeg|judy|kcmp|key|kill|klog|kvm|l1cache|landlock|"
			 "lease|link|list|llc-affinity|loadavg|locka|lockbus|lockf|lockofd|longjmp|loop|"
			 "lsearch|madvise|malloc|matrix|matrix-3d|mcontend|membarrier|memcpy|memfd|memrate|"
			 "memthrash|mergesort|mincore|misaligned|mknod|mlock|mlockmany|mmap|mmapaddr|"
			 "mmapfixed|mmapfork|mmaphuge|mmapmany|mprotect|mq|mremap|msg|msync|msyncmany|munmap|"
			 "mutex|nanosleep|netdev|netlink-proc|netlink-task|nice|nop|null|numa|oom-pipe|opcode|"
			 "open|pagemove|pageswap|pci|personality|peterson|physpage|pidfd|ping-sock|pipe|"
			 "pipeherd|pkey|plugin|poll|prctl|prefetch|priv-instr|procfs|pthread|ptrace|pty|qsort|"
			 "quota|race-sched|radixsort|randlist|ramfs|rawdev|rawpkt|rawsock|rawudp|rdrand|"
			 "readahead|regs|remap|rename|resched|resources|revio|ring-pipe|rlimit|rmap|rotate|"
			 "rseq|rtc|schedpolicy|sctp|seal|seccomp|secretmem|seek|sem|sem-sysv|sendfile|session|"
			 "set|shellsort|shm|shm-sysv|sigabrt|sigchld|sigfd|sigfpe|sigio|signal|signest|"
			 "sigpending|sigpipe|sigq|sigrt|sigsegv|sigsuspend|sigtrap|skiplist|sleep|sock|"
			 "sockabuse|sockdiag|sockfd|sockpair|sockmany|spawn|sparsematrix|splice|stack|"
			 "stackmmap|str|stream|switch|symlink|sync-file|syncload|sysbadaddr|syscall|sysinfo|"
			 "sysinval|sysfs|tee|timer|timerfd|tlb-shootdown|tmpfs|touch|tree|tsc|tsearch|tun|udp|"
			 "udp-flood|umount|unshare|uprobe|urandom|userfaultfd|usersyscall|utime|vdso|vecfp|"
			 "vecmath|vecshuf|vecwide|verity|vfork|vforkmany|vm|vm-addr|vm-rw|vm-segv|vm-splice|"
			 "wait|waitcpu|wcs|x86cpuid|x86syscall|xattr|yield|zero|zlib|zombie",
			 "the stressor (stress-ng --STRESSOR)" },
	[P_NR_THREADS] = { "nr_threads", CASE_PARAM_TASKS, "100%", 1, 4096, NULL,
			   "instances of the stressor" },
	[P_TIMEOUT] = { "timeout", CASE_PARAM_DURATION, "10s", 1, 86400, NULL,
			"run time (stress-ng --timeout)" },
};

int main(int argc, char **argv)
{
	char stressor[64], nr[32], timeout[32];
	char *version[] = { "stress-ng", "--version", NULL };
	char *run[] = { "stress-ng", stressor, nr, "--timeout", timeout, "--metrics-brief", NULL };

	case_params_parse("stress-ng", "one stress-ng stressor, its bogo ops per second", params,
			  sizeof(params) / sizeof(params[0]), argc, argv);
	snprintf(stressor, sizeof(stressor), "--%s", params[P_STRESSOR].sval);
	snprintf(nr, sizeof(nr), "%ld", params[P_NR_THREADS].ival);
	snprintf(timeout, sizeof(timeout), "%.0fs", params[P_TIMEOUT].dval);
	case_tool_version("stress-ng", version);
	return case_tool_exec(run);
}
