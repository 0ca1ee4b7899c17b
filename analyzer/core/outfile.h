/* Output files written whole or not at all. The data goes to a hidden
 * temporary file beside the target and is renamed over it only once every
 * byte is written and the file closed: a full disk or a folder that turns
 * unwritable leaves no partial report or picture behind, and an older file
 * of that name stays as it was. A target that exists and is not a regular
 * file (/dev/stdout, a FIFO, /dev/full) is written directly. */
#ifndef FJA_OUTFILE_H
#define FJA_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *f;
    const char *path;
    char tmp[4096]; /* "" when writing path directly */
} fja_outfile;

/* Opens the output; on failure returns NULL with the reason in err. */
FILE *fja_outfile_open(fja_outfile *o, const char *path, char *err, size_t errlen);
/* Checks every write, closes and moves the file into place. On failure the
 * temporary file is removed and err says why; returns -1. */
int fja_outfile_commit(fja_outfile *o, char *err, size_t errlen);
/* Gives up: closes and removes what was written. */
void fja_outfile_abort(fja_outfile *o);
/* Gives up after a failed write (error e): fja_outfile_abort, and err says why. */
void fja_outfile_fail(fja_outfile *o, int e, char *err, size_t errlen);
/* open + one write + commit. */
int fja_outfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen);

#endif
