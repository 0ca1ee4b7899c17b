/* A temporary trace folder (reader.h): links to the metadata, to some of
 * the stream files and their index files, or copies made by the caller,
 * each registered for removal on Ctrl-C (interrupt.h) as soon as it
 * exists. */
#include "reader.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"
#include "regular.h"

/* Makes path with make(path, ctx) and registers it, newest last, with
 * the signals held back from before it exists to once it is registered.
 * -1 when it cannot be made (nothing is left of it) or memory ran out. */
static int made_add(fja_tmptrace *t, const char *path, int (*make)(const char *path, void *ctx),
                    void *ctx)
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
    int rc = make(path, ctx);
    if (rc == 0 && fja_interrupt_track(copy) == 0) {
        t->paths[t->n++] = copy;
        copy = NULL;
    } else {
        if (unlink(path) != 0) rmdir(path); /* half made, or not registered: nothing left */
        rc = -1;
    }
    fja_interrupt_resume();
    free(copy);
    return rc;
}

static int make_link(const char *path, void *src)
{
    return symlink(src, path);
}

static int make_folder(const char *path, void *unused)
{
    (void)unused;
    return mkdir(path, 0700);
}

/* dir/name, or -1 when it does not fit. */
static int path_in(char *out, size_t n, const char *dir, const char *name)
{
    return snprintf(out, n, "%s/%s", dir, name) >= (int)n ? -1 : 0;
}

int fja_tmptrace_link(fja_tmptrace *t, const char *name)
{
    char src[PATH_MAX], dst[PATH_MAX];
    if (path_in(src, sizeof src, t->trace, name) || path_in(dst, sizeof dst, t->dir, name))
        return -1;
    return made_add(t, dst, make_link, src);
}

int fja_tmptrace_file(fja_tmptrace *t, const char *name, int (*make)(const char *path, void *ctx),
                      void *ctx)
{
    char dst[PATH_MAX];
    if (path_in(dst, sizeof dst, t->dir, name)) return -1;
    return made_add(t, dst, make, ctx);
}

/* A stream file (or its index file) of the selection: prefix says whether
 * its name begins with the prefix or must not. */
static bool selected(const char *name, const char *prefix, bool with)
{
    if (name[0] == '.' || !strcmp(name, "metadata") || !strcmp(name, "index")) return false;
    return (strncmp(name, prefix, strlen(prefix)) == 0) == with;
}

/* Links the selected stream files of the trace into the folder (and
 * their indexes into its index folder). Returns how many streams, or -1. */
static int link_streams(fja_tmptrace *t, const char *prefix, bool with)
{
    DIR *d = opendir(t->trace);
    if (!d) return -1;
    int streams = 0, rc = 0;
    const struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char path[PATH_MAX];
        /* one that is not a readable regular file is left out, as
         * libbabeltrace2 leaves it, and named (the caller says what is
         * missing for it): the others are read all the same */
        if (!selected(e->d_name, prefix, with) || path_in(path, sizeof path, t->trace, e->d_name))
            continue;
        char why[sizeof t->left_out];
        if (fja_regular_check(path, why, sizeof why) ||
            (access(path, R_OK) && snprintf(why, sizeof why, "%s: %s", path, strerror(errno)))) {
            if (!*t->left_out) snprintf(t->left_out, sizeof t->left_out, "%s", why);
            continue;
        }
        rc = fja_tmptrace_link(t, e->d_name);
        streams++;
    }
    closedir(d);
    if (rc || !streams) return rc ? -1 : 0;
    char from[PATH_MAX], to[PATH_MAX], name[PATH_MAX];
    if (path_in(from, sizeof from, t->trace, "index") || path_in(to, sizeof to, t->dir, "index"))
        return -1;
    if (!(d = opendir(from))) return streams; /* no index: babeltrace2 reads without */
    rc = made_add(t, to, make_folder, NULL);
    while (rc == 0 && (e = readdir(d)) != NULL)
        if (selected(e->d_name, prefix, with))
            rc = path_in(name, sizeof name, "index", e->d_name) || fja_tmptrace_link(t, name);
    closedir(d);
    return rc ? -1 : streams;
}

/* Why the last fja_tmptrace_begin could make no folder anywhere ("" when
 * it could). Written by the thread that makes temporaries (the main one). */
static char failure[1024];

const char *fja_tmptrace_failure(void)
{
    return failure;
}

void fja_tmptrace_failure_clear(void)
{
    failure[0] = 0;
}

/* A folder <base>/<name>XXXXXX for t, registered; 0, or -1 with errno. */
static int begin_in(fja_tmptrace *t, const char *base, const char *name)
{
    if (snprintf(t->dir, sizeof t->dir, "%s/%sXXXXXX", base, name) >= (int)sizeof t->dir) {
        t->dir[0] = 0;
        errno = ENAMETOOLONG;
        return -1;
    }
    fja_interrupt_defer();
    int rc = mkdtemp(t->dir) ? fja_interrupt_track(t->dir) : -1;
    int err = errno;
    if (rc && *t->dir) rmdir(t->dir);
    fja_interrupt_resume();
    if (rc) t->dir[0] = 0;
    errno = err;
    return rc;
}

int fja_tmptrace_begin(fja_tmptrace *t, const char *trace, const char *name)
{
    *t = (fja_tmptrace){0};
    if (!realpath(trace, t->trace)) return -1; /* the links point to it from elsewhere */
    /* A $TMPDIR that is missing, a file or not writable is no reason to
     * lose a trace that needs a copy (a cut one): /tmp, then /var/tmp. */
    const char *env = getenv("TMPDIR");
    const char *bases[] = {env && *env ? env : NULL, "/tmp", "/var/tmp"};
    size_t len = 0;
    failure[0] = 0;
    for (size_t i = 0; i < sizeof bases / sizeof *bases; i++) {
        if (!bases[i] || (i && bases[0] && !strcmp(bases[i], bases[0]))) continue;
        if (!begin_in(t, bases[i], name)) {
            static bool told; /* once a run: every copy falls back alike */
            if (len && !told)
                fprintf(stderr, "fjtrace-analyze: note: no temporary folder in %s; %s used\n",
                        failure, bases[i]);
            told = true;
            failure[0] = 0;
            return 0;
        }
        int n = snprintf(failure + len, sizeof failure - len, "%s%s%s (%s)", len ? ", " : "",
                         i ? "" : "$TMPDIR=", bases[i], strerror(errno));
        if (n > 0) len += (size_t)n < sizeof failure - len ? (size_t)n : sizeof failure - len - 1;
    }
    return -1;
}

int fja_tmptrace_make(fja_tmptrace *t, const char *trace, const char *prefix, bool with)
{
    if (fja_tmptrace_begin(t, trace, "fjtrace-analyze-streams.")) return -1;
    int streams = link_streams(t, prefix, with);
    if (streams > 0 && fja_tmptrace_link(t, "metadata")) streams = -1;
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
