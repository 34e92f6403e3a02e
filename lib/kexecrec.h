#ifndef REGTRACK_KEXECREC_H
#define REGTRACK_KEXECREC_H

/*
 * The result record of a kexec boot: how the job initramfs's /init, run
 * as PID 1 of a kernel booted with kexec on a bare-metal host, hands its
 * output to the worker that starts after the machine came back (reboot or
 * panic=N). Nothing but a raw block device (or a file, in tests) is
 * shared between the two kernels, so the record carries its own framing:
 *
 *   bytes 0..7    magic "RTKEXEC1"
 *         8..11   payload length (little endian u32, <= KEXECREC_MAX_PAYLOAD)
 *         12..19  job id (little endian u64)
 *         20..35  the boot's nonce: 16 lowercase hex digits, from the
 *                 kernel command line (rt.nonce=), chosen by the worker per
 *                 boot, so a record of an earlier boot is never taken for
 *                 this one
 *         36..39  CRC-32 (IEEE, as zlib's crc32) of the payload
 *         40..43  CRC-32 of bytes 0..39
 *         44..511 zero
 *   bytes 512..   the payload: what /init printed on its console, the
 *                 result block of worker/init/init.c
 *
 * Writing order (kexecrec_write_fd): payload, fsync, header, fsync. A
 * machine that dies in between leaves the previous header, whose nonce is
 * another boot's: "no record", never a torn one taken for a result.
 *
 * Standalone: links into the guest's static /init as well as the worker
 * (no xalloc, no struct err).
 */
#include <stddef.h>
#include <stdint.h>

#define KEXECREC_HDR_LEN 512
#define KEXECREC_MAX_PAYLOAD (8u << 20)
#define KEXECREC_NONCE_LEN 16

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32(0, p, n)) of p[0..n). */
uint32_t kexecrec_crc32(const void *p, size_t n);

/* 1 when s is KEXECREC_NONCE_LEN lowercase hex digits and nothing more. */
int kexecrec_nonce_ok(const char *s);

/*
 * Fills hdr[KEXECREC_HDR_LEN] for a payload of len bytes. Returns 0, or -1
 * when len is over KEXECREC_MAX_PAYLOAD or the nonce is not one
 * (kexecrec_nonce_ok).
 */
int kexecrec_encode(unsigned char hdr[KEXECREC_HDR_LEN], long long job_id, const char *nonce,
		    const void *payload, size_t len);

enum kexecrec_state {
	KEXECREC_VALID = 0, /* the record of this job and boot, payload checked */
	KEXECREC_NONE = 1,  /* no record, or one of another job or boot */
	KEXECREC_TORN = 2,  /* this job's and boot's header with a bad CRC or length, or a
			       payload shorter than the header says or with a bad CRC */
	KEXECREC_IO = 3	    /* the device cannot be opened or read */
};

/*
 * Checks hdr (KEXECREC_HDR_LEN bytes) against job_id and nonce, and, when
 * payload is not NULL, the payload's avail bytes against its length and
 * CRC. *len (may be NULL) gets the payload length the header states when
 * the header is this boot's. Pure.
 */
enum kexecrec_state kexecrec_check(const unsigned char *hdr, long long job_id, const char *nonce,
				   const void *payload, size_t avail, size_t *len);

/*
 * Writes a record to fd (a block device or a file, at offset 0) in the
 * order the header describes. Returns 0, or -1 with errno (and -1 with
 * EINVAL as kexecrec_encode refuses).
 */
int kexecrec_write_fd(int fd, long long job_id, const char *nonce, const void *payload, size_t len);

/*
 * Reads the record of job_id and nonce from path. On KEXECREC_VALID
 * *payload is a new malloc()ed NUL-terminated copy (caller frees) of
 * *len bytes; otherwise *payload is NULL.
 */
enum kexecrec_state kexecrec_read(const char *path, long long job_id, const char *nonce,
				  char **payload, size_t *len);

/*
 * Overwrites the header at path with zeros and fsyncs: the device holds
 * no record. Returns 0, or -1 with errno.
 */
int kexecrec_clear(const char *path);

#endif
