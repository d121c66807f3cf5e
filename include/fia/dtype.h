/* Element types and conversions between them and binary64.
 *
 * This is plain shared data (allowed in both fast/ and ref/+oracle/): bit
 * layouts and the exact widening of narrow floats.  Narrowing conversions
 * round to nearest, ties to even, with IEEE overflow to +-inf and gradual
 * underflow; they are used by the case generator (so inputs are exact in
 * their dtype) and may be used by fast/ for its final store.  ref/ does its
 * own correctly rounded narrowing in MPFR and must not rely on these. */
#ifndef FIA_DTYPE_H
#define FIA_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum fia_dtype {
    FIA_DT_INVALID = 0,
    FIA_DT_FP16,
    FIA_DT_BF16,
    FIA_DT_FP32,
    FIA_DT_INT8,
    FIA_DT_UINT8,
    FIA_DT_INT4,   /* two elements per byte, low nibble first */
    FIA_DT_INT32,
    FIA_DT_INT64,
    FIA_DT_UINT64,
    FIA_DT_BOOL,   /* one byte per element, 0 or 1 */
    FIA_DT_COUNT
} fia_dtype;

/* Case-file name: fp16 bf16 fp32 int8 uint8 int4 int32 int64 uint64 bool. */
const char *fia_dtype_name(fia_dtype dt);
/* FIA_DT_INVALID when the name is unknown. */
fia_dtype fia_dtype_from_name(const char *name);
/* Bits per element (4 for int4). */
int fia_dtype_bits(fia_dtype dt);
/* Bytes needed for n elements (int4 rounds up). */
size_t fia_dtype_storage(fia_dtype dt, int64_t n);
int fia_dtype_is_float(fia_dtype dt);

/* Exact widening. */
double fia_fp16_to_double(uint16_t h);
double fia_bf16_to_double(uint16_t b);
float fia_fp16_to_float(uint16_t h);
float fia_bf16_to_float(uint16_t b);
/* Round to nearest even. */
uint16_t fia_double_to_fp16(double x);
uint16_t fia_double_to_bf16(double x);
uint16_t fia_float_to_fp16(float x);
uint16_t fia_float_to_bf16(float x);

/* Element i of a buffer of dtype dt, widened to double (int4: sign-extended
 * nibble; bool/uint8 as 0..255). */
double fia_load_as_double(fia_dtype dt, const void *data, int64_t i);
/* Store x (already representable or to be rounded to nearest even /
 * saturated for integers) as element i. */
void fia_store_from_double(fia_dtype dt, void *data, int64_t i, double x);

#endif
