#include "reader.h"

#include "deliver.h"
#include "find.h"
#include "graph.h"
#include "packets.h"
#include "pread.h"
#include "salvage.h"
#include "validate.h"

#include <babeltrace2/babeltrace.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A line for the user, cut to fit: a long path shortens the note, which
 * is all right (vsnprintf, as gcc cannot prove the paths short). */
static void note_printf(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

/* Every mention of dir in the line s (n bytes) becomes label; a line
 * that grows too long is cut. */
static void note_relabel(char *s, size_t n, const char *dir, const char *label)
{
    size_t dl = strlen(dir), ll = strlen(label);
    char *at = dl ? strstr(s, dir) : NULL;
    while (at) {
        char tail[4096];
        snprintf(tail, sizeof tail, "%s", at + dl);
        note_printf(at, n - (size_t)(at - s), "%s%s", label, tail);
        size_t left = strlen(at);
        at = strstr(at + (ll < left ? ll : left), dir);
    }
}

/* A reading of a folder of links (fja_reader_sink.label): the lines for
 * the user name the trace instead. */
static void notes_relabel(const char *dir, const fja_reader_sink *sink, fja_reader_stats *stats,
                          char *err, size_t errlen)
{
    if (!sink->label) return;
    note_relabel(err, errlen, dir, sink->label);
    note_relabel(stats->damage_note, sizeof stats->damage_note, dir, sink->label);
    note_relabel(stats->cut_note, sizeof stats->cut_note, dir, sink->label);
    note_relabel(stats->index_note, sizeof stats->index_note, dir, sink->label);
    note_relabel(stats->left_out_note, sizeof stats->left_out_note, dir, sink->label);
}

/* One reading: what the sink gets. */
typedef struct {
    deliver_ctx d;
    /* the decoding processes and their merge (pread.h) */
    preader *pr;
} reader_ctx;

/* babeltrace2's error causes, innermost first, as one line. */
void take_error(char *err, size_t errlen, const char *what)
{
    size_t used = (size_t)snprintf(err, errlen, "%s", what);
    const bt_error *e = bt_current_thread_take_error();
    if (!e) return;
    uint64_t n = bt_error_get_cause_count(e);
    for (uint64_t i = 0; i < n && used < errlen; i++) {
        const bt_error_cause *c = bt_error_borrow_cause_by_index(e, i);
        used += (size_t)snprintf(err + used, errlen - used, ": %s", bt_error_cause_get_message(c));
    }
    bt_error_release(e);
}

int plugins_load(plugins *p, char *err, size_t errlen)
{
    *p = (plugins){0};
    if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p->ctf) !=
            BT_PLUGIN_FIND_STATUS_OK ||
        bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &p->utils) !=
            BT_PLUGIN_FIND_STATUS_OK) {
        take_error(err, errlen, "babeltrace2 plugins 'ctf' and 'utils' not found");
        return -1;
    }
    p->fs = bt_plugin_borrow_source_component_class_by_name_const(p->ctf, "fs");
    p->muxer = bt_plugin_borrow_filter_component_class_by_name_const(p->utils, "muxer");
    if (!p->fs || !p->muxer) {
        snprintf(err, errlen, "babeltrace2: source.ctf.fs or filter.utils.muxer missing");
        return -1;
    }
    return 0;
}

/* One source.ctf.fs per trace directory. */
static const bt_component_source *add_source(bt_graph *g, const plugins *pl, const char *dir,
                                             size_t idx, char *err, size_t errlen)
{
    bt_value *params = bt_value_map_create();
    bt_value *inputs = NULL;
    const bt_component_source *src = NULL;
    if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
        bt_value_array_append_string_element(inputs, dir)) {
        snprintf(err, errlen, "out of memory");
    } else {
        char name[32];
        snprintf(name, sizeof name, "src%zu", idx);
        if (bt_graph_add_source_component(g, pl->fs, name, params, BT_LOGGING_LEVEL_NONE, &src)) {
            /* source.ctf.fs indexes every packet when it starts: a stream
             * file cut mid-packet (a recording cut short) fails here. */
            char what[4200];
            snprintf(what, sizeof what,
                     "%s: cannot open this CTF trace: a stream file or the metadata is "
                     "truncated or damaged (a recording cut short?); babeltrace2 says",
                     dir);
            take_error(err, errlen, what);
            src = NULL;
        }
    }
    bt_value_put_ref(params);
    return src;
}

int add_sources(bt_graph *g, const plugins *pl, char *const *dirs, size_t ndirs,
                const bt_component_source **srcs, char *err, size_t errlen)
{
    for (size_t i = 0; i < ndirs; i++)
        if (!(srcs[i] = add_source(g, pl, dirs[i], i, err, errlen))) return -1;
    return 0;
}

const bt_port_output *muxer_add(bt_graph *g, const plugins *pl, const bt_component_source **srcs,
                                size_t ndirs, char *err, size_t errlen)
{
    const bt_component_filter *mux;
    if (bt_graph_add_filter_component(g, pl->muxer, "mux", NULL, BT_LOGGING_LEVEL_NONE, &mux)) {
        take_error(err, errlen, "cannot create the muxer");
        return NULL;
    }
    for (size_t s = 0; s < ndirs; s++)
        for (uint64_t i = 0; i < bt_component_source_get_output_port_count(srcs[s]); i++) {
            /* the muxer always offers one free input port: the last one */
            uint64_t in = bt_component_filter_get_input_port_count(mux) - 1;
            if (bt_graph_connect_ports(
                    g, bt_component_source_borrow_output_port_by_index_const(srcs[s], i),
                    bt_component_filter_borrow_input_port_by_index_const(mux, in), NULL)) {
                take_error(err, errlen, "cannot connect the muxer");
                return NULL;
            }
        }
    return bt_component_filter_borrow_output_port_by_index_const(mux, 0);
}

/* What a probe finds (in memory shared with the child process that opens
 * the traces; the rest of the mapping holds opened[ndirs], then per stream
 * its folder's number, 4 bytes, and its port's name with its NUL). */
typedef struct {
    int32_t status; /* probe_status */
    uint32_t nports;
    uint64_t used;  /* bytes of the streams' entries */
    char err[4096]; /* why the first folder that did not open did not */
    alignas(8) char data[];
} probe_reply;

typedef enum { PROBE_OK, PROBE_NOT_OPENED, PROBE_FAILED, PROBE_DIED } probe_status;

/* Virtual: the pages a probe does not write are never backed. */
#define PROBE_BYTES ((size_t)64 << 20)

/* In the probe's process: opens each folder with source.ctf.fs (which
 * indexes its packets) and lists its streams. */
static void probe_child(probe_reply *rp, char *const *dirs, size_t ndirs)
{
    plugins pl;
    bool *opened = (bool *)rp->data;
    char *entries = rp->data + ndirs;
    size_t room = PROBE_BYTES - sizeof *rp - ndirs;
    rp->status = PROBE_OK;
    if (plugins_load(&pl, rp->err, sizeof rp->err)) {
        rp->status = PROBE_FAILED;
        return;
    }
    for (size_t i = 0; i < ndirs; i++) {
        bt_graph *g = bt_graph_create(0);
        char err[sizeof rp->err];
        const bt_component_source *src = g ? add_source(g, &pl, dirs[i], i, err, sizeof err) : NULL;
        if (!src) {
            if (rp->status == PROBE_OK)
                snprintf(rp->err, sizeof rp->err, "%s", g ? err : "out of memory");
            if (rp->status == PROBE_OK) rp->status = g ? PROBE_NOT_OPENED : PROBE_FAILED;
            bt_current_thread_clear_error();
            continue;
        }
        opened[i] = true;
        for (uint64_t k = 0; k < bt_component_source_get_output_port_count(src); k++) {
            const char *name = bt_port_get_name(bt_port_output_as_port_const(
                bt_component_source_borrow_output_port_by_index_const(src, k)));
            size_t len = strlen(name) + 1;
            uint32_t folder = (uint32_t)i;
            if (room - rp->used < sizeof folder + len) {
                snprintf(rp->err, sizeof rp->err, "%s: too many streams", dirs[i]);
                rp->status = PROBE_FAILED;
                return;
            }
            memcpy(entries + rp->used, &folder, sizeof folder);
            memcpy(entries + rp->used + sizeof folder, name, len);
            rp->used += sizeof folder + len;
            rp->nports++;
        }
    }
}

/* Opens the folders in a child process: libbabeltrace2 may crash or abort
 * on a damaged trace while opening it (PROBE_DIED), which then ends that
 * process, not this one. *out: the reply (probe_free), when not DIED. */
static probe_status probe(char *const *dirs, size_t ndirs, probe_reply **out)
{
    *out = NULL;
    probe_reply *rp = mmap(NULL, PROBE_BYTES, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (rp == MAP_FAILED) return PROBE_FAILED;
    pid_t self = getpid();
    fflush(NULL); /* nothing buffered twice */
    pid_t pid = fork();
    if (pid == 0) {
        /* as a decoding process (pread.c) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != self) _exit(0);
        signal(SIGINT, SIG_IGN);
        probe_child(rp, dirs, ndirs);
        _exit(0); /* nothing of this process's to flush or remove */
    }
    int ws = 0;
    while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (pid < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        munmap(rp, PROBE_BYTES);
        return pid < 0 ? PROBE_FAILED : PROBE_DIED;
    }
    *out = rp;
    return (probe_status)rp->status;
}

static void probe_free(probe_reply *rp)
{
    if (rp) munmap(rp, PROBE_BYTES);
}

/* Opens the folders use[] (probe), from salvage copies for those that do
 * not open. PROBE_OK with *out the streams, else err set (DIED: not).
 * PROBE_NOT_OPENED: unmended[i] says which folders neither open nor mend. */
static probe_status probe_all(char **use, fja_salvage *salv, size_t ndirs, probe_reply **out,
                              bool *unmended, char *err, size_t errlen)
{
    probe_status st = probe(use, ndirs, out);
    if (st != PROBE_OK && *out) snprintf(err, errlen, "%s", (*out)->err);
    if (st == PROBE_FAILED && !*out)
        snprintf(err, errlen, "%s: no process can be started to open the traces", use[0]);
    if (st != PROBE_NOT_OPENED) return st;
    /* Only a source that failed to start is something a salvage copy can
     * mend; each copy must open, or the first error stands. */
    const bool *opened = (const bool *)(*out)->data;
    bool mended = true;
    for (size_t i = 0; i < ndirs; i++) {
        if (opened[i]) continue;
        /* a salvage copy already (packets.h): nothing more to mend */
        unmended[i] = *salv[i].t.dir || salvage_make(use[i], &salv[i], SALVAGE_HEADERS) != 1;
        if (unmended[i])
            salvage_remove(&salv[i]);
        else
            use[i] = salv[i].t.dir;
        mended &= !unmended[i];
    }
    probe_free(*out);
    *out = NULL;
    if (!mended) return PROBE_NOT_OPENED;
    st = probe(use, ndirs, out);
    if (st == PROBE_FAILED)
        snprintf(err, errlen, "%s",
                 *out ? (*out)->err : "no process can be started to open the traces");
    return st;
}

/* The folders that neither open nor mend (unmended[]) left out of the
 * reading when others remain: one damaged folder must not lose the others
 * (a process that ends as an --all-processes session begins may leave its
 * folder's metadata cut short, which babeltrace2 refuses). The note names
 * the first folder left out and why (why: babeltrace2's reason). dirs,
 * use, salv and bad_index keep the folders read, *ndirs their number.
 * Returns false when none would remain. */
static bool leave_out(char **dirs, char **use, fja_salvage *salv, bool *bad_index,
                      const bool *unmended, size_t *ndirs, fja_reader_stats *stats, const char *why)
{
    size_t kept = 0, left = 0;
    for (size_t i = 0; i < *ndirs; i++) {
        if (unmended[i]) {
            left++;
            continue;
        }
        bool copy = use[i] == salv[i].t.dir; /* read from its salvage copy */
        dirs[kept] = dirs[i];
        salv[kept] = salv[i];
        use[kept] = copy ? salv[kept].t.dir : use[i];
        bad_index[kept] = bad_index[i];
        kept++;
    }
    if (!kept) return false;
    for (size_t i = kept; i < *ndirs; i++)
        salv[i] = (fja_salvage){0}; /* moved down or removed: not removed twice */
    note_printf(stats->left_out_note, sizeof stats->left_out_note,
                "%zu trace folder(s) cannot be opened and are left out, the other %zu read: "
                "%s",
                left, kept, why);
    *ndirs = kept;
    return true;
}

/* Counts what the traces' stream files lack (salvage_missing), by their
 * index: not for a trace whose index is wrong (bad_index[i]). */
static void cut_check(char *const *dirs, const bool *bad_index, size_t ndirs,
                      fja_reader_stats *stats)
{
    for (size_t i = 0; i < ndirs; i++) {
        if (bad_index[i]) continue;
        char first[256] = "";
        uint64_t n = salvage_missing(dirs[i], first, sizeof first);
        if (n && !stats->cut_bytes)
            snprintf(stats->cut_note, sizeof stats->cut_note,
                     "%s/%s is cut short (a recording cut short?): its last packets are "
                     "missing or cut",
                     dirs[i], first);
        stats->cut_bytes += n;
    }
}

/* Before decoding: a trace with a packet libbabeltrace2 would abort on, or
 * whose index disagrees with its files, is read from a salvage copy cut
 * before that packet and without the index (packets.h). Returns the
 * number of whole packets of dir (all of them when their layout is not
 * known), or -1 when the copy cannot be made. */
static int64_t precheck(const char *dir, fja_salvage *salv, char **use, bool *bad_index,
                        bool *known, uint64_t *longest, fja_reader_stats *stats, deliver_ctx *d)
{
    fja_packets pk;
    *known = false;
    int unreadable = packets_check(dir, &pk, deliver_late, d);
    if (unreadable || !pk.layout_known) d->late_unknown = true;
    if (!unreadable && pk.longest > *longest) *longest = pk.longest; /* pread.h's extras */
    /* For the tests of the decoding processes (pread.h): hand
     * libbabeltrace2 the trace as is. */
    if (getenv("FJTRACE_ANALYZE_NO_PACKET_CHECK")) return 1;
    if (unreadable) return 0;
    *known = pk.layout_known;
    *bad_index = pk.index_damaged;
    /* a stream cut short that no sound index counts (cut_check): the
     * headers say what is missing, never a trace taken for whole */
    uint64_t cut = pk.index_damaged ? pk.cut_all : pk.cut_unindexed;
    if (cut && !stats->cut_bytes)
        note_printf(stats->cut_note, sizeof stats->cut_note, "%s", pk.cut_note);
    stats->cut_bytes += cut;
    if (!pk.damaged && !pk.index_damaged && !pk.repaired)
        return pk.layout_known ? (int64_t)pk.whole : 1;
    unsigned how = SALVAGE_HEADERS | SALVAGE_ALWAYS | (pk.index_damaged ? SALVAGE_NO_INDEX : 0);
    if (salvage_make(dir, salv, how) != 1) return -1;
    *use = salv->t.dir;
    if (pk.damaged && !stats->damaged)
        note_printf(stats->damage_note, sizeof stats->damage_note, "%s", pk.note);
    stats->damaged |= pk.damaged;
    if (*pk.index_note && !*stats->index_note)
        note_printf(stats->index_note, sizeof stats->index_note, "%s", pk.index_note);
    else if (pk.repaired && !*stats->index_note)
        note_printf(stats->index_note, sizeof stats->index_note, "%s", pk.repair_note);
    else if (pk.index_damaged && !*stats->index_note)
        note_printf(stats->index_note, sizeof stats->index_note,
                    "%s/index disagrees with the stream files (damaged?): read without it", dir);
    return (int64_t)pk.whole;
}

/* Bytes of the stream files of a trace folder (all but the metadata and
 * the index folder), for the progress line. */
static uint64_t stream_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    uint64_t total = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        struct stat st;
        char path[4096];
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!stat(path, &st) && S_ISREG(st.st_mode)) total += (uint64_t)st.st_size;
    }
    if (d) closedir(d);
    return total;
}

typedef struct {
    reader_ctx *r;
    char *const *dirs;
    char **use;
    size_t ndirs;
    const fja_reader_sink *sink;
    fja_reader_stats *stats;
    char *err;
    size_t errlen;
    uint64_t packets; /* whole packets of all streams (0: not known) */
} decode_job;

/* A stream that ended damaged (pread.h): the trace is damaged, the note
 * names the stream file and packet. source.ctf.fs names
 * its ports "TRACE-UUID | STREAM-CLASS-ID | STREAM-ID"; the packet holding
 * the array has begun (the ctf iterator delivers what it decoded before
 * an error, the packet's beginning included). */
static void damaged_note(const decode_job *j, const pread_result *res)
{
    fja_reader_stats *stats = j->stats;
    char file[256], byte[48] = "";
    const char *ids, *dir = j->dirs[res->damaged_source];
    uint64_t off, packet = res->damaged_packets ? res->damaged_packets : 1;
    if (stats->damaged) return; /* the first damage is the one named */
    stats->damaged = true;
    if (packets_of_port(j->use[res->damaged_source], res->damaged_port_name, packet, file,
                        sizeof file, &off, &ids)) {
        note_printf(stats->damage_note, sizeof stats->damage_note, "%s: stream %s: %s", dir,
                    ids ? ids + 2 : "?", res->damaged);
        return;
    }
    if (off != UINT64_MAX) snprintf(byte, sizeof byte, " (byte %" PRIu64 ")", off);
    note_printf(stats->damage_note, sizeof stats->damage_note,
                "%s/%s: packet %" PRIu64 "%s%s cannot be decoded: %s", dir, file, packet, byte,
                res->damaged_died ? " or the next" : "", res->damaged);
}

/* After libbabeltrace2 aborted: what it was reading (port: NULL when not
 * known). */
static void aborted_message(const decode_job *j, const pread_result *port)
{
    if (port && port->port_name) {
        /* source.ctf.fs names its ports "TRACE-UUID | CLASS | STREAM" */
        const char *ids = strchr(port->port_name, '|');
        snprintf(j->err, j->errlen,
                 "%s: libbabeltrace2 aborted or crashed while decoding its stream %s (in or after "
                 "its packet "
                 "%" PRIu64 "): the trace is damaged in a way the library does not check",
                 j->sink->label ? j->sink->label : j->dirs[port->source],
                 ids ? ids + 2 : port->port_name, port->packets + 1);
    } else {
        snprintf(
            j->err, j->errlen,
            "%s%s: libbabeltrace2 aborted or crashed while opening or decoding it: the trace is "
            "damaged in a way the library does not check",
            j->sink->label ? j->sink->label : j->dirs[0],
            j->ndirs > 1 ? " (or another of the traces)" : "");
    }
    note_printf(j->stats->damage_note, sizeof j->stats->damage_note, "%s", j->err);
    j->stats->damaged = true;
}

/* The parallel reading, once its graphs are built: the status, and
 * whether some thread aborted (then its port is in res). */
static reader_status parallel_read(decode_job *j, pread_result *res)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < j->ndirs; i++)
        bytes += stream_bytes(j->use[i]);
    pread_set_progress(j->r->pr, j->sink->progress, bytes, j->packets);
    pread_run(j->r->pr, &j->r->d, res);
    if (res->damaged && j->sink->use_muxer) {
        /* the muxer cannot go on without a stream */
        note_printf(j->err, j->errlen, "%s%s: cannot decode the trace: %s", j->dirs[0],
                    j->ndirs > 1 ? " (or another of the traces)" : "", res->damaged);
        return READER_UNREADABLE;
    }
    if (res->damaged) damaged_note(j, res);
    switch (res->status) {
    case PORT_END:
        return j->r->d.stopped ? READER_STOPPED : READER_OK;
    case PORT_NO_MEMORY:
        return READER_NO_MEMORY;
    case PORT_ERROR: {
        char what[4200];
        note_printf(what, sizeof what, "%s%s: %s", j->dirs[res->source],
                    j->sink->use_muxer && j->ndirs > 1 ? " (or another of the traces)" : "",
                    res->error);
        note_printf(j->err, j->errlen, "%s", what);
        return READER_UNREADABLE;
    }
    default: /* a decoding process died outside a stream, or --muxer's */
        return READER_UNREADABLE;
    }
}

/* Checks and salvages the folders (precheck); the number of whole packets
 * (*known: of every folder, not a guess), or -1 with err set. */
static int64_t prepare(char *const *dirs, size_t ndirs, char **use, fja_salvage *salv,
                       bool *bad_index, bool *all_known, uint64_t *longest, fja_reader_stats *stats,
                       deliver_ctx *d, char *err, size_t errlen)
{
    int64_t packets = 0;
    *all_known = true;
    *longest = 0;
    for (size_t i = 0; i < ndirs; i++) {
        if (find_check_metadata(dirs[i], err, errlen)) return -1;
        use[i] = dirs[i];
        bool known;
        int64_t n = precheck(dirs[i], &salv[i], &use[i], &bad_index[i], &known, longest, stats, d);
        *all_known &= known;
        if (n < 0) {
            snprintf(err, errlen, "%s: %s (and no copy without it can be made)", dirs[i],
                     stats->damage_note);
            return -1;
        }
        packets += n;
        validate_bounds_add(use[i]); /* out of memory: those times not checked */
    }
    if (!packets)
        snprintf(err, errlen,
                 "%s%s: no stream file holds a whole packet: every stream is cut or empty (was "
                 "the disk full while recording?)",
                 dirs[0], ndirs > 1 ? " (and the other traces)" : "");
    return packets ? packets : -1;
}

/* The streams the probe found, set up for the decoding processes. */
static int streams_setup(reader_ctx *r, const probe_reply *rp, char **use, size_t ndirs, bool muxer)
{
    char **names = calloc(rp->nports ? rp->nports : 1, sizeof *names);
    uint32_t *sources = calloc(rp->nports ? rp->nports : 1, sizeof *sources);
    const char *at = rp->data + ndirs;
    for (uint32_t i = 0; names && sources && i < rp->nports; i++) {
        memcpy(&sources[i], at, sizeof sources[i]);
        names[i] = (char *)at + sizeof sources[i]; /* in the reply, valid until freed */
        at += sizeof sources[i] + strlen(names[i]) + 1;
    }
    int rc =
        names && sources ? pread_setup(r->pr, use, ndirs, names, sources, rp->nports, muxer) : -1;
    free(names);
    free(sources);
    return rc;
}

reader_status reader_run(char *const *dirs, size_t ndirs, const fja_reader_sink *sink,
                         fja_reader_stats *stats, char *err, size_t errlen)
{
    *stats = (fja_reader_stats){0};
    const size_t ndirs_given = ndirs; /* ndirs: those read, less any left out */
    reader_ctx *r = calloc(1, sizeof *r);
    if (!r) return READER_NO_MEMORY;
    deliver_init(&r->d, sink, stats);
    reader_status st = READER_UNREADABLE;
    decode_job job = {.r = r,
                      .dirs = dirs,
                      .ndirs = ndirs,
                      .sink = sink,
                      .stats = stats,
                      .err = err,
                      .errlen = errlen};
    fja_tmptrace_failure_clear();
    validate_bounds_clear();
    char **use = calloc(ndirs ? ndirs : 1, sizeof *use); /* a trace or its salvage copy */
    fja_salvage *salv = calloc(ndirs ? ndirs : 1, sizeof *salv);
    bool *bad_index = calloc(ndirs ? ndirs : 1, sizeof *bad_index);
    bool *unmended = calloc(ndirs ? ndirs : 1, sizeof *unmended);
    char **read_dirs = calloc(ndirs ? ndirs : 1, sizeof *read_dirs); /* less those left out */
    probe_reply *rp = NULL;
    if (!use || !salv || !bad_index || !unmended || !read_dirs ||
        !(r->pr = pread_create(sink->use_muxer ? 1 : sink->jobs))) {
        st = READER_NO_MEMORY;
        goto out;
    }
    bool known;
    uint64_t longest; /* bits of the largest packet */
    int64_t packets =
        prepare(dirs, ndirs, use, salv, bad_index, &known, &longest, stats, &r->d, err, errlen);
    if (packets < 0) goto out;
    job.packets = known ? (uint64_t)packets : 0;
    job.use = use;
    /* This process never calls libbabeltrace2 on the traces: the probe and
     * the decoding processes do, and die of what it crashes on. */
    memcpy(read_dirs, dirs, ndirs * sizeof *dirs);
    probe_status ps = probe_all(use, salv, ndirs, &rp, unmended, err, errlen);
    if (ps == PROBE_NOT_OPENED &&
        leave_out(read_dirs, use, salv, bad_index, unmended, &ndirs, stats, err)) {
        *err = '\0';
        memset(unmended, 0, ndirs * sizeof *unmended);
        job.dirs = read_dirs;
        job.ndirs = ndirs;
        ps = probe_all(use, salv, ndirs, &rp, unmended, err, errlen);
    }
    if (ps == PROBE_DIED) {
        aborted_message(&job, NULL);
        goto out;
    }
    if (ps != PROBE_OK) goto out;
    cut_check(read_dirs, bad_index, ndirs, stats);
    if (streams_setup(r, rp, use, ndirs, sink->use_muxer)) {
        st = READER_NO_MEMORY;
        goto out;
    }
    pread_set_packet_bits(r->pr, longest);
    if (!sink->use_muxer) { /* the merge's trace keys are the folders read */
        r->d.folders = read_dirs;
        r->d.nfolders = ndirs;
    }
    pread_result res;
    st = parallel_read(&job, &res);
    /* The library aborted in a decoding process, not here: this process's
     * state is whole and released as after any reading. The muxer's
     * process reads every stream: which one it died on is not known. */
    if (res.aborted)
        aborted_message(&job, res.status == PORT_ABORTED && !sink->use_muxer ? &res : NULL);
out:
    probe_free(rp);
    if (st == READER_UNREADABLE && *fja_tmptrace_failure()) {
        /* the copy that would have read it could not be made: say so, not
         * only what libbabeltrace2 found wrong with the trace itself */
        char was[1024];
        snprintf(was, sizeof was, "%s", err);
        note_printf(err, errlen,
                    "%s needs a temporary copy to be read, and no temporary folder can be made "
                    "in %s (set TMPDIR to a writable folder); without one: %s",
                    dirs[0], fja_tmptrace_failure(), was);
    }
    if (ndirs_given == 1) notes_relabel(dirs[0], sink, stats, err, errlen);
    for (size_t i = 0; salv && i < ndirs; i++)
        salvage_remove(&salv[i]);
    free(salv);
    free(use);
    free(bad_index);
    free(unmended);
    free(read_dirs);
    validate_bounds_clear();
    pread_free(r->pr);
    deliver_free(&r->d);
    free(r);
    return st;
}

/* ------------------------------------------------------------ live */

const bt_port_output *live_source_add(bt_graph *g, const plugins *pl, const char *url,
                                      bool wait_for_session, char *err, size_t errlen)
{
    const bt_component_class_source *cls =
        bt_plugin_borrow_source_component_class_by_name_const(pl->ctf, "lttng-live");
    if (!cls) {
        snprintf(err, errlen, "babeltrace2: src.ctf.lttng-live missing");
        return NULL;
    }
    bt_value *params = bt_value_map_create(), *inputs = NULL;
    const bt_component_source *src = NULL;
    const bt_port_output *out = NULL;
    if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
        bt_value_array_append_string_element(inputs, url) ||
        bt_value_map_insert_string_entry(params, "session-not-found-action",
                                         wait_for_session ? "continue" : "fail")) {
        snprintf(err, errlen, "out of memory");
    } else if (bt_graph_add_source_component(g, cls, "live", params, BT_LOGGING_LEVEL_NONE, &src) ||
               !(out = bt_component_source_borrow_output_port_by_index_const(src, 0))) {
        char what[600];
        snprintf(what, sizeof what, "%s: cannot follow this live session", url);
        take_error(err, errlen, what);
    }
    bt_value_put_ref(params);
    return out;
}

/* src.ctf.lttng-live in a decoding process (pread.h): the live source
 * merges its streams itself and says AGAIN while the relay has nothing
 * new; this process never calls libbabeltrace2, so the library crashing
 * or aborting on what the relay sends ends that process only. */
reader_status reader_live_run(const char *url, const fja_reader_sink *sink,
                              const fja_live_hooks *hooks, fja_reader_stats *stats, char *err,
                              size_t errlen)
{
    *stats = (fja_reader_stats){0};
    reader_ctx *r = calloc(1, sizeof *r);
    if (!r) return READER_NO_MEMORY;
    deliver_init(&r->d, sink, stats);
    r->d.late_unknown = true; /* a view attached mid-run: no packet walk; the hooks show progress */
    reader_status st = READER_NO_MEMORY;
    pread_result res;
    if (!(r->pr = pread_create(1)) ||
        pread_setup_live(r->pr, url, hooks->wait_for_session, hooks->tick, hooks->ctx))
        goto out;
    pread_run(r->pr, &r->d, &res);
    if (res.damaged) { /* its one stream: the relay went away, or sent what cannot be decoded */
        st = READER_UNREADABLE;
        note_printf(err, errlen, "%s", res.damaged);
        goto out;
    }
    switch (res.status) {
    case PORT_END:
        st = res.stopped || r->d.stopped ? READER_STOPPED : READER_OK;
        break;
    case PORT_NO_MEMORY:
        break;
    case PORT_ERROR:
        st = READER_UNREADABLE;
        note_printf(err, errlen, "%s", res.error);
        break;
    default: /* its decoding process died */
        st = READER_UNREADABLE;
        note_printf(err, errlen,
                    "%s: the live session cannot be read: libbabeltrace2 aborted or crashed "
                    "while decoding it (its decoding process died)",
                    url);
    }
out:
    pread_free(r->pr);
    deliver_free(&r->d);
    free(r);
    return st;
}
