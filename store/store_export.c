/* store/: exporting a store as JSON lines (every row of every table).  A
 * stored text holds whatever bytes its input had: fia_json_string makes it
 * valid UTF-8 JSON (fia/text.h). */
#include <math.h>
#include <string.h>
#include "fia/text.h"
#include "store_int.h"

static int export_table(fia_store *s, FILE *out, const char *table,
                        const char *name)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY 1, 2", table);
    sqlite3_stmt *st = store_prepare(s, sql);
    if (st == NULL)
        return FIA_ERR_IO;
    int n = sqlite3_column_count(st), rc;
    while ((rc = store_step(s, st)) == SQLITE_ROW) {
        fprintf(out, "{\"table\":\"%s\"", name);
        for (int i = 0; i < n; i++) {
            const char *col = sqlite3_column_name(st, i);
            fprintf(out, ",\"%s\":", col);
            switch (sqlite3_column_type(st, i)) {
            case SQLITE_INTEGER:
                if (strcmp(col, "seed") == 0)
                    fprintf(out, "%llu",
                            (unsigned long long)sqlite3_column_int64(st, i));
                else
                    fprintf(out, "%lld",
                            (long long)sqlite3_column_int64(st, i));
                break;
            case SQLITE_FLOAT: {
                double d = sqlite3_column_double(st, i);
                if (isfinite(d))
                    fprintf(out, "%.17g", d);
                else
                    fputs("null", out);
                break;
            }
            case SQLITE_NULL:
                fputs("null", out);
                break;
            default:
                fia_json_string(out, store_col_text(st, i));
            }
        }
        fputs("}\n", out);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sqlfail(s, rc, "exporting");
    return ferror(out) ? store_fail(s, FIA_ERR_IO, "write error")
                       : FIA_OK;
}

fia_status fia_store_export_json(fia_store *s, FILE *out)
{
    if (s == NULL || out == NULL)
        return FIA_ERR_BAD_INPUT;
    static const char *const tables[][2] = {
        {"campaigns", "campaign"},   {"findings", "finding"},
        {"sightings", "sighting"},   {"accuracy", "accuracy"},
        {"accuracy_samples", "accuracy_sample"},
        {"accuracy_worst", "accuracy_worst"},
        {"rule_coverage", "rule_coverage"},
        {"bench_figures", "bench_figure"}};
    int rc = store_read_begin(s); /* one snapshot */
    for (size_t i = 0;
         rc == FIA_OK && i < sizeof tables / sizeof tables[0]; i++)
        rc = export_table(s, out, tables[i][0], tables[i][1]);
    store_read_end(s);
    return rc;
}
