/* The loop framework of the SIMD micro-kernels, shared by every level.
 *
 * A kernel is a loop over its range in register tiles (loop_<op>.h,
 * written once) around a tile body (per level: <op>_<isa>.c or a
 * <op>_tile_<isa>.h).  The loop hands each tile to the instance of the body
 * compiled for its exact shape, r x c with both constants: the compiler
 * then unrolls the body and keeps its accumulators in registers, and the
 * tails (last rows, keys or columns) are smaller instances of the same
 * body.  FAST_TILE_CASES(RMAX, CMAX, X) expands X(r, c) for r = 1..RMAX,
 * c = 1..CMAX (at most 8 each), each X writing `case FAST_TILE(r, c):`. */
#ifndef FIA_FAST_TILE_LOOP_H
#define FIA_FAST_TILE_LOOP_H

#define INLINE static inline __attribute__((always_inline))
/* A loop over one block's tiles, called per block by a kernel that would
 * otherwise inline every instance of every tile body into one function:
 * the call costs nothing beside a block's work, and a function of hundreds
 * of unrolled tile bodies takes compilers minutes (superlinear passes;
 * worst under the sanitizers). */
#define BLOCK_STEP static __attribute__((noinline))
/* A tile body: inlined into each shape's case, so that it unrolls with
 * constant extents; under the sanitizers one function for every shape
 * (the extents at run time), compiled once: the checks of hundreds of
 * inlined instances took clang minutes per file. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define FAST_TILE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FAST_TILE_SANITIZED 1
#endif
#ifdef FAST_TILE_SANITIZED
#define TILE_BODY static __attribute__((noinline))
#else
#define TILE_BODY INLINE
#endif
/* A loop over a tile's rows, keys or columns: unrolled whole where the
 * body is an instance of constant extents.  Where it is one function of
 * run-time extents (under the sanitizers), unrolled not at all: an unroll
 * by 16 of loops of at most 4 and 8 trips, nested, made each tile body
 * hundreds of kilobytes of guarded copies (decode_antiquant_avx512.c's two were
 * 490 KB, 35 s of clang under ASan).  The order of the operations is the
 * same either way. */
#ifdef FAST_TILE_SANITIZED
#define UNROLL _Pragma("GCC unroll 1")
#else
#define UNROLL _Pragma("GCC unroll 16")
#endif

#define FAST_TILE(r, c) ((r) * 16 + (c))

#define FAST_TILE_C1(X, r) X(r, 1)
#define FAST_TILE_C2(X, r) FAST_TILE_C1(X, r) X(r, 2)
#define FAST_TILE_C3(X, r) FAST_TILE_C2(X, r) X(r, 3)
#define FAST_TILE_C4(X, r) FAST_TILE_C3(X, r) X(r, 4)
#define FAST_TILE_C5(X, r) FAST_TILE_C4(X, r) X(r, 5)
#define FAST_TILE_C6(X, r) FAST_TILE_C5(X, r) X(r, 6)
#define FAST_TILE_C7(X, r) FAST_TILE_C6(X, r) X(r, 7)
#define FAST_TILE_C8(X, r) FAST_TILE_C7(X, r) X(r, 8)
#define FAST_TILE_C(n, X, r) FAST_TILE_C_(n, X, r)
#define FAST_TILE_C_(n, X, r) FAST_TILE_C##n(X, r)

#define FAST_TILE_R1(X, n) FAST_TILE_C(n, X, 1)
#define FAST_TILE_R2(X, n) FAST_TILE_R1(X, n) FAST_TILE_C(n, X, 2)
#define FAST_TILE_R3(X, n) FAST_TILE_R2(X, n) FAST_TILE_C(n, X, 3)
#define FAST_TILE_R4(X, n) FAST_TILE_R3(X, n) FAST_TILE_C(n, X, 4)
#define FAST_TILE_R5(X, n) FAST_TILE_R4(X, n) FAST_TILE_C(n, X, 5)
#define FAST_TILE_R6(X, n) FAST_TILE_R5(X, n) FAST_TILE_C(n, X, 6)
#define FAST_TILE_R7(X, n) FAST_TILE_R6(X, n) FAST_TILE_C(n, X, 7)
#define FAST_TILE_R8(X, n) FAST_TILE_R7(X, n) FAST_TILE_C(n, X, 8)

#define FAST_TILE_CASES(rmax, cmax, X) FAST_TILE_CASES_(rmax, cmax, X)
#define FAST_TILE_CASES_(rmax, cmax, X) FAST_TILE_R##rmax(X, cmax)

/* The extent of the tile at i < n of a range of n, in units of u elements
 * (n and i multiples of u), at most tmax units (a constant: with tmax 1 the
 * switch has a single case). */
#define FAST_TILE_EXTENT(n, i, u, tmax)                                     \
    ((tmax) == 1 ? 1                                                       \
     : (n) - (i) >= (int64_t)(u) * (tmax) ? (tmax)                         \
                                          : (int)(((n) - (i)) / (u)))

#endif
