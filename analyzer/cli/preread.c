/* The off-CPU intervals read ahead (preread.h): only the streams of their
 * own channel, through a temporary folder of links to the trace's metadata
 * and to those stream files (and their indexes), so that libbabeltrace2
 * sees a trace of just them. */
#include "preread.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"

#define CHANNEL_PREFIX "fjtrace_offcpu_"

/* The links and folders made so far, newest last, removed in reverse. */
typedef struct {
    char **paths;
    size_t n, cap;
} made_list;

static void made_undo(made_list *m)
{
    while (m->n > 0) {
        char *p = m->paths[--m->n];
        if (unlink(p) != 0) rmdir(p);
        fja_interrupt_forget(p);
        free(p);
    }
    free(m->paths);
    *m = (made_list){0};
}

/* Makes dst (a link to src when src is set, else a folder) and registers
 * it for removal. -1 when it cannot be made or memory ran out. */
static int made_add(made_list *m, const char *src, const char *dst)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        char **grown = realloc(m->paths, cap * sizeof *grown);
        if (!grown) return -1;
        m->paths = grown;
        m->cap = cap;
    }
    char *copy = strdup(dst);
    if (!copy) return -1;
    fja_interrupt_defer();
    int rc = src ? symlink(src, dst) : mkdir(dst, 0700);
    if (rc == 0 && fja_interrupt_track(copy) == 0) {
        m->paths[m->n++] = copy;
        copy = NULL;
    } else if (rc == 0) {
        if (src)
            unlink(dst);
        else
            rmdir(dst);
        rc = -1;
    }
    fja_interrupt_resume();
    free(copy);
    return rc;
}

static int link_into(made_list *m, const char *from_dir, const char *to_dir, const char *name)
{
    char src[PATH_MAX], dst[PATH_MAX];
    if (snprintf(src, sizeof src, "%s/%s", from_dir, name) >= (int)sizeof src ||
        snprintf(dst, sizeof dst, "%s/%s", to_dir, name) >= (int)sizeof dst)
        return -1;
    return made_add(m, src, dst);
}

/* Links the channel's stream files of trace into tmp (and their indexes
 * into tmp/index). Returns how many streams, or -1. */
static int link_streams(made_list *m, const char *trace, const char *tmp)
{
    DIR *d = opendir(trace);
    if (!d) return -1;
    int streams = 0, rc = 0;
    const struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, CHANNEL_PREFIX, strlen(CHANNEL_PREFIX)) == 0) {
            rc = link_into(m, trace, tmp, e->d_name);
            streams++;
        }
    closedir(d);
    if (rc || !streams) return rc ? -1 : 0;
    char from[PATH_MAX], to[PATH_MAX];
    if (snprintf(from, sizeof from, "%s/index", trace) >= (int)sizeof from ||
        snprintf(to, sizeof to, "%s/index", tmp) >= (int)sizeof to)
        return -1;
    if (!(d = opendir(from))) return streams; /* no index: babeltrace2 reads without */
    rc = made_add(m, NULL, to);
    while (rc == 0 && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, CHANNEL_PREFIX, strlen(CHANNEL_PREFIX)) == 0)
            rc = link_into(m, from, to, e->d_name);
    closedir(d);
    return rc ? -1 : streams;
}

static int collect_event(void *ctx, const fja_event *ev)
{
    return fja_offcpu_collect(ctx, ev) ? 1 : 0;
}

static int read_links(const char *tmp, const char *trace, const fja_reader_sink *like,
                      fja_offcpu *pre)
{
    char err[4096] = "";
    char *dirs[] = {(char *)tmp};
    /* an abort names the trace, not the folder of links gone by then */
    fja_reader_sink sink = {.event = collect_event,
                            .ctx = pre,
                            .use_muxer = like->use_muxer,
                            .jobs = like->jobs,
                            .label = trace};
    fja_reader_stats stats;
    reader_status st = reader_run(dirs, 1, &sink, &stats, err, sizeof err);
    return st == READER_OK && !stats.damaged && !stats.cut_bytes && !pre->oom ? 0 : -1;
}

int fja_offcpu_preread(const char *path, const fja_reader_sink *like, fja_offcpu *pre)
{
    char trace[PATH_MAX]; /* the links point to it from elsewhere */
    if (!realpath(path, trace)) return -1;
    const char *base = getenv("TMPDIR");
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s/fjtrace-analyze-offcpu.XXXXXX",
                 base && *base ? base : "/tmp") >= (int)sizeof tmp)
        return -1;
    fja_interrupt_defer();
    int rc = mkdtemp(tmp) ? fja_interrupt_track(tmp) : -1;
    fja_interrupt_resume();
    if (rc) return -1;
    made_list m = {0};
    int streams = link_streams(&m, trace, tmp);
    if (streams > 0) rc = link_into(&m, trace, tmp, "metadata");
    if (streams > 0 && rc == 0) rc = read_links(tmp, trace, like, pre);
    made_undo(&m);
    rmdir(tmp);
    fja_interrupt_forget(tmp);
    return streams > 0 && rc == 0 ? 0 : -1;
}
