/* A finite double as printf's "%.17g" writes it, without printf where the
 * value is m 2^e with m 5^-e (or m 2^e) below 2^127 (every fp16 value, bf16
 * and float32 values above about 2^-54 times their significand): the case text of a worst case or a finding holds one such number
 * per explicit value, and glibc's printf of a double (multi-precision
 * digit generation) was most of the cost of printing one.
 *
 * Why it is the same text: x = m 2^e exactly (m odd).  For e >= 0, x is
 * the integer m 2^e; for e < 0, x = (m 5^-e) 10^e, the integer N = m 5^-e
 * times 10^e.  When N fits 127 bits its decimal digits are x's exact
 * expansion; "%.17g" rounds it to 17 significant digits (to nearest, ties
 * to even, as glibc in the default rounding mode), removes trailing zeros
 * and writes its fixed style when the decimal exponent X of the rounded
 * value is in [-4, 17), else d.ddde[+-]XX (at least two exponent digits).
 * Larger or smaller numbers (N past 127 bits) go to snprintf.  The tests
 * compare both over every fp16 and bf16 value and random doubles
 * (tests/test_double_text.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "case_internal.h"

/* 5^k for k <= 54 fits 127 bits (5^54 < 2^126). */
#define MAX_POW5 54

/* 5^k, k <= 27 (< 2^64); larger ones are products of two. */
static const uint64_t POW5[28] = {
    1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull,
    390625ull, 1953125ull, 9765625ull, 48828125ull, 244140625ull,
    1220703125ull, 6103515625ull, 30517578125ull, 152587890625ull,
    762939453125ull, 3814697265625ull, 19073486328125ull, 95367431640625ull,
    476837158203125ull, 2384185791015625ull, 11920928955078125ull,
    59604644775390625ull, 298023223876953125ull, 1490116119384765625ull,
    7450580596923828125ull};

/* The decimal digits of N, least significant first, into dig; how many.
 * Two 64-bit halves of 19 digits: a 128-bit division per digit is slow. */
static int digits_of(unsigned __int128 N, char *dig)
{
    int nd = 0;
    const uint64_t E19 = 10000000000000000000ull;
    if (N >> 64) {
        uint64_t lo = (uint64_t)(N % E19);
        N /= E19;
        for (int i = 0; i < 19; i++, lo /= 10)
            dig[nd++] = (char)('0' + (int)(lo % 10));
    }
    uint64_t hi = (uint64_t)N;
    if (N >> 64) { /* N >= 2^64 still: a third part */
        uint64_t mid = (uint64_t)(N % E19);
        hi = (uint64_t)(N / E19);
        for (int i = 0; i < 19; i++, mid /= 10)
            dig[nd++] = (char)('0' + (int)(mid % 10));
    }
    do {
        dig[nd++] = (char)('0' + (int)(hi % 10));
        hi /= 10;
    } while (hi > 0);
    return nd;
}

int fia__double_text(char *out, size_t n, double x)
{
    if (n < 32)
        return snprintf(out, n, "%.17g", x);
    if (!isfinite(x))
        return snprintf(out, n, "%.17g", x);
    char *p = out;
    if (signbit(x))
        *p++ = '-';
    if (x == 0.0) {
        *p++ = '0';
        *p = '\0';
        return (int)(p - out);
    }
    /* |x| = m 2^e from the encoding, m odd */
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    const int ef = (int)(u >> 52) & 0x7ff;
    uint64_t m = u & ((1ull << 52) - 1);
    int e = ef ? ef - 1075 : -1074;
    if (ef)
        m |= 1ull << 52;
    const int tz = __builtin_ctzll(m); /* m != 0: x is not 0 */
    m >>= tz;
    e += tz;
    unsigned __int128 N;
    int k = 0; /* x = N 10^-k */
    if (e >= 0) {
        int bits = 64 - __builtin_clzll(m);
        if (bits + e > 126)
            return snprintf(out, n, "%.17g", x);
        N = (unsigned __int128)m << e;
    } else {
        k = -e;
        if (k > MAX_POW5)
            return snprintf(out, n, "%.17g", x);
        unsigned __int128 p5 = k <= 27 ? POW5[k]
                                       : (unsigned __int128)POW5[27] * POW5[k - 27];
        /* the product fits 127 bits when the bit lengths do: 5^k has
         * floor(k log2 5) + 1 */
        const int b5 = (int)((uint64_t)k * 2321928094887362ull /
                             1000000000000000ull) + 1;
        if (64 - __builtin_clzll(m) + b5 > 127)
            return snprintf(out, n, "%.17g", x);
        N = (unsigned __int128)m * p5;
    }
    char dig[64];
    int nd = digits_of(N, dig); /* N > 0: x is not 0 */
    /* 17 significant digits, the rest rounded off to nearest, ties to
     * even (printf's rounding in the default mode) */
    int lo = 0; /* the least significant digit kept */
    if (nd > 17) {
        lo = nd - 17;
        const int rd = dig[lo - 1] - '0';
        int sticky = 0;
        for (int i = 0; i < lo - 1; i++)
            sticky |= dig[i] != '0';
        if (rd > 5 || (rd == 5 && (sticky || ((dig[lo] - '0') & 1)))) {
            int i = lo;
            while (i < nd && dig[i] == '9')
                dig[i++] = '0';
            if (i == nd) { /* 99...9 became 100...0: one more digit */
                dig[nd++] = '1';
                lo++;
            } else {
                dig[i]++;
            }
        }
    }
    int z = lo; /* trailing zeros of the digits kept */
    while (z < nd - 1 && dig[z] == '0')
        z++;
    const int L = nd - z; /* significant digits, <= 17 */
    const int X = nd - 1 - k; /* x = d.ddd 10^X */
    /* the digits most significant first: dig[nd-1] ... dig[z] */
    if (X < -4 || X >= 17) {
        *p++ = dig[nd - 1];
        if (L > 1) {
            *p++ = '.';
            for (int i = nd - 2; i >= z; i--)
                *p++ = dig[i];
        }
        *p++ = 'e';
        *p++ = X < 0 ? '-' : '+';
        int ax = X < 0 ? -X : X;
        if (ax >= 100)
            *p++ = (char)('0' + ax / 100);
        *p++ = (char)('0' + ax / 10 % 10);
        *p++ = (char)('0' + ax % 10);
    } else if (X >= 0) {
        /* X + 1 integer digits (zeros past the significant ones), then the
         * fraction's when any */
        for (int j = 0; j <= X; j++) {
            int i = nd - 1 - j;
            *p++ = i >= z ? dig[i] : '0';
        }
        if (L > X + 1) {
            *p++ = '.';
            for (int i = nd - 2 - X; i >= z; i--)
                *p++ = dig[i];
        }
    } else {
        *p++ = '0';
        *p++ = '.';
        for (int j = 0; j < -X - 1; j++)
            *p++ = '0';
        for (int i = nd - 1; i >= z; i--)
            *p++ = dig[i];
    }
    *p = '\0';
    return (int)(p - out);
}
