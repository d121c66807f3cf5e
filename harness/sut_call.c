/* The one place where the tool calls the system under test (fast/ unless
 * a plug-in was chosen: fia/sut_host.h): a case becomes an fia_sut_args
 * and the two phases are run. */
#include <stdlib.h>
#include <string.h>
#include "fia/check.h"
#include "fia/sut_host.h"

static const fia_tensor *slot(const fia_case_data *d, fia_slot s)
{
    return d->t[s];
}

static const fia_int_array *array(const fia_case_data *d, fia_array a)
{
    return d->arr_present[a] ? &d->arr[a] : NULL;
}

/* The case's run settings (not part of the call): each set for this call
 * only, the previous value kept in saved[] for restore_run.  A system
 * with no set_option takes none and runs every case its own way. */
enum { OPT_LEVEL, OPT_THREADS, OPT_ORDER, OPT_COUNT };
static const char *const opt_names[OPT_COUNT] = {"kernel_level", "threads",
                                                 "task_order"};

typedef struct saved_options {
    int set[OPT_COUNT];
    char value[OPT_COUNT][64];
} saved_options;

static fia_status set_one(const fia_sut *s, int k, const char *want,
                          saved_options *sv, fia_error *err)
{
    if (s->set_option == NULL)
        return FIA_OK; /* a system without run settings runs its own way
                          (the generators' settings are fast/'s knobs) */
    const char *now = s->get_option(opt_names[k]);
    if (now == NULL || s->set_option(opt_names[k], want) != 0)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s = %s: the system under "
                        "test (%s) cannot run so here%s%s%s", opt_names[k],
                        want, s->name, now ? " (it has " : "", now ? now : "",
                        now ? " now)" : "");
    snprintf(sv->value[k], sizeof sv->value[k], "%s", now);
    sv->set[k] = 1;
    return FIA_OK;
}

static void restore_run(const fia_sut *s, const saved_options *sv)
{
    for (int k = 0; k < OPT_COUNT; k++)
        if (sv->set[k])
            s->set_option(opt_names[k], sv->value[k]);
}

static fia_status apply_run(const fia_sut *s, const fia_case *c,
                            saved_options *sv, fia_error *err)
{
    char v[32];
    fia_status st = FIA_OK;
    memset(sv, 0, sizeof *sv);
    if (c->kernel_level != FIA_KL_DEFAULT)
        st = set_one(s, OPT_LEVEL, fia_kernel_level_name(c->kernel_level), sv,
                     err);
    if (st == FIA_OK && c->threads > 0) {
        snprintf(v, sizeof v, "%d", c->threads);
        st = set_one(s, OPT_THREADS, v, sv, err);
    }
    if (st == FIA_OK && c->task_order != 0) {
        snprintf(v, sizeof v, "%llu", (unsigned long long)c->task_order);
        st = set_one(s, OPT_ORDER, v, sv, err);
    }
    if (st != FIA_OK)
        restore_run(s, sv);
    return st;
}

static void make_args(const fia_case *c, const fia_case_data *d,
                      fia_profile profile, fia_sut_args *x)
{
    const fia_attrs *a = &c->attrs;
    *x = (fia_sut_args){
        .size = sizeof *x,
        .profile = profile,
        .query = slot(d, FIA_SLOT_QUERY),
        .key = d->t[FIA_SLOT_KEY] ? &d->key_list : NULL,
        .value = d->t[FIA_SLOT_VALUE] ? &d->value_list : NULL,
        .pse_shift = slot(d, FIA_SLOT_PSE_SHIFT),
        .atten_mask = slot(d, FIA_SLOT_ATTEN_MASK),
        .actual_seq_lengths = array(d, FIA_ARR_ACTUAL_SEQ_LENGTHS),
        .actual_seq_lengths_kv = array(d, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV),
        .dequant_scale1 = slot(d, FIA_SLOT_DEQUANT_SCALE1),
        .quant_scale1 = slot(d, FIA_SLOT_QUANT_SCALE1),
        .dequant_scale2 = slot(d, FIA_SLOT_DEQUANT_SCALE2),
        .quant_scale2 = slot(d, FIA_SLOT_QUANT_SCALE2),
        .quant_offset2 = slot(d, FIA_SLOT_QUANT_OFFSET2),
        .antiquant_scale = slot(d, FIA_SLOT_ANTIQUANT_SCALE),
        .antiquant_offset = slot(d, FIA_SLOT_ANTIQUANT_OFFSET),
        .block_table = slot(d, FIA_SLOT_BLOCK_TABLE),
        .query_padding_size = slot(d, FIA_SLOT_QUERY_PADDING_SIZE),
        .kv_padding_size = slot(d, FIA_SLOT_KV_PADDING_SIZE),
        .key_antiquant_scale = slot(d, FIA_SLOT_KEY_ANTIQUANT_SCALE),
        .key_antiquant_offset = slot(d, FIA_SLOT_KEY_ANTIQUANT_OFFSET),
        .value_antiquant_scale = slot(d, FIA_SLOT_VALUE_ANTIQUANT_SCALE),
        .value_antiquant_offset = slot(d, FIA_SLOT_VALUE_ANTIQUANT_OFFSET),
        .key_shared_prefix = slot(d, FIA_SLOT_KEY_SHARED_PREFIX),
        .value_shared_prefix = slot(d, FIA_SLOT_VALUE_SHARED_PREFIX),
        .actual_shared_prefix_len = array(d, FIA_ARR_ACTUAL_SHARED_PREFIX_LEN),
        .num_heads = a->num_heads,
        .scale = a->scale,
        .pre_tokens = a->pre_tokens,
        .next_tokens = a->next_tokens,
        .input_layout = a->input_layout,
        .num_key_value_heads = a->num_key_value_heads,
        .sparse_mode = a->sparse_mode,
        .inner_precise = a->inner_precise,
        .block_size = a->block_size,
        .antiquant_mode = a->antiquant_mode,
        .softmax_lse_flag = a->softmax_lse_flag,
        .key_antiquant_mode = a->key_antiquant_mode,
        .value_antiquant_mode = a->value_antiquant_mode,
        .query_rope = slot(d, FIA_SLOT_QUERY_ROPE),
        .key_rope = slot(d, FIA_SLOT_KEY_ROPE),
        .dequant_scale_query = slot(d, FIA_SLOT_DEQUANT_SCALE_QUERY),
        .query_quant_mode = a->query_quant_mode,
        .learnable_sink = slot(d, FIA_SLOT_LEARNABLE_SINK),
        .out_dtype = c->attrs.out_dtype >= 0 ? &c->attrs.out_dtype : NULL,
        .api = fia_api_name(c->api),
        .attention_out = slot(d, FIA_SLOT_ATTENTION_OUT),
        .softmax_lse = slot(d, FIA_SLOT_SOFTMAX_LSE),
        .product = fia_product_name(c->product),
    };
}

/* The system's message, kept to one line of err's size. */
static fia_status sut_fail(const fia_sut *s, fia_error *err, fia_status st,
                           const char *phase)
{
    const char *m = s->last_error();
    return fia_fail(err, st, "%s%.400s", phase, m ? m : "");
}

static fia_status call_sut(const fia_sut *s, const fia_case *c,
                           const fia_case_data *d, fia_profile profile,
                           int compute, fia_error *err)
{
    fia_sut_args args;
    uint64_t ws_size = 0;
    void *ex = NULL;
    make_args(c, d, profile, &args);
    fia_sut_announce_compute(compute);
    fia_status st = s->get_workspace_size(&args, &ws_size, &ex);
    if (st != FIA_OK)
        return sut_fail(s, err, st, "");
    if (!compute) {
        s->destroy(ex);
        return FIA_OK;
    }
    void *ws = NULL;
    if (ws_size > 0) {
        ws = malloc(ws_size);
        if (ws == NULL) {
            s->destroy(ex);
            return fia_fail(err, FIA_ERR_NOMEM, "cannot allocate a workspace "
                            "of %llu bytes", (unsigned long long)ws_size);
        }
        /* as a device's: old contents, never zeros a kernel could rely on
         * (all-ones bytes: NaN in every float format) */
        memset(ws, 0xff, ws_size);
    }
    st = s->run(ws, ws_size, ex);
    free(ws);
    if (st != FIA_OK)
        return sut_fail(s, err, st, "phase two: ");
    return FIA_OK;
}

fia_status fia_call_sut(const fia_case *c, const fia_case_data *d,
                        fia_profile profile, int compute, fia_error *err)
{
    const fia_sut *s = fia_sut_current();
    saved_options sv;
    fia_error_clear(err);
    fia_status st = apply_run(s, c, &sv, err);
    if (st != FIA_OK)
        return st;
    st = call_sut(s, c, d, profile, compute, err);
    restore_run(s, &sv);
    return st;
}

fia_status fia_sut_check_settings(const fia_case *c, fia_error *err)
{
    const fia_sut *s = fia_sut_current();
    saved_options sv;
    fia_error_clear(err);
    fia_status st = apply_run(s, c, &sv, err);
    if (st == FIA_OK)
        restore_run(s, &sv);
    return st;
}
