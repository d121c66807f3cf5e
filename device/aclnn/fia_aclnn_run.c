/* fia_aclnn_run: makes the aclnnFusedInferAttentionScoreV2 call (002) of
 * each case `fiacheck export` wrote, on an Ascend device, and saves what
 * comes back in the case's out/ for `fiacheck judge`.
 *
 *     fia_aclnn_run DIR        DIR: the export directory, or one case in it
 *
 * The device is 0 unless FIA_ACLNN_DEVICE names another.  Exit status: 0
 * every aclnn_v2 case was called (accepted or refused, out/ says which);
 * 1 an ACL runtime call failed for some case (it has no out/status.json);
 * 2 bad usage, or a case whose call.json or inputs are malformed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "acl/acl.h"
#include "fia_aclnn_call.h"

static int is_case_dir(const char *dir)
{
    char path[4096];
    struct stat sb;
    int n = snprintf(path, sizeof path, "%s/call.json", dir);
    return n > 0 && (size_t)n < sizeof path && stat(path, &sb) == 0 &&
           S_ISREG(sb.st_mode);
}

static int worst(int a, int b) { return a > b ? a : b; }

static int exit_for(case_outcome o)
{
    return o == CASE_BAD ? 2 : o == CASE_RUNTIME_FAILED ? 1 : 0;
}

/* Every case directory under dir, in name order. */
static int run_all(const char *dir, aclrtStream stream, int *ran)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) {
        perror(dir);
        return 2;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char sub[4096];
        if (names[i]->d_name[0] != '.') {
            int k = snprintf(sub, sizeof sub, "%s/%s", dir, names[i]->d_name);
            if (k > 0 && (size_t)k < sizeof sub && is_case_dir(sub)) {
                case_outcome o = fia_aclnn_run_case(sub, stream, 1);
                *ran += o != CASE_SKIPPED;
                rc = worst(rc, exit_for(o));
            }
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        fprintf(argc == 2 ? stdout : stderr,
                "usage: %s DIR   (an export directory, or one case in it)\n",
                argv[0]);
        return argc == 2 ? 0 : 2;
    }
    const char *dir = argv[1];
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "%s: not a directory\n", dir);
        return 2;
    }
    int32_t device = 0;
    const char *dev = getenv("FIA_ACLNN_DEVICE");
    if (dev && *dev) {
        char *end;
        long d = strtol(dev, &end, 10);
        if (*end || d < 0 || d > 1023) {
            fprintf(stderr, "FIA_ACLNN_DEVICE=%s: not a device number\n", dev);
            return 2;
        }
        device = (int32_t)d;
    }
    aclError e = aclInit(NULL);
    if (e != ACL_SUCCESS) {
        const char *m = aclGetRecentErrMsg();
        fprintf(stderr, "aclInit failed: %d %s\n", e, m ? m : "");
        return 1;
    }
    aclrtStream stream = NULL;
    e = aclrtSetDevice(device);
    if (e == ACL_SUCCESS)
        e = aclrtCreateStream(&stream);
    int rc = 1;
    if (e != ACL_SUCCESS) {
        const char *m = aclGetRecentErrMsg();
        fprintf(stderr, "device %d: %d %s\n", (int)device, e, m ? m : "");
    } else if (is_case_dir(dir)) {
        rc = exit_for(fia_aclnn_run_case(dir, stream, 0));
    } else {
        int ran = 0;
        rc = run_all(dir, stream, &ran);
        if (ran == 0) {
            fprintf(stderr, "%s: no aclnn_v2 case directory in it\n", dir);
            rc = 2;
        }
    }
    if (stream)
        aclrtDestroyStream(stream);
    if (e == ACL_SUCCESS || stream)
        aclrtResetDevice(device);
    aclFinalize();
    return rc;
}
