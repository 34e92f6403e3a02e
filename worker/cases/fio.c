/*
 * fio — file I/O on a tmpfs, by the flexible I/O tester, as LKP's fio-basic
 * job runs it (one job of nr_task threads, group reporting, JSON output).
 *
 * A tool case (README "Benchmark tools"): this program checks the params,
 * records the tool's version (`fio --version`, "fio-3.33"), makes a fresh
 * directory DIR/fio.XXXXXX and runs
 *
 *   fio --name=regtrack --directory=DIR/fio.XXXXXX --thread --group_reporting
 *       --unlink=1 --output-format=json --rw=RW --bs=BS --ioengine=ENGINE
 *       --iodepth=N --numjobs=NR_TASK --size=SIZE_MBm --runtime=MSms
 *       [--time_based]
 *
 * with the tool's output on stdout, which the worker parses with
 * lib/parse/fio.c: LKP's fio.read_bw_MBps, fio.read_iops,
 * fio.read_clat_mean_ns, fio.read_clat_90%_ns, ... (and write_ for the
 * writes), fio.latency_Xus%, fio.workload (I/Os done). The run is the
 * measured phase for perf; the directory is removed after it.
 *
 * The job is built from params, never taken as a job file: every option fio
 * sees is one of the above, each value checked by the table (so no
 * exec_prerun, no filename outside the fresh directory). Jobs are threads
 * (--thread) on the host as in the guest, whose fio is built without SysV
 * shm (the guests' kernels have no SYSVIPC; deploy/fetch-tools).
 *
 * Example: fio rw=randwrite bs=4k size_mb=64 nr_task=2 runtime=5s
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "casecommon.h"

#define TMPFS_MAGIC_NR 0x01021994

enum { P_RW, P_BS, P_IOENGINE, P_IODEPTH, P_NR_TASK, P_SIZE_MB, P_RUNTIME, P_TIME_BASED, P_DIR };

static struct case_param params[] = {
	[P_RW] = { "rw", CASE_PARAM_CHOICE, "read", 0, 0, "read|write|randread|randwrite|rw|randrw",
		   "I/O pattern (--rw; rw, randrw: half reads, half writes)" },
	[P_BS] = { "bs", CASE_PARAM_CHOICE, "4k", 0, 0, "4k|8k|16k|32k|64k|128k|256k|512k|1m|2m|4m",
		   "block size of each I/O (--bs)" },
	/* the engines that need no library: both the host's fio and the
	 * guests' static build have them (io_uring needs CONFIG_IO_URING) */
	[P_IOENGINE] = { "ioengine", CASE_PARAM_CHOICE, "psync", 0, 0,
			 "sync|psync|vsync|pvsync|pvsync2|mmap|posixaio|io_uring",
			 "fio's I/O engine (--ioengine)" },
	[P_IODEPTH] = { "iodepth", CASE_PARAM_INT, "1", 1, 1024, NULL,
			"I/Os in flight per job, async engines (--iodepth)" },
	[P_NR_TASK] = { "nr_task", CASE_PARAM_TASKS, "1", 1, 256, NULL,
			"jobs, each on its own file (--numjobs)" },
	[P_SIZE_MB] = { "size_mb", CASE_PARAM_INT, "64", 1, 65536, NULL,
			"size of each job's file, MiB (--size)" },
	[P_RUNTIME] = { "runtime", CASE_PARAM_DURATION, "5s", 1, 86400, NULL,
			"run time (--runtime; a bound without time_based)" },
	[P_TIME_BASED] = { "time_based", CASE_PARAM_INT, "1", 0, 1, NULL,
			   "1: run for runtime, rereading the file (--time_based)" },
	[P_DIR] = { "dir", CASE_PARAM_STRING, "auto", 0, 1024, NULL,
		    "directory of the test directory; auto: /tmp if tmpfs, else /dev/shm" },
};

static int is_tmpfs(const char *dir)
{
	struct statfs sf;

	return !statfs(dir, &sf) && (unsigned long)sf.f_type == TMPFS_MAGIC_NR;
}

/* the files fio left in dir (none with --unlink=1 unless it failed), then dir */
static void remove_dir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dh = opendir(dir);

	while (dh && (d = readdir(dh)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) < sizeof(path))
			unlink(path);
	if (dh)
		closedir(dh);
	if (rmdir(dir) < 0)
		case_note("cannot remove '%s': %s", dir, strerror(errno));
}

int main(int argc, char **argv)
{
	char tdir[PATH_MAX], directory[PATH_MAX + 16], rw[32], bs[32], engine[48], depth[32],
		jobs[32], size[48], runtime[48];
	char *version[] = { "fio", "--version", NULL };
	char *run[] = { "fio",
			"--name=regtrack",
			directory,
			"--thread",
			"--group_reporting",
			"--unlink=1",
			"--output-format=json",
			rw,
			bs,
			engine,
			depth,
			jobs,
			size,
			runtime,
			NULL,
			NULL };
	const char *dir;
	double need;
	struct statvfs vfs;
	int rc;

	case_params_parse("fio", "fio's file I/O on a tmpfs, as LKP's fio-basic", params,
			  sizeof(params) / sizeof(params[0]), argc, argv);
	dir = params[P_DIR].sval;
	if (!strcmp(dir, "auto"))
		dir = is_tmpfs("/tmp") || !is_tmpfs("/dev/shm") ? "/tmp" : "/dev/shm";
	if (access(dir, W_OK | X_OK))
		case_fatal("cannot create files in dir '%s': %s", dir, strerror(errno));
	/* every job's file at once: a full tmpfs would end the run with ENOSPC
	 * after the layout, as a tool failure rather than a clear message */
	need = (double)params[P_NR_TASK].ival * (double)params[P_SIZE_MB].ival * 1048576.0;
	if (!statvfs(dir, &vfs) && need > (double)vfs.f_bavail * (double)vfs.f_frsize)
		case_fatal("nr_task x size_mb = %.0f MiB does not fit in '%s' (%.0f MiB free)",
			   need / 1048576.0, dir,
			   (double)vfs.f_bavail * (double)vfs.f_frsize / 1048576.0);
	case_tool_version("fio", version);
	if ((size_t)snprintf(tdir, sizeof(tdir), "%s/fio.XXXXXX", dir) >= sizeof(tdir))
		case_fatal("dir '%s' is too long", dir);
	if (!mkdtemp(tdir))
		case_fatal("cannot make a directory in '%s': %s", dir, strerror(errno));
	snprintf(directory, sizeof(directory), "--directory=%s", tdir);
	snprintf(rw, sizeof(rw), "--rw=%s", params[P_RW].sval);
	snprintf(bs, sizeof(bs), "--bs=%s", params[P_BS].sval);
	snprintf(engine, sizeof(engine), "--ioengine=%s", params[P_IOENGINE].sval);
	snprintf(depth, sizeof(depth), "--iodepth=%ld", params[P_IODEPTH].ival);
	snprintf(jobs, sizeof(jobs), "--numjobs=%ld", params[P_NR_TASK].ival);
	snprintf(size, sizeof(size), "--size=%ldm", params[P_SIZE_MB].ival);
	/* fio's time values take a unit: milliseconds keep a 1.5s runtime */
	snprintf(runtime, sizeof(runtime), "--runtime=%.0fms", params[P_RUNTIME].dval * 1000);
	if (params[P_TIME_BASED].ival)
		run[sizeof(run) / sizeof(run[0]) - 2] = "--time_based";
	rc = case_tool_exec(run);
	remove_dir(tdir);
	return rc;
}
