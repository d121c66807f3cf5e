/* A FuzzedDataProvider in C: typed values consumed from the fuzzer's bytes.
 *
 * Every read consumes bytes from the front; once the input is exhausted
 * every read returns its smallest value (0, the first choice, false), so an
 * empty or short input still decodes to a well-formed, simple case.  Small
 * choices take one byte, so libFuzzer's mutations move one decision at a
 * time. */
#ifndef FIA_FUZZ_BYTES_H
#define FIA_FUZZ_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fz_bytes {
    const uint8_t *p;
    size_t n;
} fz_bytes;

static inline void fz_bytes_init(fz_bytes *f, const uint8_t *data, size_t size)
{
    f->p = data;
    f->n = size;
}

static inline size_t fz_bytes_remaining(const fz_bytes *f) { return f->n; }

static inline uint8_t fz_bytes_u8(fz_bytes *f)
{
    if (f->n == 0)
        return 0;
    f->n--;
    return *f->p++;
}

static inline uint32_t fz_bytes_u32(fz_bytes *f)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = (v << 8) | fz_bytes_u8(f);
    return v;
}

/* The high half first (as gcc and clang ordered the two reads when they
 * were the operands of one `|`). */
static inline uint64_t fz_bytes_u64(fz_bytes *f)
{
    uint64_t hi = fz_bytes_u32(f);
    return (hi << 32) | fz_bytes_u32(f);
}

/* Uniform-ish in [lo, hi] (inclusive), using as few bytes as the range
 * needs. */
static inline int64_t fz_bytes_range(fz_bytes *f, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    uint64_t span = (uint64_t)hi - (uint64_t)lo, v = 0;
    for (uint64_t s = span; s != 0; s >>= 8)
        v = (v << 8) | fz_bytes_u8(f);
    return (int64_t)((uint64_t)lo + (span == UINT64_MAX ? v : v % (span + 1)));
}

static inline int fz_bytes_bool(fz_bytes *f) { return fz_bytes_u8(f) & 1; }

/* 1 with probability about pct / 100 (pct in 0..100). */
static inline int fz_bytes_chance(fz_bytes *f, int pct)
{
    return (int)(fz_bytes_u8(f) % 100) < pct;
}

/* 1 with probability about pct / 100, and 0 on a zero byte (an exhausted
 * input): for rare deviations, so that short inputs stay plain. */
static inline int fz_bytes_rare(fz_bytes *f, int pct)
{
    return (int)(fz_bytes_u8(f) % 100) >= 100 - pct;
}

/* An index in [0, n). */
static inline int fz_bytes_pick(fz_bytes *f, int n)
{
    return n <= 1 ? 0 : (int)(fz_bytes_u8(f) % (unsigned)n);
}

/* An index in [0, n) chosen by weights w[0..n-1] (sum > 0). */
static inline int fz_bytes_weighted(fz_bytes *f, const int *w, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += w[i];
    int r = (int)(fz_bytes_u8(f) % (unsigned)(sum > 0 ? sum : 1));
    for (int i = 0; i < n; i++) {
        if (r < w[i])
            return i;
        r -= w[i];
    }
    return 0;
}

/* A double in [0, 1). */
static inline double fz_bytes_unit(fz_bytes *f)
{
    return (double)(fz_bytes_u32(f) >> 8) / 16777216.0;
}

/* A 64-bit PRNG (splitmix64) for bulk data, seeded from the bytes, so large
 * tensors cost 8 input bytes, not one byte per element. */
typedef struct fuzz_rng {
    uint64_t s;
} fuzz_rng;

static inline uint64_t fuzz_rng_next(fuzz_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double fuzz_rng_unit(fuzz_rng *r)
{
    return (double)(fuzz_rng_next(r) >> 11) / 9007199254740992.0;
}

#endif
