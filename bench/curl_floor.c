/*
 * bench/curl_floor — the same-run baseline of the worker idle RSS figure:
 * a process linked exactly like regtrack-worker (the Makefile's libraries)
 * that only calls curl_global_init(CURL_GLOBAL_DEFAULT), as the worker
 * does first, and then sleeps. Its VmRSS is what loading libcurl and the
 * shared libraries it pulls in (TLS, Kerberos, LDAP, SSH: 35 in Debian 12)
 * costs before any code of the worker runs; the worker's own share is the
 * difference. With an argument "0" it skips curl_global_init (the cost of
 * mapping and relocating the libraries alone).
 *
 *   curl_floor [0|1]   sleeps 60 s (bench/bench.py reads /proc and kills it)
 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "0")) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
			fputs("curl_floor: curl_global_init failed\n", stderr);
			return 1;
		}
	}
	sleep(60);
	return 0;
}
