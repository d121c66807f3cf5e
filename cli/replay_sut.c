/* The system under test that replays a device's recorded answer
 * (cli_judge.h): the harness calls it as it calls any system, so a case
 * judged from out/ goes through the same fia_check_case as `run`. */
#include <stdio.h>
#include <string.h>
#include "cli_judge.h"

static const cli_device_answer *answer;
static char last_error[1100];
static char output_error[1024];
static char sut_name[65], sut_version[129];

void cli_replay_set(const cli_device_answer *a)
{
    answer = a;
    last_error[0] = output_error[0] = '\0';
}

const char *cli_replay_output_error(void)
{
    return output_error;
}

static const char *replay_last_error(void)
{
    return last_error;
}

static fia_status replay_plan(const fia_sut_args *args, uint64_t *ws,
                              void **executor)
{
    *ws = 0;
    *executor = NULL;
    last_error[0] = '\0';
    if (answer == NULL) {
        snprintf(last_error, sizeof last_error, "no recorded answer");
        return FIA_ERR_BAD_INPUT;
    }
    if (!answer->accepted) {
        if (answer->code == CLI_JUDGE_UNKNOWN_CODE)
            snprintf(last_error, sizeof last_error, "rejected without a "
                     "readable status code: %.400s", answer->message);
        else
            snprintf(last_error, sizeof last_error, "%.480s",
                     answer->message);
        return answer->code;
    }
    *executor = (void *)args; /* valid until phase two returns */
    return FIA_OK;
}

/* Whether the recorded npy n fits output t (dtype and shape): "" or why,
 * into why[len]. */
static int fits(const char *file, const cli_npy *n, const fia_tensor *t,
                char *why, size_t len)
{
    char want[160], got[160];
    const char *descr = cli_npy_descr_of(t->dtype);
    int same = n->ndim == t->ndim;
    for (int i = 0; same && i < n->ndim; i++)
        same = n->shape[i] == t->shape[i];
    if (descr != NULL && strcmp(n->descr + 1, descr + 1) == 0 &&
        (n->descr[0] == descr[0] || n->itemsize == 1) && same)
        return 1;
    fia_tensor_describe(t, want, sizeof want);
    int k = 0;
    for (int i = 0; i < n->ndim; i++)
        k += snprintf(got + k, sizeof got - (size_t)k, "%s%lld", i ? "," : "",
                      (long long)n->shape[i]);
    if (n->ndim == 0)
        got[0] = '\0';
    snprintf(why, len, "%.300s/out/%s.npy: %s [%s], the call's output is %s "
             "(written as %s)", answer->dir, file, n->descr, got, want,
             descr ? descr : "?");
    return 0;
}

static fia_status replay_run(void *ws, uint64_t ws_size, void *executor)
{
    (void)ws;
    (void)ws_size;
    const fia_sut_args *args = executor;
    if (args == NULL || answer == NULL)
        return FIA_ERR_BAD_INPUT;
    if (!answer->has_out) {
        snprintf(output_error, sizeof output_error, "%.300s/out/attention_out"
                 ".npy: missing", answer->dir);
    } else if (fits("attention_out", &answer->out, args->attention_out,
                    output_error, sizeof output_error)) {
        if (args->softmax_lse == NULL) {
            /* an interface may return a placeholder lse the call did not
             * ask for: nothing to judge in it */
        } else if (!answer->has_lse) {
            snprintf(output_error, sizeof output_error, "%.300s/out/softmax_lse"
                     ".npy: missing, but the call asks for softmax_lse",
                     answer->dir);
        } else if (fits("softmax_lse", &answer->lse, args->softmax_lse,
                        output_error, sizeof output_error) &&
                   answer->lse.nbytes > 0) {
            /* an empty output has no data pointer on either side */
            memcpy(args->softmax_lse->data, answer->lse.data,
                   answer->lse.nbytes);
        }
        if (output_error[0] == '\0' && answer->out.nbytes > 0)
            memcpy(args->attention_out->data, answer->out.data,
                   answer->out.nbytes);
    }
    if (output_error[0] != '\0') {
        snprintf(last_error, sizeof last_error, "%s", output_error);
        return FIA_ERR_BAD_INPUT;
    }
    return FIA_OK;
}

static void replay_destroy(void *executor)
{
    (void)executor; /* phase one allocates nothing */
}

static fia_sut table = {
    .abi_version = FIA_SUT_ABI_VERSION,
    .validates = FIA_SUT_CHECKS_STATUS,
    .get_workspace_size = replay_plan,
    .run = replay_run,
    .destroy = replay_destroy,
    .last_error = replay_last_error,
};

const fia_sut *cli_replay_sut(const char *name, const char *version)
{
    snprintf(sut_name, sizeof sut_name, "%s", name);
    snprintf(sut_version, sizeof sut_version, "%s", version);
    table.name = sut_name;
    table.version = sut_version;
    return &table;
}
