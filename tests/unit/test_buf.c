/*
 * Unit tests of lib/buf.c: the empty buffer, appends and NUL-termination,
 * growth across many appends, the size cap (an append past it appends
 * nothing), formatted appends, reset, release and detach, room reserved;
 * and xprefault() (lib/xalloc.h), which a large reserved buffer goes through.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "xalloc.h"
#include "attr.h"

static void test_empty(void **state UNUSED)
{
	struct buf b = BUF_INIT(0);

	assert_non_null(b.data);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	buf_init(&b, 10);
	assert_non_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 10);
	assert_string_equal(b.data, "");
	/* release of a buffer that never allocated is a no-op */
	buf_release(&b);
	assert_string_equal(b.data, "");
	assert_int_equal(b.cap, 10);
}

static void test_append_nul_terminated(void **state UNUSED)
{
	struct buf b = BUF_INIT(0);

	assert_int_equal(buf_addstr(&b, "abc"), 0);
	assert_int_equal(b.len, 3);
	assert_string_equal(b.data, "abc");
	assert_int_equal(buf_addch(&b, 'd'), 0);
	assert_int_equal(buf_add(&b, "ef\0gh", 5), 0);
	assert_int_equal(b.len, 9);
	assert_memory_equal(b.data, "abcdef\0gh", 9);
	assert_int_equal(b.data[9], '\0');
	/* an empty append leaves it as it was, still terminated */
	assert_int_equal(buf_add(&b, "", 0), 0);
	assert_int_equal(b.len, 9);
	assert_int_equal(b.data[9], '\0');
	buf_release(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
}

static void test_growth(void **state UNUSED)
{
	struct buf b = BUF_INIT(0);
	size_t first_alloc;

	assert_int_equal(buf_addch(&b, 'x'), 0);
	first_alloc = b.alloc;
	assert_true(first_alloc >= 2);
	for (int i = 1; i < 100000; i++)
		assert_int_equal(buf_addch(&b, (char)('a' + i % 26)), 0);
	assert_int_equal(b.len, 100000);
	assert_true(b.alloc > b.len); /* room for the NUL */
	assert_true(b.alloc > first_alloc);
	assert_int_equal(b.data[0], 'x');
	assert_int_equal(b.data[99999], 'a' + 99999 % 26);
	assert_int_equal(b.data[100000], '\0');
	assert_int_equal(strlen(b.data), 100000);
	buf_release(&b);
}

static void test_cap(void **state UNUSED)
{
	struct buf b = BUF_INIT(5);

	assert_int_equal(buf_addstr(&b, "abcd"), 0);
	/* 4 + 2 > 5: refused, nothing appended */
	assert_int_equal(buf_addstr(&b, "ef"), -1);
	assert_int_equal(b.len, 4);
	assert_string_equal(b.data, "abcd");
	/* exactly to the cap is allowed */
	assert_int_equal(buf_addch(&b, 'e'), 0);
	assert_string_equal(b.data, "abcde");
	assert_int_equal(buf_addch(&b, 'f'), -1);
	assert_int_equal(buf_addf(&b, "%d", 1), -1);
	assert_int_equal(buf_add(&b, "", 0), 0);
	assert_string_equal(b.data, "abcde");
	/* a length that would overflow len + n is refused, not wrapped */
	assert_int_equal(buf_add(&b, "x", SIZE_MAX), -1);
	assert_int_equal(b.len, 5);
	/* the cap holds after a reset and a release too */
	buf_reset(&b);
	assert_int_equal(buf_addstr(&b, "123456"), -1);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	buf_release(&b);
	assert_int_equal(b.cap, 5);
	assert_int_equal(buf_addstr(&b, "123456"), -1);
	assert_int_equal(buf_addstr(&b, "12345"), 0);
	buf_release(&b);
}

static void test_addf(void **state UNUSED)
{
	struct buf b = BUF_INIT(0);
	char big[1000];

	assert_int_equal(buf_addf(&b, "%s=%d;", "n", 42), 0);
	assert_int_equal(buf_addf(&b, "%.3f", 0.5), 0);
	assert_string_equal(b.data, "n=42;0.500");
	assert_int_equal(b.len, 10);
	/* a formatted append larger than the current storage */
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(buf_addf(&b, "[%s]", big), 0);
	assert_int_equal(b.len, 10 + 2 + 999);
	assert_int_equal(b.data[b.len - 1], ']');
	assert_int_equal(b.data[b.len], '\0');
	buf_release(&b);
	/* a capped formatted append: all or nothing */
	buf_init(&b, 8);
	assert_int_equal(buf_addf(&b, "%08d", 7), 0);
	assert_string_equal(b.data, "00000007");
	buf_reset(&b);
	assert_int_equal(buf_addf(&b, "%09d", 7), -1);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	buf_release(&b);
}

static void test_reset_keeps_storage(void **state UNUSED)
{
	struct buf b = BUF_INIT(0);
	char *data;
	size_t alloc;

	assert_int_equal(buf_addstr(&b, "hello world"), 0);
	data = b.data;
	alloc = b.alloc;
	buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	assert_ptr_equal(b.data, data);
	assert_int_equal(b.alloc, alloc);
	assert_int_equal(buf_addstr(&b, "hi"), 0);
	assert_string_equal(b.data, "hi");
	assert_ptr_equal(b.data, data);
	buf_release(&b);
	assert_int_equal(b.alloc, 0);
}

static void test_detach(void **state UNUSED)
{
	struct buf b = BUF_INIT(0);
	size_t len = 99;
	char *p;

	/* detach of an empty buffer: a fresh "" the caller frees */
	p = buf_detach(&b, &len);
	assert_int_equal(len, 0);
	assert_string_equal(p, "");
	assert_ptr_not_equal(p, buf_empty);
	free(p);
	assert_int_equal(buf_addstr(&b, "taken"), 0);
	p = buf_detach(&b, &len);
	assert_int_equal(len, 5);
	assert_string_equal(p, "taken");
	/* the buffer is empty and reusable, not sharing the detached data */
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	assert_int_equal(buf_addstr(&b, "again"), 0);
	assert_string_equal(p, "taken");
	free(p);
	p = buf_detach(&b, NULL);
	assert_string_equal(p, "again");
	free(p);
}

/* tests run from the top of the tree (make check-unit) */
#define FIXTURE "tests/fixtures/kconfig/README.md"

static void test_read_file(void **state UNUSED)
{
	struct buf b = BUF_INIT(0);
	struct stat st;
	FILE *f;
	char *want;

	assert_int_equal(stat(FIXTURE, &st), 0);
	assert_true(st.st_size > 0);
	/* appended after what is there, byte for byte, NUL-terminated */
	assert_int_equal(buf_addstr(&b, "head:"), 0);
	assert_int_equal(buf_read_file(&b, FIXTURE), 0);
	assert_int_equal(b.len, 5 + (size_t)st.st_size);
	assert_int_equal(b.data[b.len], '\0');
	want = malloc((size_t)st.st_size);
	f = fopen(FIXTURE, "rb");
	assert_non_null(f);
	assert_int_equal(fread(want, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	assert_memory_equal(b.data, "head:", 5);
	assert_memory_equal(b.data + 5, want, (size_t)st.st_size);
	free(want);
	buf_release(&b);
	/* an empty file */
	assert_int_equal(buf_read_file(&b, "/dev/null"), 0);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
}

static void test_read_file_errors(void **state UNUSED)
{
	struct buf b = BUF_INIT(0);
	struct stat st;

	assert_int_equal(buf_addstr(&b, "kept"), 0);
	errno = 0;
	assert_int_equal(buf_read_file(&b, "tests/fixtures/no-such-file"), -1);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(b.data, "kept");
	errno = 0;
	assert_int_equal(buf_read_file(&b, "tests/fixtures"), -1);
	assert_int_equal(errno, EISDIR);
	assert_string_equal(b.data, "kept");
	buf_release(&b);
	/* one byte over the cap: E2BIG and the buffer as it was */
	assert_int_equal(stat(FIXTURE, &st), 0);
	buf_init(&b, (size_t)st.st_size + 3);
	assert_int_equal(buf_addstr(&b, "abcd"), 0);
	errno = 0;
	assert_int_equal(buf_read_file(&b, FIXTURE), -1);
	assert_int_equal(errno, E2BIG);
	assert_int_equal(b.len, 4);
	assert_string_equal(b.data, "abcd");
	/* exactly at the cap is fine */
	buf_reset(&b);
	assert_int_equal(buf_addstr(&b, "abc"), 0);
	assert_int_equal(buf_read_file(&b, FIXTURE), 0);
	assert_int_equal(b.len, b.cap);
	buf_release(&b);
}

static void test_read_fd_pipe(void **state UNUSED)
{
	struct buf b = BUF_INIT(0);
	int fds[2];
	char chunk[1000];

	/* a pipe: no size to stat, several reads, the fd is left open */
	assert_int_equal(pipe(fds), 0);
	memset(chunk, 'p', sizeof(chunk));
	for (int i = 0; i < 50; i++)
		assert_int_equal(write(fds[1], chunk, sizeof(chunk)), (ssize_t)sizeof(chunk));
	close(fds[1]);
	assert_int_equal(buf_read_fd(&b, fds[0]), 0);
	assert_int_equal(b.len, 50000);
	assert_int_equal(b.data[49999], 'p');
	assert_int_equal(b.data[50000], '\0');
	assert_int_equal(read(fds[0], chunk, 1), 0); /* still open, at end of file */
	close(fds[0]);
	errno = 0;
	assert_int_equal(buf_read_fd(&b, fds[0]), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(b.len, 50000);
	buf_release(&b);
}

/* room made without appending: the storage does not move while it is filled */
static void test_reserve(void **state UNUSED)
{
	struct buf b = BUF_INIT(0), c = BUF_INIT(8);
	char *at;

	assert_int_equal(buf_add(&b, "ab", 2), 0);
	assert_int_equal(buf_reserve(&b, 100000), 0);
	assert_int_equal(b.len, 2);
	assert_string_equal(b.data, "ab");
	assert_true(b.alloc >= 100003);
	at = b.data;
	for (int i = 0; i < 10000; i++)
		assert_int_equal(buf_add(&b, "0123456789", 10), 0);
	assert_ptr_equal(b.data, at);
	assert_int_equal(b.len, 100002);
	assert_int_equal(b.data[100002], '\0');
	buf_release(&b);
	/* past the cap: -1, nothing changed */
	assert_int_equal(buf_reserve(&c, 8), 0);
	assert_int_equal(buf_reserve(&c, 9), -1);
	assert_int_equal(c.len, 0);
	buf_release(&c);
}

/* xprefault() (lib/xalloc.h), used on a reserved buffer: pages present, contents kept */
static void test_prefault(void **state UNUSED)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 64 * (size_t)page, resident = 0;
	unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
				0);
	unsigned char vec[64];

	assert_true(p != MAP_FAILED);
	p[0] = 'a';
	p[n - 1] = 'z';
	assert_int_equal(mincore(p, n, vec), 0);
	for (size_t i = 0; i < 64; i++)
		resident += vec[i] & 1;
	assert_int_equal(resident, 2); /* only the two pages written */
	xprefault(p, n);
	assert_int_equal(mincore(p, n, vec), 0);
	resident = 0;
	for (size_t i = 0; i < 64; i++)
		resident += vec[i] & 1;
#ifdef MADV_POPULATE_WRITE
	assert_int_equal(resident, 64);
#endif
	assert_int_equal(p[0], 'a');
	assert_int_equal(p[1], 0);
	assert_int_equal(p[n - 1], 'z');
	/* small, unaligned, NULL-length: nothing to do, no fault */
	xprefault(p + 1, 100);
	xprefault(NULL, 0);
	munmap(p, n);
}

/* xprefault_huge() (lib/xalloc.h): a buffer of megabytes present, its contents kept */
static void test_prefault_huge(void **state UNUSED)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 8u << 20, np = n / (size_t)page, resident = 0;
	unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
				0);
	unsigned char *vec = xmalloc(np);

	assert_true(p != MAP_FAILED);
	p[12345] = 'a';
	p[n - 1] = 'z';
	xprefault_huge(p, n);
	assert_int_equal(mincore(p, n, vec), 0);
	for (size_t i = 0; i < np; i++)
		resident += vec[i] & 1;
#ifdef MADV_POPULATE_WRITE
	assert_int_equal(resident, np);
#endif
	assert_int_equal(p[12345], 'a');
	assert_int_equal(p[0], 0);
	assert_int_equal(p[n / 2], 0);
	assert_int_equal(p[n - 1], 'z');
	xprefault_huge(p + 1, 100); /* small: as xprefault() */
	free(vec);
	munmap(p, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_append_nul_terminated),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_addf),
		cmocka_unit_test(test_reset_keeps_storage),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_read_file_errors),
		cmocka_unit_test(test_read_fd_pipe),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_prefault),
		cmocka_unit_test(test_prefault_huge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
