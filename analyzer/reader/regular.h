/* Every file of a trace the reader opens itself (the metadata, stream
 * files, LTTng index files) goes through here. A FIFO opened for reading
 * blocks until a writer comes, forever in a damaged or hostile trace
 * folder (an index file that is a FIFO hung the analyzer in fopen, issue
 * 24); a device may block too or never end. Such a file is refused before
 * it is opened, with a line naming it; libbabeltrace2 itself skips the
 * stream files that are not regular, and is never handed a folder whose
 * metadata or index files are not (reader.c). */
#ifndef FJA_REGULAR_H
#define FJA_REGULAR_H

#include <stddef.h>
#include <stdio.h>

/* 0 when path is a regular file (following symbolic links); else -1 and
 * why gets "PATH: not a regular file (a FIFO)" or "PATH: strerror" (may
 * be NULL). */
int fja_regular_check(const char *path, char *why, size_t n);

/* fopen(path, "rb") of a regular file only: NULL with why set (as above)
 * for anything else, or when it cannot be opened. Opened without blocking
 * and checked again on the open file, so that a file swapped for a FIFO in
 * between is refused too. */
FILE *fja_regular_open(const char *path, char *why, size_t n);

/* open(path, O_RDONLY) of a regular file only: -1 with why set. */
int fja_regular_fd(const char *path, char *why, size_t n);

#endif
