/* ONNX Runtime itself: the library's check, one environment, a session per
 * model signature (creating one parses and plans the graph: far dearer
 * than a small call), and the run of phase two.
 *
 * Sessions run on the CPU execution provider (none other is appended), one
 * intra-op thread (the results do not depend on a thread count, and
 * fiacheck runs its own workers side by side), graph optimizations off (the
 * graph is the one node; nothing may replace it). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ort_plan.h"

typedef void (*ort_fn)(void);

typedef OrtStatus *(*get_error_fn)(const OrtStatus *);
typedef OrtStatus *(*create_env_fn)(int level, const char *id, OrtEnv **out);
typedef OrtStatus *(*create_session_fn)(const OrtEnv *, const void *, size_t,
                                        const OrtSessionOptions *,
                                        OrtSession **);
typedef OrtStatus *(*run_fn)(OrtSession *, const OrtRunOptions *,
                             const char *const *names,
                             const OrtValue *const *inputs, size_t n_in,
                             const char *const *out_names, size_t n_out,
                             OrtValue **outputs);
typedef OrtStatus *(*create_options_fn)(OrtSessionOptions **);
typedef OrtStatus *(*set_int_option_fn)(OrtSessionOptions *, int);
typedef OrtStatus *(*create_tensor_fn)(const OrtMemoryInfo *, void *data,
                                       size_t bytes, const int64_t *shape,
                                       size_t rank, int elem, OrtValue **);
typedef OrtStatus *(*mutable_data_fn)(OrtValue *, void **);
typedef OrtStatus *(*cpu_memory_fn)(int alloc_type, int mem_type,
                                    OrtMemoryInfo **);
typedef void (*release_fn)(void *);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const ort_fn *api;
static OrtEnv *env;
static OrtMemoryInfo *cpu_mem;
static char unusable[256];
static int checked;

#define API(type, pos) ((type)api[pos])

/* The message of a failed status (released), copied into last_error. */
static fia_status ort_status(OrtStatus *s, const char *what)
{
    const char *msg = API(const char *(*)(const OrtStatus *),
                          ORT_GET_ERROR_MESSAGE)(s);
    fia_status st = ort_fail(FIA_ERR_RUNTIME_ERROR, "onnxruntime: %s: %s",
                             what, msg ? msg : "?");
    API(release_fn, ORT_RELEASE_STATUS)(s);
    return st;
}

/* Once: the version, the table, the environment, the CPU memory info.
 * Called with the lock held. */
static void init_locked(void)
{
    checked = 1;
    const OrtApiBase *base = OrtGetApiBase();
    const char *ver = base && base->GetVersionString
                          ? base->GetVersionString()
                          : NULL;
    if (ver == NULL || strcmp(ver, ORT_SUT_ORT_VERSION) != 0) {
        snprintf(unusable, sizeof unusable, "libonnxruntime is version %s; "
                 "this plug-in declares the C API of %s (rebuild it against "
                 "that version: scripts/thirdparty.sh)",
                 ver ? ver : "(none)", ORT_SUT_ORT_VERSION);
        return;
    }
    api = base->GetApi(ORT_SUT_API_VERSION);
    if (api == NULL) {
        snprintf(unusable, sizeof unusable, "libonnxruntime %s has no C API "
                 "table of version %u", ver, ORT_SUT_API_VERSION);
        return;
    }
    /* ORT_LOGGING_LEVEL_FATAL (4): refusals are reported through statuses,
     * not printed */
    OrtStatus *s = API(create_env_fn, ORT_CREATE_ENV)(4, "fiacheck", &env);
    if (s == NULL)
        /* OrtArenaAllocator (1), OrtMemTypeDefault (0) */
        s = API(cpu_memory_fn, ORT_CREATE_CPU_MEMORY_INFO)(1, 0, &cpu_mem);
    if (s != NULL) {
        ort_status(s, "CreateEnv");
        api = NULL;
        snprintf(unusable, sizeof unusable, "onnxruntime: no environment");
    }
}

const char *ort_library_check(void)
{
    pthread_mutex_lock(&lock);
    if (!checked)
        init_locked();
    pthread_mutex_unlock(&lock);
    return api != NULL ? NULL : unusable;
}

/* The session cache: signatures compared field by field (no padding
 * bytes compared). */
#define MAX_SESSIONS 64
static struct {
    ort_sig sig;
    OrtSession *s;              /* NULL: ORT refused the model, why: */
    char why[200];
} cache[MAX_SESSIONS];
static int n_cache;

static int same_sig(const ort_sig *a, const ort_sig *b)
{
    return a->elem == b->elem && a->num_heads == b->num_heads &&
           a->kv_num_heads == b->kv_num_heads &&
           a->local_window_size == b->local_window_size &&
           memcmp(&a->scale, &b->scale, sizeof a->scale) == 0 &&
           a->has_past == b->has_past && a->has_bias == b->has_bias &&
           a->has_sink == b->has_sink && a->causal == b->causal;
}

/* A session for the signature, from the cache or new; with the lock held.
 * ORT's sessions may run concurrently, so the session is used after the
 * lock is released (entries are only dropped when the cache is full, which
 * one run at a time guarantees is safe: see ort_execute). */
static fia_status session_locked(const ort_sig *sig, OrtSession **out)
{
    for (int i = 0; i < n_cache; i++)
        if (same_sig(&cache[i].sig, sig)) {
            /* a refusal is remembered too: asking again costs a session
             * creation (and ORT leaks a little on each refusal) */
            *out = cache[i].s;
            return cache[i].s ? FIA_OK
                              : ort_fail(FIA_ERR_NOT_MODELED, "%s",
                                         cache[i].why);
        }
    size_t len = 0;
    uint8_t *model = ort_model_encode(sig, &len);
    if (model == NULL)
        return ort_fail(FIA_ERR_RUNTIME_ERROR, "out of memory");
    OrtSessionOptions *opt = NULL;
    OrtSession *sess = NULL;
    OrtStatus *s = API(create_options_fn, ORT_CREATE_SESSION_OPTIONS)(&opt);
    if (s == NULL)
        s = API(set_int_option_fn, ORT_SET_INTRA_OP_NUM_THREADS)(opt, 1);
    if (s == NULL) /* ORT_DISABLE_ALL */
        s = API(set_int_option_fn, ORT_SET_GRAPH_OPTIMIZATION_LEVEL)(opt, 0);
    if (s == NULL)
        s = API(create_session_fn, ORT_CREATE_SESSION_FROM_ARRAY)(
            env, model, len, opt, &sess);
    free(model);
    if (opt != NULL)
        API(release_fn, ORT_RELEASE_SESSION_OPTIONS)(opt);
    char why[200] = "";
    if (s != NULL) {
        /* no kernel for this dtype or these attributes: not covered */
        ort_status(s, "CreateSessionFromArray");
        snprintf(why, sizeof why, "%s", ort_last_error());
    }
    if (n_cache == MAX_SESSIONS) {
        for (int i = 0; i < n_cache; i++)
            if (cache[i].s != NULL)
                API(release_fn, ORT_RELEASE_SESSION)(cache[i].s);
        n_cache = 0;
    }
    cache[n_cache].sig = *sig;
    cache[n_cache].s = sess;
    memcpy(cache[n_cache].why, why, sizeof why);
    if (sess == NULL) {
        n_cache++;
        return ort_fail(FIA_ERR_NOT_MODELED, "%s", why);
    }
    n_cache++;
    *out = sess;
    return FIA_OK;
}

/* Whether a session can be made for the signature (phase one asks, so
 * that a dtype or attribute ORT has no kernel for is "not covered"). */
fia_status ort_session_probe(const ort_sig *sig)
{
    OrtSession *s;
    pthread_mutex_lock(&lock);
    fia_status st = session_locked(sig, &s);
    pthread_mutex_unlock(&lock);
    return st;
}

static fia_status tensor(void *data, size_t bytes, const int64_t *shape,
                         size_t rank, int elem, OrtValue **out)
{
    /* ORT wants a non-null pointer even for an empty tensor */
    static uint64_t empty;
    OrtStatus *s = API(create_tensor_fn, ORT_CREATE_TENSOR_WITH_DATA)(
        cpu_mem, data ? data : &empty, bytes, shape, rank, elem, out);
    return s ? ort_status(s, "CreateTensorWithDataAsOrtValue") : FIA_OK;
}

/* One run over batches b0 .. b0 + nb - 1 (views into the plan's buffers,
 * whose batch is the outermost dim). */
static fia_status run_batches(ort_plan *p, int64_t b0, int64_t nb)
{
    const ort_sig *sig = &p->sig;
    OrtValue *in[GQA_N_INPUTS] = {0};
    const char *names[GQA_N_INPUTS];
    size_t n_in = 0;
    OrtValue *out = NULL;
    fia_status st = FIA_OK;
    const size_t es = p->elem_size;
    const int64_t H = p->N * p->DG, KH = p->KV_N * p->DG;
    const int64_t q_shape[3] = {nb, p->S, H}, kv_shape[3] = {nb, p->S, KH};
    const int64_t past_shape[4] = {nb, p->KV_N, p->past_len, p->DG};
    const int64_t bb = p->bias_b > 1 ? nb : 1;
    const int64_t bias_shape[4] = {bb, p->bias_n, p->S, p->total_max};
    const int64_t b_shape[1] = {nb}, n_shape[1] = {p->N};
    const size_t nq = (size_t)(nb * p->S * H), nkv = (size_t)(nb * p->S * KH);
    const size_t npast = (size_t)(nb * KH * p->past_len);
    const size_t nbias = (size_t)(bb * p->bias_n * p->S * p->total_max);
    char *gq = (char *)p->gq + (size_t)b0 * (nq / (size_t)nb) * es;
    char *gout = (char *)p->gout + (size_t)b0 * (nq / (size_t)nb) * es;
    char *gk = (char *)p->gk + (size_t)b0 * (nkv / (size_t)nb) * es;
    char *gv = (char *)p->gv + (size_t)b0 * (nkv / (size_t)nb) * es;
    char *gpk = NULL, *gpv = NULL, *gbias = p->gbias;
    if (sig->has_past) {
        gpk = (char *)p->gpast_k + (size_t)b0 * (npast / (size_t)nb) * es;
        gpv = (char *)p->gpast_v + (size_t)b0 * (npast / (size_t)nb) * es;
    }
    if (sig->has_bias && p->bias_b > 1)
        gbias += (size_t)b0 * (nbias / (size_t)nb) * es;

#define FEED(idx, data, bytes, shape, rank, elem)                         \
    do {                                                                  \
        if (st == FIA_OK) {                                               \
            names[n_in] = ort_input_name(idx);                            \
            st = tensor(data, bytes, shape, rank, elem, &in[n_in]);       \
            n_in++;                                                       \
        }                                                                 \
    } while (0)
    FEED(GQA_QUERY, gq, nq * es, q_shape, 3, sig->elem);
    FEED(GQA_KEY, gk, nkv * es, kv_shape, 3, sig->elem);
    FEED(GQA_VALUE, gv, nkv * es, kv_shape, 3, sig->elem);
    if (sig->has_past) {
        FEED(GQA_PAST_KEY, gpk, npast * es, past_shape, 4, sig->elem);
        FEED(GQA_PAST_VALUE, gpv, npast * es, past_shape, 4, sig->elem);
    }
    FEED(GQA_SEQLENS_K, p->seqlens_k + b0, (size_t)nb * 4, b_shape, 1,
         ORT_T_INT32);
    FEED(GQA_TOTAL_SEQLEN, &p->total_seqlen, 4, NULL, 0, ORT_T_INT32);
    if (sig->has_bias)
        FEED(GQA_ATTENTION_BIAS, gbias, nbias * es, bias_shape, 4,
             sig->elem);
    if (sig->has_sink)
        FEED(GQA_HEAD_SINK, p->gsink, (size_t)p->N * es, n_shape, 1, sig->elem);
#undef FEED
    if (st == FIA_OK)
        st = tensor(gout, nq * es, q_shape, 3, sig->elem, &out);

    if (st == FIA_OK) {
        /* one run at a time: the cache may drop a session only while no
         * run uses it, and fiacheck's workers are processes, not threads */
        pthread_mutex_lock(&lock);
        OrtSession *sess = NULL;
        st = session_locked(sig, &sess);
        if (st == FIA_OK) {
            const char *out_names[1] = {"output"};
            OrtStatus *s = API(run_fn, ORT_RUN)(
                sess, NULL, names, (const OrtValue *const *)in, n_in,
                out_names, 1, &out);
            if (s != NULL)
                st = ort_status(s, "Run");
        }
        pthread_mutex_unlock(&lock);
    }
    for (size_t i = 0; i < n_in; i++)
        if (in[i] != NULL)
            API(release_fn, ORT_RELEASE_VALUE)(in[i]);
    if (out != NULL)
        API(release_fn, ORT_RELEASE_VALUE)(out);
    return st;
}

/* GQA takes a past cache with several new tokens only at batch size 1
 * ("batch_size must be 1 when sequence_length > 1 and past context is
 * given"): such a call runs batch by batch (batches are independent). */
fia_status ort_execute(ort_plan *p)
{
    if (!(p->sig.has_past && p->S > 1 && p->B > 1))
        return run_batches(p, 0, p->B);
    fia_status st = FIA_OK;
    for (int64_t b = 0; b < p->B && st == FIA_OK; b++)
        st = run_batches(p, b, 1);
    return st;
}
