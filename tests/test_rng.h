/* The pseudo-random generators the tests draw their data from, written
 * once.  Each takes its state by pointer, so that a test keeps its own
 * stream and seed (a test's assertions may depend on the exact draws: a
 * test keeps the generator and the seed it always had).  Not for
 * anything but reproducible test data.  Header-only; tests only. */
#ifndef FIA_TESTS_TEST_RNG_H
#define FIA_TESTS_TEST_RNG_H

#include <stdint.h>

/* A 64-bit linear congruential step (Knuth's MMIX multiplier and
 * increment); the new state.  Its low bits are weak: draw from the top. */
static inline uint64_t test_lcg64(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state;
}

/* The top 31 bits of the next LCG state (bits 33..63). */
static inline uint32_t test_lcg64_hi31(uint64_t *state)
{
    return (uint32_t)(test_lcg64(state) >> 33);
}

/* A double of [0, 1) from the top 53 bits of the next LCG state. */
static inline double test_lcg64_unit(uint64_t *state)
{
    return (double)(test_lcg64(state) >> 11) * 0x1p-53;
}

/* SplitMix64: a Weyl sequence through a 64-bit mixer; any seed is good
 * and consecutive seeds give unrelated streams. */
static inline uint64_t test_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Marsaglia's xorshift64 with shifts 13, 7, 17; the new state (a state of
 * 0 stays 0). */
static inline uint64_t test_xorshift64(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Marsaglia's xorshift32 with shifts 13, 17, 5; the new state. */
static inline uint32_t test_xorshift32(uint32_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

#endif
