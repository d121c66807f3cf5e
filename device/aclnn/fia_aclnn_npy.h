/* .npy files (NumPy's format 1.0-3.0, C order, little-endian): read one
 * whole, write one.  Part of the program `fiacheck export` ships. */
#ifndef FIA_ACLNN_NPY_H
#define FIA_ACLNN_NPY_H

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_RANK 8

typedef struct npy_array {
    char descr[16];             /* "<f2", "|u1", ... as the header says */
    int ndim;
    int64_t shape[NPY_MAX_RANK];
    size_t itemsize;
    size_t nbytes;
    void *data;                 /* owned (NULL when nbytes is 0) */
} npy_array;

/* Reads path into *a: 0, else -1 with why in err. */
int npy_read(const char *path, npy_array *a, char *err, size_t errlen);
/* Writes nbytes of data with the header descr/shape: 0, else -1. */
int npy_write(const char *path, const char *descr, int ndim,
              const int64_t *shape, const void *data, size_t nbytes,
              char *err, size_t errlen);
void npy_free(npy_array *a);

#endif
