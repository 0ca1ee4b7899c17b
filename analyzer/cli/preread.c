/* The off-CPU intervals read ahead (preread.h): only the streams of their
 * own channel, through a temporary folder of links to the trace's metadata
 * and to those stream files (and their indexes), so that libbabeltrace2
 * sees a trace of just them. The reading runs in a child process (whose
 * reading forks its own probe and decoding processes, as any reading:
 * pread.h), so that its intervals, collected there, come back as one
 * reply. Several trace folders (one per process) are read in that one
 * reading, each through its own folder of links; each interval comes back
 * with its folder's index as source. */
#include "preread.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interrupt.h"

/* What the child sends back, before its intervals' edges. */
typedef struct {
    int32_t status; /* fja_preread_status */
    uint64_t n, intervals;
    char why[1024];
} reply;

/* The child's reading: the folders of links, and the folder (index) of
 * each trace the reading numbers. */
typedef struct {
    fja_offcpu *pre;
    const fja_tmptrace *links;
    size_t nlinks;
    uint32_t *folder; /* by source: the folder's index (UINT32_MAX: not known) */
    uint32_t nsources;
    /* the index of the one folder read, when only one is: a trace whose
     * folder the reading does not name (--muxer) is that one's */
    uint32_t only;
} collecting;

static void collect_trace(void *ctx, uint32_t source, const char *dir)
{
    collecting *c = ctx;
    uint32_t *f = source < UINT32_MAX ? realloc(c->folder, (source + 1) * sizeof *f) : NULL;
    if (!f) {
        c->pre->oom = 1;
        return;
    }
    c->folder = f;
    while (c->nsources <= source)
        c->folder[c->nsources++] = UINT32_MAX;
    if (!dir) c->folder[source] = c->only;
    for (size_t k = 0; dir && k < c->nlinks; k++)
        if (!strcmp(dir, c->links[k].dir)) c->folder[source] = (uint32_t)k;
}

static int collect_event(void *ctx, const fja_event *ev)
{
    collecting *c = ctx;
    if (ev->source >= c->nsources || c->folder[ev->source] == UINT32_MAX) {
        c->pre->oom = 1; /* not expected: the reader names each folder */
        return 1;
    }
    fja_event in = *ev;
    in.source = c->folder[ev->source];
    return fja_offcpu_collect(c->pre, &in) ? 1 : 0;
}

/* The reading itself (in the child), of the folders of links that have
 * streams (dir not ""). */
static fja_preread_status read_links(const fja_tmptrace *t, size_t n, const fja_reader_sink *like,
                                     fja_offcpu *pre, char *why, size_t whylen)
{
    char **dirs = calloc(n, sizeof *dirs);
    size_t ndirs = 0;
    collecting c = {.pre = pre, .links = t, .nlinks = n, .only = UINT32_MAX};
    for (size_t k = 0; dirs && k < n; k++)
        if (*t[k].dir) {
            dirs[ndirs++] = (char *)t[k].dir;
            c.only = ndirs == 1 ? (uint32_t)k : UINT32_MAX;
        }
    /* the lines for the user name the trace, not the folder of links */
    fja_reader_sink sink = {.event = collect_event,
                            .trace_seen = collect_trace,
                            .ctx = &c,
                            .use_muxer = like->use_muxer,
                            .jobs = like->jobs,
                            .label = n == 1 ? t[0].trace : NULL};
    fja_reader_stats stats;
    reader_status st = READER_NO_MEMORY;
    *why = '\0'; /* the reader's error, if it stops on one */
    if (dirs) st = reader_run(dirs, ndirs, &sink, &stats, why, whylen);
    free(dirs);
    free(c.folder);
    if (st == READER_UNREADABLE || stats.damaged) {
        if (!*why) snprintf(why, whylen, "%s", stats.damage_note);
        return FJA_PREREAD_FAILED;
    }
    /* out of memory, or cut short (a recording killed): the main reading
     * collects what it can, as for a trace recorded in one channel */
    return st == READER_OK && !stats.cut_bytes && !pre->oom ? FJA_PREREAD_OK : FJA_PREREAD_NONE;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Bytes read: fewer than len when the writer ended first. */
static size_t read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, p + got, len - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

static _Noreturn void child_main(int fd, const fja_tmptrace *t, size_t n,
                                 const fja_reader_sink *like)
{
    fja_interrupt_reset();  /* the parent removes its temporaries, the links too */
    fja_interrupt_resume(); /* held back since before the fork */
    fja_offcpu pre;
    fja_offcpu_init(&pre);
    reply r;
    memset(&r, 0, sizeof r); /* padding too: every byte written to the pipe is defined */
    r.status = (int32_t)read_links(t, n, like, &pre, r.why, sizeof r.why);
    r.n = r.status == FJA_PREREAD_OK ? pre.n : 0;
    r.intervals = pre.intervals;
    int rc = write_all(fd, &r, sizeof r) || write_all(fd, pre.edges, r.n * sizeof *pre.edges);
    _exit(rc ? 1 : 0); /* no atexit handler, no stdio buffer of the parent's */
}

/* The child's reply into pre; why says what failed, or how the child
 * ended when it sent no reply. */
static fja_preread_status parent_read(int fd, pid_t pid, fja_offcpu *pre, char *why, size_t n)
{
    reply r;
    fja_preread_status st = FJA_PREREAD_FAILED;
    bool whole = read_all(fd, &r, sizeof r) == sizeof r;
    if (whole && r.status == FJA_PREREAD_OK && r.n) {
        pre->edges = r.n <= SIZE_MAX / sizeof *pre->edges ? malloc(r.n * sizeof *pre->edges) : NULL;
        pre->n = pre->cap = pre->edges ? r.n : 0;
        whole = pre->edges &&
                read_all(fd, pre->edges, r.n * sizeof *pre->edges) == r.n * sizeof *pre->edges;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    fja_interrupt_child(0);
    if (whole) {
        st = (fja_preread_status)r.status;
        pre->intervals = r.intervals;
        snprintf(why, n, "%s", r.why);
    } else if (WIFSIGNALED(status)) {
        snprintf(why, n, "their reading died of signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    } else {
        snprintf(why, n, "their reading ended without an answer");
    }
    if (st != FJA_PREREAD_OK) fja_offcpu_free(pre);
    return st;
}

/* The folders of links of the n traces (t): how many have streams, or
 * -1 when one cannot be made or a selected stream file is no readable
 * regular file (why says which: one trace's then is LEFT_OUT). */
static int links_make(fja_tmptrace *t, char *const *traces, size_t n, char *why, size_t whylen)
{
    int with = 0;
    for (size_t k = 0; k < n; k++) {
        int streams = fja_tmptrace_make(&t[k], traces[k], FJA_PREREAD_PREFIX, true);
        /* a FIFO, a device, a folder, unreadable: its intervals are unknown */
        if (*t[k].left_out) {
            snprintf(why, whylen, "the off-CPU streams %s/%s* cannot be read: %s", t[k].trace,
                     FJA_PREREAD_PREFIX, t[k].left_out);
            return -1;
        }
        if (streams < 0) return -1;
        with += streams > 0;
    }
    return with;
}

/* The reading in a child process, whose reply fills pre (what: why it
 * failed). */
static fja_preread_status read_in_child(const fja_tmptrace *t, size_t n,
                                        const fja_reader_sink *like, fja_offcpu *pre, char *what,
                                        size_t whylen)
{
    int fds[2];
    fja_preread_status st = FJA_PREREAD_NONE;
    if (pipe(fds) != 0) return st;
    fflush(NULL);          /* nothing written twice */
    fja_interrupt_defer(); /* registered before a signal can want it */
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1], t, n, like);
    }
    if (pid > 0) fja_interrupt_child(pid);
    fja_interrupt_resume();
    close(fds[1]);
    if (pid > 0) st = parent_read(fds[0], pid, pre, what, whylen);
    close(fds[0]);
    return st;
}

fja_preread_status fja_offcpu_preread(char *const *traces, size_t n, const fja_reader_sink *like,
                                      fja_offcpu *pre, char *why, size_t whylen)
{
    *why = 0;
    fja_tmptrace *t = calloc(n ? n : 1, sizeof *t);
    if (!t) return FJA_PREREAD_NONE;
    int with = links_make(t, traces, n, why, whylen);
    fja_preread_status st = FJA_PREREAD_NONE;
    char what[1024] = "";
    if (with < 0 && *why)
        st = FJA_PREREAD_LEFT_OUT;
    else if (with > 0) /* else no such channel, or no folder: read twice */
        st = read_in_child(t, n, like, pre, what, sizeof what);
    /* the reader names the file and packet when it knows them; the
     * streams are named in any case */
    if (st == FJA_PREREAD_FAILED && n == 1)
        snprintf(why, whylen, "the off-CPU streams %s/%s* cannot be read: %s", t[0].trace,
                 FJA_PREREAD_PREFIX, *what ? what : "unknown error");
    else if (st == FJA_PREREAD_FAILED)
        snprintf(why, whylen, "the off-CPU streams %s* cannot be read: %s", FJA_PREREAD_PREFIX,
                 *what ? what : "unknown error");
    for (size_t k = 0; k < n; k++)
        fja_tmptrace_remove(&t[k]);
    free(t);
    if (st != FJA_PREREAD_OK) fja_offcpu_free(pre);
    return st;
}
