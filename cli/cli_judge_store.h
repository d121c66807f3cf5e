/* `judge --db` (judge_store.c): one campaign per judge run, of the
 * device's system at its version. */
#ifndef FIA_CLI_JUDGE_STORE_H
#define FIA_CLI_JUDGE_STORE_H

#include "fia/check.h"

/* Opens (creates) the store db and begins the campaign: FIA_OK, or the
 * store's status said. */
fia_status cli_judge_store_begin(const char *db, const char *system,
                                 const char *version, fia_profile profile,
                                 const fia_check_options *tol,
                                 const char *command);
int cli_judge_store_active(void);
/* Records one judged case (its finding, its accuracy sample, its rules);
 * r must have been judged with fail_masks (the signature needs them). */
void cli_judge_store_case(const fia_case *c, const fia_check_result *r,
                          fia_profile profile);
/* Ends the campaign and says where it is: FIA_OK, or when findings could
 * not be stored (said) the store's status, FIA_ERR_IO when the store took
 * the campaign but refused findings (spooled beside it). */
fia_status cli_judge_store_end(const char *db);

#endif
