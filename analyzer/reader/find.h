/* Finding CTF traces: source.ctf.fs wants the directories that hold a
 * `metadata` file (e.g. SESSION/ust/uid/0/64-bit), so a session folder, a
 * trace directory or a metadata file itself is resolved to those. */
#ifndef FJA_FIND_H
#define FJA_FIND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum {
    FIND_OK = 0,
    FIND_NOT_FOUND, /* the path does not exist or cannot be read */
    FIND_NO_CTF,    /* it exists but holds no CTF trace */
    FIND_NO_MEMORY,
} find_status;

/* A folder as the file system knows it, however it is reached (symbolic
 * links, "a/./b", the same path given twice). */
typedef struct {
    dev_t dev;
    ino_t ino;
    bool trace; /* holds `metadata` */
} find_id;

typedef struct {
    char **dirs;
    size_t n, cap;
    find_id *seen; /* every folder visited, over all calls */
    size_t nseen, capseen;
} find_list;

/* Appends the trace directories under path to list (sorted, so that runs
 * are reproducible). A folder is visited once, so a trace reached twice
 * (a link to a parent, the same trace given twice) is listed once and a
 * symbolic-link loop ends. err receives a message for the user on failure. */
find_status find_ctf_dirs(const char *path, find_list *list, char *err, size_t errlen);
void find_list_free(find_list *list);

/* Checks that dir/metadata is whole: babeltrace2 2.0 loops forever on a
 * packetized metadata file whose last packet is cut (a recording killed
 * mid-write). Returns 0, or -1 with a message in err. */
int find_check_metadata(const char *dir, char *err, size_t errlen);

#endif
