/* run_at_level LEVEL PROGRAM [ARGS...]: runs PROGRAM when this CPU has
 * fast/'s LEVEL kernels (scalar, avx2, avx512), else exits 77, ctest's
 * SKIP_RETURN_CODE, saying so.  The per-level variants of the fast/ tests
 * and of the corpus run through it: FIA_FAST_ISA caps the level, so on a
 * CPU without the level a variant would run the level below it again and
 * pass, though its subject never ran. */
#include <stdio.h>
#include <unistd.h>
#include "fia/fast.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: run_at_level LEVEL PROGRAM [ARGS...]\n");
        return 2;
    }
    if (!fastKernelLevelAvailable(argv[1])) {
        printf("SKIPPED: this CPU (or build) has no %s kernels; the level "
               "below would run instead\n", argv[1]);
        return 77;
    }
    fflush(stdout);
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    return 2;
}
