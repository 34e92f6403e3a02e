/*
 * bench/maxrss CMD [ARG...] — runs CMD (stdout to /dev/null) and prints
 * "PEAK_RSS_KB EXIT_STATUS" of it. make bench's parser figures use it
 * instead of timing a child of Python: the kernel keeps the largest RSS a
 * process had across exec, so a child forked from Python would count
 * Python's pages; a child of this small program counts only its own.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: maxrss CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("maxrss: fork");
		return 2;
	}
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[1], argv + 1);
		perror("maxrss: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("maxrss: wait4");
		return 2;
	}
	printf("%ld %d\n", ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	return 0;
}
