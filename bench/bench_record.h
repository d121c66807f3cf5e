/* Machine-readable figures of a benchmark run: with FIA_BENCH_RECORD=FILE
 * in the environment (`fiacheck bench --db` sets it), each figure is also
 * written to FILE as one line
 *   figure <TAB> name <TAB> value <TAB> unit <TAB> ratio <TAB> ratio_of
 * ratio being the figure over a baseline measured in the same run (the FMA
 * peak, the memory bandwidth, the contiguous layout), "nan" when it has
 * none: a ratio of one run is what compares across runs on a noisy host.
 * Header-only: each benchmark binary is one file. */
#ifndef FIA_BENCH_RECORD_H
#define FIA_BENCH_RECORD_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *bench_record_file(void)
{
    static FILE *f;
    static int tried;
    if (!tried) {
        tried = 1;
        const char *path = getenv("FIA_BENCH_RECORD");
        if (path != NULL && path[0] != '\0' && (f = fopen(path, "w")) == NULL)
            fprintf(stderr, "bench: cannot write FIA_BENCH_RECORD %s\n",
                    path);
    }
    return f;
}

static inline void bench_record(const char *name, double value,
                                const char *unit, double ratio,
                                const char *ratio_of)
{
    FILE *f = bench_record_file();
    if (f == NULL || !isfinite(value))
        return;
    fprintf(f, "figure\t%s\t%.9g\t%s\t%.9g\t%s\n", name, value, unit,
            isfinite(ratio) ? ratio : NAN, ratio_of ? ratio_of : "");
    fflush(f);
}

#endif
