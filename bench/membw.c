/* membw.c -- raw read-bandwidth probes for bench/rawbw.py (compiled at run
 * time with `cc -O2`). Measures, single-threaded:
 *   membw mem  MIB [REPS]   read a MIB MiB heap buffer (after filling it)
 *                           REPS times; prints the best pass in bytes/s
 *   membw mmap FILE [touch] mmap FILE (MADV_SEQUENTIAL) and read every byte
 *                           as 64-bit words; with "touch", one byte per 4 KiB
 *                           page (fault cost only); prints bytes/s
 * Output: one line "BYTES SECONDS BYTES_PER_S CHECKSUM" (checksum keeps the
 * compiler from deleting the loads). Corpus: any file (rawbw.py passes the
 * big log, e.g. ~/.cache/trigrep-corpora/logs/big1G.log).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t sum64(const unsigned char *p, size_t n) {
    const uint64_t *w = (const uint64_t *)p;
    size_t nw = n / 8, i;
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (i = 0; i + 4 <= nw; i += 4) {
        a += w[i]; b ^= w[i + 1]; c += w[i + 2]; d ^= w[i + 3];
    }
    for (; i < nw; i++) a += w[i];
    for (size_t j = nw * 8; j < n; j++) a += p[j];
    return a + b + c + d;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: membw mem MIB [REPS] | membw mmap FILE [touch]\n");
        return 2;
    }
    if (strcmp(argv[1], "mem") == 0) {
        size_t n = (size_t)atol(argv[2]) << 20;
        int reps = argc > 3 ? atoi(argv[3]) : 5;
        unsigned char *buf = malloc(n);
        if (!buf) { perror("malloc"); return 1; }
        for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)(i * 131);
        double best = 1e30;
        uint64_t ck = 0;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            ck += sum64(buf, n);
            double t = now() - t0;
            if (t < best) best = t;
        }
        printf("%zu %.6f %.0f %llu\n", n, best, n / best, (unsigned long long)ck);
        return 0;
    }
    if (strcmp(argv[1], "mmap") == 0) {
        int fd = open(argv[2], O_RDONLY);
        if (fd < 0) { perror(argv[2]); return 1; }
        struct stat st;
        fstat(fd, &st);
        size_t n = st.st_size;
        int touch = argc > 3 && strcmp(argv[3], "touch") == 0;
        double t0 = now();
        unsigned char *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) { perror("mmap"); return 1; }
        madvise(p, n, MADV_SEQUENTIAL);
        uint64_t ck = 0;
        if (touch) {
            for (size_t i = 0; i < n; i += 4096) ck += p[i];
        } else {
            ck = sum64(p, n);
        }
        munmap(p, n);
        double t = now() - t0;
        printf("%zu %.6f %.0f %llu\n", n, t, n / t, (unsigned long long)ck);
        return 0;
    }
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
}
