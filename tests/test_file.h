/* Whole files as the tests read them: a file's bytes into one malloc'd
 * buffer, and the FNV-1a 64 hash of a file's bytes (the tests that pin a
 * corpus against a list of expected hashes).  Header-only; tests only. */
#ifndef FIA_TESTS_TEST_FILE_H
#define FIA_TESTS_TEST_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The bytes of the file at path in a malloc'd buffer the caller frees,
 * with a NUL after the last byte (a text file is then a C string); their
 * count in *len when len is not NULL.  NULL when the file cannot be opened
 * or the memory cannot be had.  Read in growing chunks rather than by the
 * size stat or ftell reports, so that a file still being written or a
 * pipe reads whole too. */
static inline char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *grown = realloc(buf, cap);
            if (grown == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len != NULL)
        *len = n;
    return buf;
}

/* FNV-1a 64 of the file's bytes into *hash; 0, or -1 (*hash untouched)
 * when the file cannot be read. */
static inline int test_file_fnv1a64(const char *path, uint64_t *hash)
{
    size_t n = 0;
    char *bytes = test_read_file(path, &n);
    if (bytes == NULL)
        return -1;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)bytes[i]) * 0x100000001b3ull;
    free(bytes);
    *hash = h;
    return 0;
}

#endif
