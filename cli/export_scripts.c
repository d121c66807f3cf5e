/* The device scripts written into an export directory: the files of the
 * source tree's device/ as they were when fiacheck was built. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "export.h"
#include "export_files.h"

/* Creates the directories of path's parent below dir (an entry such as
 * aclnn/build.sh). */
static fia_status make_parents(const char *dir, const char *rel,
                               fia_error *err)
{
    char path[4096];
    for (const char *p = strchr(rel, '/'); p; p = strchr(p + 1, '/')) {
        snprintf(path, sizeof path, "%s/%.*s", dir, (int)(p - rel), rel);
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return fia_fail(err, FIA_ERR_IO, "%s: %s", path,
                            strerror(errno));
    }
    return FIA_OK;
}

fia_status export_scripts(const char *dir, fia_error *err)
{
    for (const export_file *e = export_files; e->path; e++) {
        char path[4096], tmp[4200];
        fia_status st = make_parents(dir, e->path, err);
        if (st != FIA_OK)
            return st;
        snprintf(path, sizeof path, "%s/%s", dir, e->path);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "wb");
        if (f == NULL)
            return fia_fail(err, FIA_ERR_IO, "%s: %s", tmp, strerror(errno));
        int bad = fwrite(e->data, 1, e->size, f) != e->size;
        bad |= fclose(f) != 0;
        /* a shell script stays runnable as ./build.sh */
        size_t n = strlen(e->path);
        if (!bad && n > 3 && strcmp(e->path + n - 3, ".sh") == 0)
            bad = chmod(tmp, 0755) != 0;
        if (bad || rename(tmp, path) != 0) {
            remove(tmp);
            return fia_fail(err, FIA_ERR_IO, "%s: cannot write: %s", path,
                            strerror(errno));
        }
    }
    return FIA_OK;
}
