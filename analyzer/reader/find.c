#include "find.h"

#include "regular.h"

#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 16 /* a session is ust/uid/0/64-bit deep */

static int list_add(find_list *l, const char *dir)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **d = realloc(l->dirs, cap * sizeof *d);
        if (!d) return -1;
        l->dirs = d;
        l->cap = cap;
    }
    if (!(l->dirs[l->n] = strdup(dir))) return -1;
    l->n++;
    return 0;
}

/* Whether dir has an entry name, whatever its kind: a `metadata` that is
 * not a regular file (a FIFO, a folder) makes dir a trace all the same,
 * which find_check_metadata then refuses naming the file. */
static int has_entry(const char *dir, const char *name)
{
    char p[4096];
    struct stat st;
    if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) >= sizeof p) return 0;
    return stat(p, &st) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entry of dir in l->seen, or NULL. A linear scan: a session holds a
 * handful of folders. */
static find_id *seen_get(find_list *l, const struct stat *st)
{
    for (size_t i = 0; i < l->nseen; i++)
        if (l->seen[i].dev == st->st_dev && l->seen[i].ino == st->st_ino) return &l->seen[i];
    return NULL;
}

static int seen_add(find_list *l, const struct stat *st, bool trace)
{
    if (l->nseen == l->capseen) {
        size_t cap = l->capseen ? l->capseen * 2 : 16;
        find_id *s = realloc(l->seen, cap * sizeof *s);
        if (!s) return -1;
        l->seen = s;
        l->capseen = cap;
    }
    l->seen[l->nseen++] = (find_id){.dev = st->st_dev, .ino = st->st_ino, .trace = trace};
    return 0;
}

/* Depth-first walk; a directory with `metadata` is a trace and is not
 * searched further (its index/ holds no traces). *found counts the traces
 * reached, including ones already listed. */
static int walk(const char *dir, int depth, find_list *l, size_t *found)
{
    struct stat st;
    if (stat(dir, &st) != 0) return 0;
    const find_id *seen = seen_get(l, &st);
    if (seen) {
        *found += seen->trace;
        return 0;
    }
    bool trace = has_entry(dir, "metadata");
    if (seen_add(l, &st, trace)) return -1;
    if (trace) {
        (*found)++;
        return list_add(l, dir);
    }
    if (depth >= MAX_DEPTH) return 0;
    DIR *d = opendir(dir);
    if (!d) return 0; /* unreadable subfolders are skipped, not fatal */
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p) continue;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) rc = walk(p, depth + 1, l, found);
    }
    closedir(d);
    return rc;
}

find_status find_ctf_dirs(const char *path, find_list *list, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return FIND_NOT_FOUND;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    if (S_ISREG(st.st_mode)) {
        /* TRACE/metadata given: the trace is its directory */
        char *slash = strrchr(dir, '/');
        if (!slash || strcmp(slash + 1, "metadata") != 0) {
            snprintf(err, errlen, "%s: not a CTF trace (give a trace or session folder)", path);
            return FIND_NO_CTF;
        }
        *slash = '\0';
    } else if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a folder", path);
        return FIND_NOT_FOUND;
    }
    /* Walked already (given twice, or a folder of a session given before):
     * its traces are listed, and counted once. */
    if (stat(dir, &st) == 0 && seen_get(list, &st)) return FIND_OK;
    size_t before = list->n, found = 0;
    if (walk(dir, 0, list, &found)) {
        snprintf(err, errlen, "out of memory");
        return FIND_NO_MEMORY;
    }
    if (!found) {
        snprintf(err, errlen,
                 "%s: no CTF trace found (no 'metadata' file below it); record one with "
                 "fjtrace-record",
                 path);
        return FIND_NO_CTF;
    }
    qsort(list->dirs + before, list->n - before, sizeof *list->dirs, cmp_str);
    return FIND_OK;
}

void find_list_free(find_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->dirs[i]);
    free(l->dirs);
    free(l->seen);
    *l = (find_list){0};
}

#define TSDL_MAGIC 0x75d11d57u
#define PACKET_HEADER 37 /* magic, uuid, checksum, sizes, schemes, version */

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int find_check_metadata(const char *dir, char *err, size_t errlen)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/metadata", dir);
    FILE *f = fja_regular_open(p, err, errlen); /* a FIFO would block */
    if (!f) return -1;
    unsigned char h[PACKET_HEADER];
    long off = 0;
    int rc = 0;
    /* Walk the packet headers; plain-text metadata has no magic and passes. */
    while (fseek(f, off, SEEK_SET) == 0) {
        size_t n = fread(h, 1, sizeof h, f);
        if (n == 0 || (off == 0 && (n < 4 || le32(h) != TSDL_MAGIC))) break;
        uint32_t content = le32(h + 24), size = le32(h + 28);
        struct stat st;
        /* The last packet may lack some of its padding (after content_size):
         * babeltrace2 reads its text all the same. */
        if (n < sizeof h || le32(h) != TSDL_MAGIC || size < 8 * PACKET_HEADER || content > size ||
            content < 8 * PACKET_HEADER || size % 8 || fstat(fileno(f), &st) ||
            off + (long)((content + 7) / 8) > st.st_size) {
            snprintf(err, errlen, "%s: metadata is truncated or corrupt at byte %ld", p, off);
            rc = -1;
            break;
        }
        off += (long)(size / 8);
    }
    fclose(f);
    return rc;
}
