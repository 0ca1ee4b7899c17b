/* The off-CPU intervals read ahead (preread.h): only the streams of their
 * own channel, through a temporary folder of links to the trace's metadata
 * and to those stream files (and their indexes), so that libbabeltrace2
 * sees a trace of just them. The reading runs in a child process (whose
 * reading forks its own probe and decoding processes, as any reading:
 * pread.h), so that its intervals, collected there, come back as one
 * reply. */
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

static int collect_event(void *ctx, const fja_event *ev)
{
    return fja_offcpu_collect(ctx, ev) ? 1 : 0;
}

/* The reading itself (in the child). */
static fja_preread_status read_links(const fja_tmptrace *t, const fja_reader_sink *like,
                                     fja_offcpu *pre, char *why, size_t n)
{
    char err[4096] = "";
    char *dirs[] = {(char *)t->dir};
    /* the lines for the user name the trace, not the folder of links */
    fja_reader_sink sink = {.event = collect_event,
                            .ctx = pre,
                            .use_muxer = like->use_muxer,
                            .jobs = like->jobs,
                            .label = t->trace};
    fja_reader_stats stats;
    reader_status st = reader_run(dirs, 1, &sink, &stats, err, sizeof err);
    if (st == READER_UNREADABLE || stats.damaged) {
        snprintf(why, n, "%s", *err ? err : stats.damage_note);
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

static _Noreturn void child_main(int fd, const fja_tmptrace *t, const fja_reader_sink *like)
{
    fja_interrupt_reset();  /* the parent removes its temporaries, the links too */
    fja_interrupt_resume(); /* held back since before the fork */
    fja_offcpu pre;
    fja_offcpu_init(&pre);
    reply r;
    memset(&r, 0, sizeof r); /* padding too: every byte written to the pipe is defined */
    r.status = (int32_t)read_links(t, like, &pre, r.why, sizeof r.why);
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

fja_preread_status fja_offcpu_preread(const char *path, const fja_reader_sink *like,
                                      fja_offcpu *pre, char *why, size_t n)
{
    *why = 0;
    fja_tmptrace t;
    int streams = fja_tmptrace_make(&t, path, FJA_PREREAD_PREFIX, true);
    if (*t.left_out) { /* a FIFO, a device, a folder, unreadable: its intervals are unknown */
        snprintf(why, n, "the off-CPU streams %s/%s* cannot be read: %s", t.trace,
                 FJA_PREREAD_PREFIX, t.left_out);
        fja_tmptrace_remove(&t);
        return FJA_PREREAD_LEFT_OUT;
    }
    if (streams <= 0) return FJA_PREREAD_NONE; /* no such channel, or no folder: read twice */
    int fds[2];
    char what[1024] = "";
    fja_preread_status st = FJA_PREREAD_NONE;
    if (pipe(fds) == 0) {
        fflush(NULL);          /* nothing written twice */
        fja_interrupt_defer(); /* registered before a signal can want it */
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            child_main(fds[1], &t, like);
        }
        if (pid > 0) fja_interrupt_child(pid);
        fja_interrupt_resume();
        close(fds[1]);
        if (pid > 0) st = parent_read(fds[0], pid, pre, what, sizeof what);
        close(fds[0]);
    }
    /* the reader names the file and packet when it knows them; the
     * streams are named in any case */
    if (st == FJA_PREREAD_FAILED)
        snprintf(why, n, "the off-CPU streams %s/%s* cannot be read: %s", t.trace,
                 FJA_PREREAD_PREFIX, *what ? what : "unknown error");
    fja_tmptrace_remove(&t);
    return st;
}
