/* store/: campaign identities — random UUIDs for new campaigns, and UUIDs
 * derived from the row for the campaigns of stores older than schema 3.
 *
 * Why derived for old rows: a merge matches campaigns by UUID, so two
 * copies of one old store (or one old store merged twice, each time
 * migrated in memory because the source is opened read-only) must give
 * the same campaign the same UUID.  The row id is part of the hash, so two
 * campaigns of one store never share one. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "store_int.h"

/* 16 bytes as 8-4-4-4-12 hex with the version nibble and the RFC variant. */
static void format_uuid(unsigned char b[16], int version, char out[37])
{
    b[6] = (unsigned char)((b[6] & 0x0f) | (version << 4));
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    static const char hex[] = "0123456789abcdef";
    int k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[k++] = '-';
        out[k++] = hex[b[i] >> 4];
        out[k++] = hex[b[i] & 15];
    }
    out[k] = '\0';
}

fia_status store_uuid_v4(fia_store *s, char out[37])
{
    unsigned char b[16];
    size_t got = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    while (fd >= 0 && got < sizeof b) {
        ssize_t n = read(fd, b + got, sizeof b - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (fd >= 0)
        close(fd);
    if (got < sizeof b)
        return store_fail(s, FIA_ERR_IO,
                          "cannot read /dev/urandom for a campaign UUID");
    format_uuid(b, 4, out);
    return FIA_OK;
}

/* FNV-1a over the bytes, then the splitmix64 finalizer so that every input
 * bit reaches every output bit; two seeds give the 128 bits. */
static uint64_t mix(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

static void hash_bytes(uint64_t h[2], const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 2; k++)
            h[k] = (h[k] ^ p[i]) * 0x100000001b3ULL;
}

static void row_uuid(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    uint64_t h[2] = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL};
    for (int i = 0; i < argc; i++) {
        const unsigned char *t = sqlite3_value_text(argv[i]);
        size_t n = t ? (size_t)sqlite3_value_bytes(argv[i]) : 0;
        hash_bytes(h, t ? t : (const unsigned char *)"", n);
        /* a separator that text cannot hold, so ("ab","c") != ("a","bc") */
        unsigned char sep[2] = {0xff, (unsigned char)(t == NULL)};
        hash_bytes(h, sep, 2);
    }
    unsigned char b[16];
    for (int k = 0; k < 2; k++) {
        uint64_t v = mix(h[k] ^ (uint64_t)k);
        for (int i = 0; i < 8; i++)
            b[8 * k + i] = (unsigned char)(v >> (8 * i));
    }
    char out[37];
    format_uuid(b, 8, out);
    sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

int store_add_functions(sqlite3 *db)
{
    return sqlite3_create_function(db, "fia_row_uuid", -1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                   row_uuid, NULL, NULL);
}
