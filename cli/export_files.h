/* The files of device/, built into fiacheck (scripts/embed_files.cmake
 * generates the table at build time): path relative to device/, bytes. */
#ifndef FIA_CLI_EXPORT_FILES_H
#define FIA_CLI_EXPORT_FILES_H

#include <stddef.h>

typedef struct export_file {
    const char *path;            /* NULL ends the table */
    const unsigned char *data;
    size_t size;
} export_file;

extern const export_file export_files[];

#endif
