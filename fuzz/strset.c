/* A growable set of strings, in insertion order, with an open-addressing
 * index (FNV-1a, linear probing, at most half full): the signatures a
 * fuzz worker has recorded, the buckets of its accuracy samples, the
 * signatures `fiacheck fuzz` sums over the workers.  No cap: it grows
 * until memory runs out, which the caller hears of as FIA_ERR_NOMEM. */
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz.h"

static size_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return (size_t)h;
}

void fuzz_strset_init(fuzz_strset *s) { memset(s, 0, sizeof *s); }

void fuzz_strset_free(fuzz_strset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->items[i]);
    free(s->items);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

/* The slot of str: where it is, or the empty one where it would go. */
static size_t probe(const fuzz_strset *s, const char *str)
{
    size_t mask = s->nslots - 1, i = hash_str(str) & mask;
    while (s->slots[i] != 0 && strcmp(s->items[s->slots[i] - 1], str) != 0)
        i = (i + 1) & mask;
    return i;
}

ptrdiff_t fuzz_strset_find(const fuzz_strset *s, const char *str)
{
    if (s->nslots == 0)
        return -1;
    size_t i = probe(s, str);
    return s->slots[i] ? (ptrdiff_t)s->slots[i] - 1 : -1;
}

/* Doubles the index (nslots a power of two, at least 16). */
static fia_status grow_index(fuzz_strset *s)
{
    size_t n = s->nslots ? s->nslots * 2 : 16;
    size_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return FIA_ERR_NOMEM;
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    for (size_t k = 0; k < s->n; k++)
        s->slots[probe(s, s->items[k])] = k + 1;
    return FIA_OK;
}

fia_status fuzz_strset_add(fuzz_strset *s, const char *str, size_t *index,
                           int *added)
{
    if (added)
        *added = 0;
    ptrdiff_t at = fuzz_strset_find(s, str);
    if (at >= 0) {
        if (index)
            *index = (size_t)at;
        return FIA_OK;
    }
    if ((s->n + 1) * 2 > s->nslots && grow_index(s) != FIA_OK)
        return FIA_ERR_NOMEM;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        char **items = realloc(s->items, cap * sizeof *items);
        if (items == NULL)
            return FIA_ERR_NOMEM;
        s->items = items;
        s->cap = cap;
    }
    char *copy = strdup(str);
    if (copy == NULL)
        return FIA_ERR_NOMEM;
    s->items[s->n] = copy;
    s->slots[probe(s, str)] = s->n + 1;
    if (index)
        *index = s->n;
    if (added)
        *added = 1;
    s->n++;
    return FIA_OK;
}
