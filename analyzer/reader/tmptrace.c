/* A temporary trace folder of links (reader.h): the metadata, some of the
 * stream files and their index files, each link registered for removal on
 * Ctrl-C (interrupt.h) as soon as it exists. */
#include "reader.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"

/* Makes path (a link to src when src is set, else a folder) and registers
 * it, newest last. -1 when it cannot be made or memory ran out. */
static int made_add(fja_tmptrace *t, const char *src, const char *path)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **grown = realloc(t->paths, cap * sizeof *grown);
        if (!grown) return -1;
        t->paths = grown;
        t->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy) return -1;
    fja_interrupt_defer();
    int rc = src ? symlink(src, path) : mkdir(path, 0700);
    if (rc == 0 && fja_interrupt_track(copy) == 0) {
        t->paths[t->n++] = copy;
        copy = NULL;
    } else if (rc == 0) {
        if (src)
            unlink(path);
        else
            rmdir(path);
        rc = -1;
    }
    fja_interrupt_resume();
    free(copy);
    return rc;
}

static int link_into(fja_tmptrace *t, const char *from_dir, const char *to_dir, const char *name)
{
    char src[PATH_MAX], dst[PATH_MAX];
    if (snprintf(src, sizeof src, "%s/%s", from_dir, name) >= (int)sizeof src ||
        snprintf(dst, sizeof dst, "%s/%s", to_dir, name) >= (int)sizeof dst)
        return -1;
    return made_add(t, src, dst);
}

/* A stream file (or its index file) of the selection: prefix says whether
 * its name begins with the prefix or must not. */
static bool selected(const char *name, const char *prefix, bool with)
{
    if (name[0] == '.' || !strcmp(name, "metadata") || !strcmp(name, "index")) return false;
    return (strncmp(name, prefix, strlen(prefix)) == 0) == with;
}

/* Links the selected stream files of trace into the folder (and their
 * indexes into its index folder). Returns how many streams, or -1. */
static int link_streams(fja_tmptrace *t, const char *prefix, bool with)
{
    DIR *d = opendir(t->trace);
    if (!d) return -1;
    int streams = 0, rc = 0;
    const struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL)
        if (selected(e->d_name, prefix, with)) {
            rc = link_into(t, t->trace, t->dir, e->d_name);
            streams++;
        }
    closedir(d);
    if (rc || !streams) return rc ? -1 : 0;
    char from[PATH_MAX], to[PATH_MAX];
    if (snprintf(from, sizeof from, "%s/index", t->trace) >= (int)sizeof from ||
        snprintf(to, sizeof to, "%s/index", t->dir) >= (int)sizeof to)
        return -1;
    if (!(d = opendir(from))) return streams; /* no index: babeltrace2 reads without */
    rc = made_add(t, NULL, to);
    while (rc == 0 && (e = readdir(d)) != NULL)
        if (selected(e->d_name, prefix, with)) rc = link_into(t, from, to, e->d_name);
    closedir(d);
    return rc ? -1 : streams;
}

int fja_tmptrace_make(fja_tmptrace *t, const char *trace, const char *prefix, bool with)
{
    *t = (fja_tmptrace){0};
    if (!realpath(trace, t->trace)) return -1; /* the links point to it from elsewhere */
    const char *base = getenv("TMPDIR");
    if (snprintf(t->dir, sizeof t->dir, "%s/fjtrace-analyze-streams.XXXXXX",
                 base && *base ? base : "/tmp") >= (int)sizeof t->dir) {
        t->dir[0] = 0;
        return -1;
    }
    fja_interrupt_defer();
    int rc = mkdtemp(t->dir) ? fja_interrupt_track(t->dir) : -1;
    if (rc && *t->dir) rmdir(t->dir);
    fja_interrupt_resume();
    if (rc) {
        t->dir[0] = 0;
        return -1;
    }
    int streams = link_streams(t, prefix, with);
    if (streams > 0 && link_into(t, t->trace, t->dir, "metadata")) streams = -1;
    if (streams <= 0) fja_tmptrace_remove(t);
    return streams;
}

void fja_tmptrace_remove(fja_tmptrace *t)
{
    while (t->n > 0) { /* newest first: the index files before their folder */
        char *p = t->paths[--t->n];
        if (unlink(p) != 0) rmdir(p);
        fja_interrupt_forget(p);
        free(p);
    }
    free(t->paths);
    t->paths = NULL;
    t->cap = 0;
    if (*t->dir) {
        rmdir(t->dir);
        fja_interrupt_forget(t->dir);
        t->dir[0] = 0;
    }
}
