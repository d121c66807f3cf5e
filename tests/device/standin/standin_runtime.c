/* The ACL runtime on the CPU: initialisation, one device (0), streams as
 * tokens (the stand-in finishes each launch inside the call, so
 * synchronising has nothing to wait for), device memory as host memory,
 * and the thread's last error message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "standin_internal.h"

static _Thread_local char last_error[1024];
static _Thread_local int have_error;

void standin_set_error(const char *fmt, ...)
{
    if (!fmt) {
        have_error = 0;
        last_error[0] = '\0';
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    have_error = 1;
}

STANDIN_API const char *aclGetRecentErrMsg(void)
{
    return have_error ? last_error : NULL;
}

/* The device the stand-in plays: a property of the machine, not of a call,
 * so it comes from the environment as a real device's would from the
 * hardware.  NULL is the Atlas A2 / A3 every document describes. */
static _Thread_local const char *product;

const char *standin_product(void)
{
    return product;
}

/* The status profile is fast/'s, per thread: the stand-in answers with the
 * documents' codes unless FIA_ACLNN_STANDIN_PROFILE=cann asks for the
 * released code's.  FIA_ACLNN_STANDIN_PRODUCT=atlas_inference_card makes it
 * the inference card of 001, with its narrower limits. */
const char *standin_config_error(void)
{
    static _Thread_local char why[256];
    const char *fast_why = fastConfigError();
    if (fast_why) {
        snprintf(why, sizeof why, "%s", fast_why);
        return why;
    }
    const char *p = getenv("FIA_ACLNN_STANDIN_PROFILE");
    fia_profile prof = FIA_PROFILE_DOC;
    if (p && *p && fia_profile_parse(p, &prof) != 0) {
        snprintf(why, sizeof why,
                 "FIA_ACLNN_STANDIN_PROFILE=%.64s: not doc or cann", p);
        return why;
    }
    const char *d = getenv("FIA_ACLNN_STANDIN_PRODUCT");
    if (d && *d && strcmp(d, "atlas_a2") != 0 &&
        strcmp(d, "atlas_inference_card") != 0) {
        snprintf(why, sizeof why,
                 "FIA_ACLNN_STANDIN_PRODUCT=%.64s: not atlas_a2 or "
                 "atlas_inference_card", d);
        return why;
    }
    product = d && *d ? d : NULL;
    fastSetStatusProfile(prof);
    return NULL;
}

static int initialized;
static int device_set;

STANDIN_API aclError aclInit(const char *configPath)
{
    (void)configPath;
    const char *why = standin_config_error();
    if (why) {
        standin_set_error("aclInit: %s", why);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (initialized) {
        standin_set_error("aclInit: already initialised");
        return ACL_ERROR_REPEAT_INITIALIZE;
    }
    initialized = 1;
    return ACL_SUCCESS;
}

STANDIN_API aclError aclFinalize(void)
{
    if (!initialized) {
        standin_set_error("aclFinalize: aclInit was not called");
        return ACL_ERROR_UNINITIALIZE;
    }
    initialized = 0;
    return ACL_SUCCESS;
}

STANDIN_API aclError aclrtSetDevice(int32_t deviceId)
{
    if (deviceId != 0) {
        standin_set_error("aclrtSetDevice: the stand-in has device 0 only, "
                          "not %d", (int)deviceId);
        return ACL_ERROR_INVALID_PARAM;
    }
    device_set = 1;
    return ACL_SUCCESS;
}

STANDIN_API aclError aclrtResetDevice(int32_t deviceId)
{
    if (deviceId != 0 || !device_set) {
        standin_set_error("aclrtResetDevice: device %d was not set",
                          (int)deviceId);
        return ACL_ERROR_INVALID_PARAM;
    }
    device_set = 0;
    return ACL_SUCCESS;
}

/* A stream is a heap token carrying a magic word, so that a stale or
 * made-up stream is refused rather than used. */
#define STREAM_MAGIC 0x5354524du
typedef struct standin_stream { uint32_t magic; } standin_stream;

int standin_stream_valid(aclrtStream p)
{
    return !p || ((standin_stream *)p)->magic == STREAM_MAGIC;
}

STANDIN_API aclError aclrtCreateStream(aclrtStream *stream)
{
    if (!stream) {
        standin_set_error("aclrtCreateStream: stream is nullptr");
        return ACL_ERROR_INVALID_PARAM;
    }
    standin_stream *s = malloc(sizeof *s);
    if (!s) {
        standin_set_error("aclrtCreateStream: out of memory");
        return ACL_ERROR_BAD_ALLOC;
    }
    s->magic = STREAM_MAGIC;
    *stream = s;
    return ACL_SUCCESS;
}

STANDIN_API aclError aclrtDestroyStream(aclrtStream stream)
{
    if (!stream || !standin_stream_valid(stream)) {
        standin_set_error("aclrtDestroyStream: not a stream");
        return ACL_ERROR_INVALID_PARAM;
    }
    ((standin_stream *)stream)->magic = 0;
    free(stream);
    return ACL_SUCCESS;
}

STANDIN_API aclError aclrtSynchronizeStream(aclrtStream stream)
{
    if (!standin_stream_valid(stream)) {
        standin_set_error("aclrtSynchronizeStream: not a stream");
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

STANDIN_API aclError aclrtMalloc(void **devPtr, size_t size,
                                 aclrtMemMallocPolicy policy)
{
    (void)policy;
    if (!devPtr || size == 0) {
        standin_set_error("aclrtMalloc: %s", devPtr ? "size 0"
                                                    : "devPtr is nullptr");
        return ACL_ERROR_INVALID_PARAM;
    }
    *devPtr = malloc(size);
    if (!*devPtr) {
        standin_set_error("aclrtMalloc: %zu bytes: out of memory", size);
        return ACL_ERROR_BAD_ALLOC;
    }
    return ACL_SUCCESS;
}

STANDIN_API aclError aclrtFree(void *devPtr)
{
    free(devPtr);
    return ACL_SUCCESS;
}

STANDIN_API aclError aclrtMemcpy(void *dst, size_t destMax, const void *src,
                                 size_t count, aclrtMemcpyKind kind)
{
    if (!dst || !src || count > destMax ||
        (int)kind < ACL_MEMCPY_HOST_TO_HOST ||
        (int)kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
        standin_set_error("aclrtMemcpy: %s",
                          count > destMax ? "count exceeds destMax"
                                          : "bad pointer or kind");
        return ACL_ERROR_INVALID_PARAM;
    }
    memmove(dst, src, count);
    return ACL_SUCCESS;
}
