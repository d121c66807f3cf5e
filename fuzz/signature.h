/* fuzz/signature.c: the failing pattern a finding's signature is made of
 * (the definition is that file's header). */
#ifndef FIA_FUZZ_SIGNATURE_H
#define FIA_FUZZ_SIGNATURE_H

#include <stddef.h>
#include <stdint.h>
#include "fia/case.h"

/* Which elements of one problem failed, in the canonical order. */
typedef struct fuzz_fail_view {
    int64_t B, N, KV_N, Q_S, D;
    const int64_t *q_len, *kv_len; /* per batch: valid query rows, keys */
    const uint8_t *out;            /* fia_fail_code per (b, n, s, d); NULL */
    const uint8_t *lse;            /* fia_fail_code per (b, n, s); NULL */
} fuzz_fail_view;

/* "path|where" (see signature.c). */
void fuzz_fail_pattern(const fuzz_fail_view *v, char *buf, size_t len);

/* A metamorphic disagreement's signature: "metamorphic|" and the pattern
 * of the masks (canonical BNSD order for out, (b, n, s) for lse; both NULL:
 * a form failed in phase two, "metamorphic|phase-two").  The transform is
 * not part of it (signature.c). */
void fuzz_meta_signature(const fia_case *c, const char *transform,
                         const uint8_t *out_fail, const uint8_t *lse_fail,
                         char *buf, size_t len);

/* A crash's site from a sanitizer's SUMMARY line ("AddressSanitizer:
 * heap-buffer-overflow /src/fast/kernel/widen_avx2.c:14:21 in f"): the
 * error kind and the source file below the tree's part folder without its
 * ISA suffix, "heap-buffer-overflow@fast/kernel/widen" (the bug, not the
 * case's bucket nor the level it ran at).  1 when found, else 0 (out
 * empty). */
int fuzz_crash_site(const char *summary, char *out, size_t len);
/* A plug-in's crash: fuzz_crash_site also reads "plug-in crash: KIND at
 * SITE; ..." (cli's worker reader writes it from the report's first
 * frame in the plug-in), giving "KIND@SITE": the tree's folders do not
 * name a bug of code outside the tree, its function does.
 * fuzz_plugin_frame classifies one line of a sanitizer's stack for the
 * plug-in at path `plugin`: 1, a frame of the plug-in (its module is the
 * .so, or its source file lies outside the tree, the toolchain and the
 * system's headers), its function into out ("mine_gather"; C++
 * parameters dropped), else its offset in the .so ("libmine.so+0x1490");
 * -1, a frame of the tree's own code (a part folder in its source path);
 * 0, anything else (the runtime, libc, a line that is no frame). */
int fuzz_plugin_frame(const char *line, const char *plugin, char *out,
                      size_t len);
/* 1 when signatures a and b may name one bug: equal, or both failing
 * patterns (accuracy, nan-leak, metamorphic) of one path whose wheres
 * agree or one of which is "spread" (no region shown; signature.c). */
int fuzz_signature_compatible(const char *a, const char *b);
/* The system under test's prefix of a signature ("NAME:" when it is a
 * plug-in other than fast/, else nothing) into buf; its length. */
size_t fuzz_sut_prefix(char *buf, size_t len);
/* sig after its system prefix (sig itself when it has none). */
const char *fuzz_signature_body(const char *sig);
/* Where the first source file named in s ends: its ".c:" (else its
 * ".h:"); NULL when s names none. */
const char *fuzz_source_ref(const char *s);

#endif