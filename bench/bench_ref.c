/* fiacheck-bench-ref (`fiacheck bench --ref [--quick]`): reference
 * evaluations per second, the escalating reference (binary64 first pass,
 * MPFR only for undecided elements: Ziv's strategy) against the pure-MPFR
 * path, on decode and prefill shapes typical of fuzzing.  Checks that both
 * give the same bits and ends with
 *   reference speedup: N.Nx (escalated: P %)
 * (total time of pure MPFR / escalating over all shapes; escalated: the
 * share of elements the binary64 pass left to MPFR). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fia/case.h"
#include "fia/ref.h"

typedef struct shape {
    const char *name;
    const char *text;
} shape;

static const shape SHAPES[] = {
    {"decode fp16 B4 N8/2 KV512 D128",
     "input_layout = BNSD\nnum_heads = 8\nnum_key_value_heads = 2\n"
     "scale = 0.0883883476\nquery = fp16 [4,8,1,128]\n"
     "key = fp16 [4,2,512,128]\nvalue = fp16 [4,2,512,128]\n"
     "actual_seq_lengths_kv = [512,300,77,410]\nsoftmax_lse_flag = true\n"
     "seed = 1\n"},
    {"decode bf16 BSH B2 N16/4 KV256 D64",
     "input_layout = BSH\nnum_heads = 16\nnum_key_value_heads = 4\n"
     "scale = 0.125\nquery = bf16 [2,1,1024]\nkey = bf16 [2,256,256]\n"
     "value = bf16 [2,256,256]\nseed = 2\n"},
    {"prefill fp16 causal B1 N4 S128 D64",
     "input_layout = BNSD\nnum_heads = 4\nscale = 0.125\nsparse_mode = 3\n"
     "atten_mask = bool [2048,2048]\nquery = fp16 [1,4,128,64]\n"
     "key = fp16 [1,4,128,64]\nvalue = fp16 [1,4,128,64]\n"
     "softmax_lse_flag = true\ninner_precise = 0\nseed = 3\n"},
    {"prefill bf16 BSND GQA B2 N8/2 S64 KV96 D32 mask",
     "input_layout = BSND\nnum_heads = 8\nnum_key_value_heads = 2\n"
     "scale = 0.17677669\nsparse_mode = 0\natten_mask = bool [2,64,96]\n"
     "query = bf16 [2,64,8,32]\nkey = bf16 [2,96,2,32]\n"
     "value = bf16 [2,96,2,32]\nactual_seq_lengths = [64,40]\nseed = 4\n"},
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs the reference until min_time has passed (at least once); returns
 * seconds per evaluation and leaves the last result in r. */
static double timed(const fia_case *c, const fia_case_data *d, int pure,
                    double min_time, fia_ref_result *r)
{
    fia_ref_options o;
    fia_ref_options_default(&o);
    o.pure_mpfr = pure;
    int n = 0;
    double t0 = now(), t;
    do {
        fia_ref_result_free(r);
        fia_error err;
        if (fia_ref_compute(c, d, &o, r, &err) != FIA_OK) {
            fprintf(stderr, "reference failed: %s\n", err.msg);
            exit(2);
        }
        n++;
        t = now() - t0;
    } while (t < min_time);
    return t / n;
}

static int same_bits(const fia_ref_result *a, const fia_ref_result *b)
{
    if (a->out_numel != b->out_numel ||
        memcmp(a->out.data, b->out.data, (size_t)a->out_numel * 2) != 0)
        return 0;
    if (a->has_lse && memcmp(a->lse.data, b->lse.data,
                             (size_t)a->lse_numel * 4) != 0)
        return 0;
    return 1;
}

int main(int argc, char **argv)
{
    double min_time = 1.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            min_time = 0.0;
        } else {
            fprintf(stderr, "usage: fiacheck bench --ref [--quick]\n");
            return 2;
        }
    }
    double t_fast = 0, t_mpfr = 0;
    int64_t n_el = 0, n_esc = 0;
    int bad = 0;
    printf("%-48s %12s %12s %8s %9s\n", "shape", "escal el/s", "mpfr el/s",
           "speedup", "escalated");
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        fia_case c;
        fia_error err;
        fia_case_data d;
        if (fia_case_parse_string(SHAPES[s].text, SHAPES[s].name, &c, &err) ||
            fia_case_materialize(&c, 1, &d, &err)) {
            fprintf(stderr, "%s: %s\n", SHAPES[s].name, err.msg);
            return 2;
        }
        fia_ref_result a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        double ta = timed(&c, &d, 0, min_time, &a);
        double tb = timed(&c, &d, 1, min_time, &b);
        double el = (double)a.n_elements;
        if (!same_bits(&a, &b)) {
            printf("MISMATCH: escalating and pure-MPFR bits differ\n");
            bad = 1;
        }
        printf("%-48s %12.0f %12.0f %7.1fx %8.3f%%\n", SHAPES[s].name,
               el / ta, el / tb, tb / ta,
               el > 0 ? 100.0 * (double)a.n_escalated / el : 0.0);
        t_fast += ta;
        t_mpfr += tb;
        n_el += a.n_elements;
        n_esc += a.n_escalated;
        fia_ref_result_free(&a);
        fia_ref_result_free(&b);
        fia_case_data_free(&d);
        fia_case_free(&c);
    }
    printf("reference speedup: %.1fx (escalated: %.3g %%)\n", t_mpfr / t_fast,
           n_el > 0 ? 100.0 * (double)n_esc / (double)n_el : 0.0);
    return bad;
}
