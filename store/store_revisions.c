/* store/: the revisions the store knows (those of its campaigns, of its
 * sightings and of its benchmark figures), for the command line to resolve a short or symbolic name. */
#include "store_int.h"

fia_status fia_store_list_revisions(fia_store *s, fia_store_revision_cb cb,
                                    void *ctx)
{
    if (s == NULL || cb == NULL)
        return FIA_ERR_BAD_INPUT;
    sqlite3_stmt *st = store_prepare(
        s, "SELECT revision, MAX(t) FROM ("
           " SELECT revision, started AS t FROM campaigns"
           " UNION ALL SELECT revision, last_seen FROM sightings"
           " UNION ALL SELECT revision, started FROM bench_figures)"
           " WHERE revision <> '' GROUP BY revision"
           " ORDER BY MAX(t) DESC, revision");
    if (st == NULL)
        return FIA_ERR_IO;
    int rc;
    while ((rc = store_step(s, st)) == SQLITE_ROW)
        if (cb(store_col_text(st, 0), sqlite3_column_int64(st, 1), ctx) != 0)
            break;
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE
             ? FIA_OK : store_sqlfail(s, rc, "listing the revisions");
    sqlite3_finalize(st);
    return rc;
}
