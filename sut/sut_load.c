/* Loading a system under test from a shared library: dlopen, the one
 * exported entry point, and a check of the table it returns -- a plug-in
 * built against another major ABI version, or with a missing entry
 * point, is refused here with a message instead of crashing later in the
 * middle of a campaign. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "exec.h"
#include "fia/sut_host.h"

/* A name the store and the signatures can carry as is. */
static int name_ok(const char *s)
{
    if (s == NULL || *s == '\0' || strlen(s) > 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' ||
              *s == '-'))
            return 0;
    return 1;
}

static fia_status check_table(const fia_sut *s, const char *path,
                              fia_error *err)
{
    if (s == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: %s() returned NULL",
                        path, FIA_SUT_ENTRY_NAME);
    if (FIA_SUT_ABI_MAJOR(s->abi_version) !=
        FIA_SUT_ABI_MAJOR(FIA_SUT_ABI_VERSION))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: built for ABI version "
                        "%u.%u, this fiacheck speaks %u.x (rebuild it "
                        "against this include/fia/sut.h)", path,
                        s->abi_version >> 16, s->abi_version & 0xffffu,
                        FIA_SUT_ABI_VERSION >> 16);
    if (!name_ok(s->name))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: its name must be 1..64 "
                        "characters of [A-Za-z0-9_.-]", path);
    if (s->version == NULL || s->version[0] == '\0' ||
        strlen(s->version) > 128 ||
        strpbrk(s->version, "\n\r\t") != NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: its version (the revision "
                        "the store records) must be 1..128 characters on "
                        "one line",
                        path);
    if (s->get_workspace_size == NULL || s->run == NULL ||
        s->destroy == NULL || s->last_error == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: its table lacks %s",
                        path,
                        s->get_workspace_size == NULL ? "get_workspace_size"
                        : s->run == NULL              ? "run"
                        : s->destroy == NULL          ? "destroy"
                                                      : "last_error");
    if ((s->set_option == NULL) != (s->get_option == NULL))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: set_option and "
                        "get_option come together (one is NULL)", path);
    if (s->validates & ~(uint32_t)FIA_SUT_CHECKS_STATUS)
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s: unknown validates "
                        "bits 0x%x", path, s->validates);
    return FIA_OK;
}

fia_status fia_sut_load(const char *path, const fia_sut **out,
                        fia_error *err)
{
    *out = NULL;
    if (path == NULL || *path == '\0')
        return fia_fail(err, FIA_ERR_BAD_INPUT, "--sut wants the path of "
                        "a plug-in (a .so)");
    if (strncmp(path, FIA_SUT_EXEC_PREFIX, strlen(FIA_SUT_EXEC_PREFIX)) == 0)
        return fia_sut_exec_load(path, out, err); /* a worker process */
    /* RTLD_LOCAL: a plug-in's symbols (say its own copy of fast/) never
     * stand in for ours, nor ours for its */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *why = dlerror();
        return fia_fail(err, FIA_ERR_BAD_INPUT, "cannot load the system "
                        "under test: %s", why ? why : path);
    }
    fia_sut_entry_fn entry;
    void *sym = dlsym(h, FIA_SUT_ENTRY_NAME);
    if (sym == NULL) {
        dlclose(h);
        return fia_fail(err, FIA_ERR_BAD_INPUT, "%s is not a fiacheck "
                        "plug-in: it exports no %s (include/fia/sut.h)",
                        path, FIA_SUT_ENTRY_NAME);
    }
    memcpy(&entry, &sym, sizeof entry); /* object to function pointer */
    const fia_sut *s = entry();
    fia_status st = check_table(s, path, err);
    if (st != FIA_OK) {
        dlclose(h);
        return st;
    }
    *out = s; /* h stays open: the table and its code live in it */
    return FIA_OK;
}
