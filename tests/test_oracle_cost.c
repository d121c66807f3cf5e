/* The oracle's cost does not grow with the number of batches: a call of
 * 2^40 batches (a fuzz_params input of 2^31 took 7 s in the gcc build,
 * past libFuzzer's timeout under the sanitizers, walking every batch's key
 * length for the released code's empty key/value return) is evaluated at
 * once.  An alarm ends the test if it is not: at a nanosecond a batch it
 * would take 18 minutes. */
#include <signal.h>
#include <unistd.h>
#include "oracle_testlib.h"

/* key null, a value list of two: every batch past the list's own tensors
 * reads the same default length */
static const char *many_batches =
    "input_layout = BSH_NBSD\nnum_heads = 1\nscale = 0.5\n"
    "query = fp16 [1099511627776,5,64]\nkey = null\n"
    "value = fp16 [1,60,4,64]; fp16 [1,60,4,64]\n";

static const char *many_batches_lens =
    "input_layout = BSH\nnum_heads = 1\nscale = 0.5\n"
    "query = fp16 [1099511627776,5,64]\nkey = fp16 [1,8,64]\n"
    "value = fp16 [1,8,64]\nactual_seq_lengths_kv = [0,0,0]\n";

int main(void)
{
    alarm(20);
    static fia_oracle_verdict v;
    CHECK(eval(many_batches, FIA_PROFILE_CANN, &v) == 0);
    CHECK(!v.accept);
    CHECK(eval(many_batches, FIA_PROFILE_DOC, &v) == 0);
    CHECK(!v.accept);
    CHECK(eval(many_batches_lens, FIA_PROFILE_CANN, &v) == 0);
    CHECK(!v.accept);
    return check_summary();
}
