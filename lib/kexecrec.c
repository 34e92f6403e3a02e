/* The result record of a kexec boot (see kexecrec.h). */
#include "kexecrec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char MAGIC[8] = { 'R', 'T', 'K', 'E', 'X', 'E', 'C', '1' };

uint32_t kexecrec_crc32(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t c = 0xffffffffu;

	/* bitwise: a record is read once per boot, a table would be dead weight in /init */
	while (n--) {
		c ^= *b++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return c ^ 0xffffffffu;
}

int kexecrec_nonce_ok(const char *s)
{
	size_t i;

	if (!s)
		return 0;
	for (i = 0; i < KEXECREC_NONCE_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

int kexecrec_encode(unsigned char hdr[KEXECREC_HDR_LEN], long long job_id, const char *nonce,
		    const void *payload, size_t len)
{
	if (len > KEXECREC_MAX_PAYLOAD || !kexecrec_nonce_ok(nonce))
		return -1;
	memset(hdr, 0, KEXECREC_HDR_LEN);
	memcpy(hdr, MAGIC, sizeof(MAGIC));
	put_le(hdr + 8, len, 4);
	put_le(hdr + 12, (uint64_t)job_id, 8);
	memcpy(hdr + 20, nonce, KEXECREC_NONCE_LEN);
	put_le(hdr + 36, kexecrec_crc32(payload, len), 4);
	put_le(hdr + 40, kexecrec_crc32(hdr, 40), 4);
	return 0;
}

enum kexecrec_state kexecrec_check(const unsigned char *hdr, long long job_id, const char *nonce,
				   const void *payload, size_t avail, size_t *len)
{
	size_t n;

	if (memcmp(hdr, MAGIC, sizeof(MAGIC)) || !kexecrec_nonce_ok(nonce) ||
	    get_le(hdr + 12, 8) != (uint64_t)job_id || memcmp(hdr + 20, nonce, KEXECREC_NONCE_LEN))
		return KEXECREC_NONE;
	if (get_le(hdr + 40, 4) != kexecrec_crc32(hdr, 40))
		return KEXECREC_TORN;
	n = (size_t)get_le(hdr + 8, 4);
	if (len)
		*len = n;
	if (n > KEXECREC_MAX_PAYLOAD)
		return KEXECREC_TORN;
	if (payload && (avail < n || get_le(hdr + 36, 4) != kexecrec_crc32(payload, n)))
		return KEXECREC_TORN;
	return KEXECREC_VALID;
}

static int write_all(int fd, const void *p, size_t n, off_t off)
{
	const char *c = p;

	while (n) {
		ssize_t w = pwrite(fd, c, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

static ssize_t read_all(int fd, void *p, size_t n, off_t off)
{
	char *c = p;
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, c + got, n - got, off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int kexecrec_write_fd(int fd, long long job_id, const char *nonce, const void *payload, size_t len)
{
	unsigned char hdr[KEXECREC_HDR_LEN];

	if (kexecrec_encode(hdr, job_id, nonce, payload, len) < 0) {
		errno = EINVAL;
		return -1;
	}
	if (write_all(fd, payload, len, KEXECREC_HDR_LEN) < 0 || fsync(fd) < 0 ||
	    write_all(fd, hdr, sizeof(hdr), 0) < 0 || fsync(fd) < 0)
		return -1;
	return 0;
}

enum kexecrec_state kexecrec_read(const char *path, long long job_id, const char *nonce,
				  char **payload, size_t *len)
{
	unsigned char hdr[KEXECREC_HDR_LEN];
	enum kexecrec_state st;
	size_t n = 0;
	ssize_t r;
	char *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*payload = NULL;
	*len = 0;
	if (fd < 0)
		return KEXECREC_IO;
	r = read_all(fd, hdr, sizeof(hdr), 0);
	if (r < 0) {
		close(fd);
		return KEXECREC_IO;
	}
	if (r < (ssize_t)sizeof(hdr)) {
		close(fd);
		return KEXECREC_NONE; /* a short file: nothing was ever written */
	}
	st = kexecrec_check(hdr, job_id, nonce, NULL, 0, &n);
	if (st != KEXECREC_VALID) {
		close(fd);
		return st;
	}
	p = malloc(n + 1);
	if (!p)
		abort();
	r = read_all(fd, p, n, KEXECREC_HDR_LEN);
	close(fd);
	if (r < 0) {
		free(p);
		return KEXECREC_IO;
	}
	st = kexecrec_check(hdr, job_id, nonce, p, (size_t)r, NULL);
	if (st != KEXECREC_VALID) {
		free(p);
		return st;
	}
	p[n] = '\0';
	*payload = p;
	*len = n;
	return KEXECREC_VALID;
}

int kexecrec_clear(const char *path)
{
	unsigned char zero[KEXECREC_HDR_LEN] = { 0 };
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = write_all(fd, zero, sizeof(zero), 0) < 0 || fsync(fd) < 0 ? -1 : 0;
	if (close(fd) < 0)
		rc = -1;
	return rc;
}
