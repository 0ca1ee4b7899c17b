/* The trace reader: decodes CTF traces with libbabeltrace2 in one
 * streaming pass and in timestamp order, and hands each fjtrace event to a
 * callback as an fja_event. By default the streams are decoded by `jobs`
 * processes, one babeltrace2 graph each, and merged by timestamp in the
 * calling thread, which runs the callbacks (pread.h): the order, and so
 * the report, is the same whatever jobs is. use_muxer selects one graph
 * source.ctf.fs -> filter.utils.muxer -> simple sink instead (for
 * comparison). */
#ifndef FJA_READER_H
#define FJA_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fja.h"

/* One load-map event of a recorded process (lttng_ust_statedump:bin_info,
 * lttng_ust_dl:dlopen/dlmopen: an object; their build_id events: its build
 * id; fjtrace:site_name: a site named by its producer, site, function,
 * file, line). Pointers are valid during the call only. */
typedef enum { FJA_MAP_OBJECT, FJA_MAP_BUILD_ID, FJA_MAP_SITE_NAME } fja_map_kind;
typedef struct {
    fja_map_kind kind;
    int64_t pid; /* the vpid context, -1 without it */
    uint64_t baddr, memsz;
    const char *path;
    int is_pic;
    const uint8_t *build_id;
    size_t build_id_len;
    uint64_t site;
    const char *function, *file;
    uint32_t line;
} fja_map_event;

typedef struct {
    /* Called for each load-map event, when set (may be NULL). */
    void (*map)(void *map_ctx, const fja_map_event *ev);
    void *map_ctx;
    /* Called for each fjtrace event; a non-zero return stops the read. */
    int (*event)(void *ctx, const fja_event *ev);
    /* Called for each discarded-events notice (count 0 when unknown) of
     * the trace numbered source (as fja_event.source). */
    void (*discarded)(void *ctx, uint64_t count, uint64_t ts, uint32_t source);
    /* Called for each discarded-events notice of an off-CPU stream (their
     * own channel: those lost are off-CPU records, not task events): count
     * (0 when unknown) between begin_ts and end_ts (ns; 0 when not known),
     * stream names its file. May be NULL. */
    void (*offcpu_lost)(void *ctx, uint64_t count, uint64_t begin_ts, uint64_t end_ts,
                        uint32_t source, const char *stream);
    /* Called for each fjtrace event that fails validation (validate.h),
     * instead of event: ev's kind and time as decoded, why names the file
     * and packet. May be NULL. */
    void (*invalid)(void *ctx, const fja_event *ev, const char *why);
    /* Called when the trace numbered source delivers its first record,
     * before that record: folder is the trace folder it is read from (one
     * of the dirs given to reader_run, the same string), NULL when that is
     * not known (use_muxer, a live session). May be NULL. */
    void (*trace_seen)(void *ctx, uint32_t source, const char *folder);
    void *ctx;
    int progress;  /* print progress on stderr */
    int use_muxer; /* order with filter.utils.muxer instead of our own merge */
    unsigned jobs; /* decoding processes (0: one per online core) */
    /* The trace to name in err and the stats' notes instead of the one
     * folder read (a temporary folder of links to some of its streams,
     * fja_tmptrace), or NULL. After an abort the library cannot be used
     * again: the message is all that later readings can give. */
    const char *label;
} fja_reader_sink;

typedef struct {
    uint64_t fjtrace_events, other_events, traces;
    uint64_t map_events;        /* load-map events (counted in other_events too) */
    uint64_t discarded_unknown; /* notices without a count */
    /* A recording cut short: bytes of stream files that could not be read
     * (salvage.h), and a line for the user naming the first file cut. */
    uint64_t cut_bytes;
    char cut_note[512];
    /* A damaged trace (packets.h, pread.h): some packet could not be
     * decoded safely; a line naming the file and packet. What could be read
     * is still delivered. */
    bool damaged;
    char damage_note[768];
    /* Trace folders that cannot be opened (not even from a salvage copy),
     * left out while the others are read: a line saying how many and why
     * the first did not open ("" when none). */
    char left_out_note[768];
    /* An LTTng index that disagrees with its stream files ("" when none):
     * the trace was read without it, nothing lost. */
    char index_note[600];
    /* A trace whose streams lost their beginnings (a snapshot of
     * overwrite-mode buffers: each CPU's buffer reaches back a different
     * time): it is read from window_start (ns from the clock origin, the
     * latest such beginning) on; window_events of its events came before
     * and were left out, after window_lost were overwritten (0: unknown). */
    uint64_t window_start, window_events, window_lost;
} fja_reader_stats;

typedef enum {
    READER_OK = 0,
    READER_UNREADABLE, /* babeltrace2 could not open or decode the trace */
    READER_STOPPED,    /* the event callback asked to stop */
    READER_NO_MEMORY,
} reader_status;

/* Reads the trace directories (each holding a `metadata` file). err gets
 * babeltrace2's reason on failure. A trace that babeltrace2 cannot open
 * because a stream file ends in a cut packet is read from a salvage copy of
 * its whole packets instead; stats->cut_bytes counts what that leaves out,
 * and what the LTTng index lists beyond the end of a stream file. */
reader_status reader_run(char *const *dirs, size_t ndirs, const fja_reader_sink *sink,
                         fja_reader_stats *stats, char *err, size_t errlen);

/* The facts fjtrace-record wrote of the recording host in trace folder
 * dir (FJA_HOST_FILE, report.h): 0 with f filled (a fact it could not read
 * stays not known), or -1 with every fact not known and why naming the file and
 * what is wrong with it ("" when the folder has no such file: a trace
 * recorded otherwise). A FIFO or a large file is refused, never waited
 * on. */
int reader_host_facts(const char *dir, fja_host_facts *f, char *why, size_t n);

/* Following a live session (src.ctf.lttng-live) while it records. */
typedef struct {
    /* Called after each batch of messages, and with idle = true when the
     * relay has nothing new (the hook should then sleep a little): where a
     * live view refreshes. Non-zero stops the read (READER_STOPPED). */
    int (*tick)(void *ctx, bool idle);
    void *ctx;
    /* The session may not exist yet: wait for it, rather than fail. */
    bool wait_for_session;
} fja_live_hooks;

/* Reads the live session at url (net://HOST[:PORT]/host/HOSTNAME/SESSION)
 * until the session is destroyed (READER_OK), the tick hook stops it, or
 * the relay cannot be read (READER_UNREADABLE, err says why). The library
 * runs in a decoding process (pread.h), never in this one: should it
 * crash or abort, the reading ends READER_UNREADABLE. The hooks are called
 * here, by the merge: after records were delivered, and idle while none
 * arrives. */
reader_status reader_live_run(const char *url, const fja_reader_sink *sink,
                              const fja_live_hooks *hooks, fja_reader_stats *stats, char *err,
                              size_t errlen);

/* A temporary trace folder (under $TMPDIR, else /tmp or /var/tmp) of symbolic links to a trace's
 * metadata and to some of its stream files and their LTTng index files,
 * or of files the caller makes there (a stream cut short, salvage.h):
 * libbabeltrace2 then reads a trace of just those streams. Each entry is
 * registered for removal on Ctrl-C (interrupt.h) while it exists. */
typedef struct {
    char dir[4096];   /* the folder ("" when none) */
    char trace[4096]; /* the trace's real path, which the links point to */
    char **paths;     /* the entries made, newest last */
    size_t n, cap;
    /* the first selected stream file left out, not a readable regular
     * file: "PATH: why" ("" when none) */
    char left_out[4200];
} fja_tmptrace;

/* Makes t: the streams of trace folder `trace` whose file name begins
 * with prefix (with), or all the others (!with), and the metadata, in a
 * folder $TMPDIR/fjtrace-analyze-streams.XXXXXX. Returns how many streams
 * were linked; none (0) or an error (-1) leaves no folder. A selected
 * stream file that is not a readable regular file is not linked, and
 * named in t->left_out. */
int fja_tmptrace_make(fja_tmptrace *t, const char *trace, const char *prefix, bool with);
/* An empty folder $TMPDIR/<name>XXXXXX for some of trace's files: 0, or
 * -1 (no folder). */
int fja_tmptrace_begin(fja_tmptrace *t, const char *trace, const char *name);
/* Where fja_tmptrace_begin tried last and why it failed ("$TMPDIR=X (No
 * such file or directory), /tmp (...)"), "" after a success: a copy that
 * could not be made is a temporary-folder problem, not the trace's. */
const char *fja_tmptrace_failure(void);
void fja_tmptrace_failure_clear(void);
/* Links the trace's file name (such as "metadata" or "index/S.idx") into
 * the folder under the same name. 0 or -1. */
int fja_tmptrace_link(fja_tmptrace *t, const char *name);
/* Makes the folder's file name with make(path, ctx). 0, or -1 when make
 * failed (nothing is left of the file) or memory ran out. */
int fja_tmptrace_file(fja_tmptrace *t, const char *name, int (*make)(const char *path, void *ctx),
                      void *ctx);
/* Removes what was made, newest first, and the folder. */
void fja_tmptrace_remove(fja_tmptrace *t);

#endif
