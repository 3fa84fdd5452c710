/* pinmem.c -- shrink the RAM available to everything else, for
 * bench/crossover.py (compiled at run time with `cc -O2`; run as root).
 *   pinmem BYTES    mmap BYTES anonymous memory, mlock it (touching every
 *                   page), print "pinned BYTES" on stdout, then sleep until
 *                   killed. Exits 1 (with a message) if mlock fails.
 * Locked pages cannot be reclaimed or swapped, so the page cache (and any
 * file a search tool maps or reads) must live in what is left.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: pinmem BYTES\n");
        return 2;
    }
    size_t n = strtoull(argv[1], NULL, 10);
    size_t chunk = (size_t)256 << 20;
    unsigned char *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { perror("pinmem: mmap"); return 1; }
    /* Lock in 256 MiB steps so that reclaim can keep up. */
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        memset(p + off, 0x5a, len);
        if (mlock(p + off, len) != 0) { perror("pinmem: mlock"); return 1; }
    }
    printf("pinned %zu\n", n);
    fflush(stdout);
    for (;;) pause();
}
