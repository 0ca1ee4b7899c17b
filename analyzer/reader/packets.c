#include "packets.h"

#include "regular.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TSDL_MAGIC 0x75d11d57u
#define META_HEADER 37 /* metadata packet header: magic ... version */
#define PKT_MAGIC 0xc1fc1fc1u
#define PKT_HEADER PACKETS_HEADER
#define IDX_MAGIC 0xc1f1dcc1u

/* The LTTng-UST packet header and context, as its metadata declares them
 * (whitespace collapsed); offsets below follow from it (all 8-aligned). */
static const char *const LAYOUT[] = {
    "byte_order = le;",
    "packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; uint64_t "
    "stream_instance_id; };",
    "struct packet_context { uint64_clock_monotonic_t timestamp_begin; "
    "uint64_clock_monotonic_t timestamp_end; uint64_t content_size; uint64_t packet_size; ",
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;",
};
enum {
    OFF_TS_BEGIN = 32,
    OFF_TS_END = 40,
    OFF_CONTENT = 48,
    OFF_SIZE = 56,
    OFF_SEQ = 64,
    OFF_DISCARDED = 72
};

typedef struct {
    bool known;        /* the layout above */
    uint64_t ts_limit; /* timestamps at or above it overflow int64 ns */
} layout;

/* A line for the user, cut to fit: a long path shortens the note, which
 * is all right (vsnprintf, as gcc cannot prove the paths short). */
static void note_printf(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t be64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

/* The metadata's text with every run of blanks made one space: packetized
 * metadata is the content of each packet after its header. NULL if it
 * cannot be read. */
static char *metadata_text(const char *dir)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/metadata", dir);
    FILE *f = fja_regular_open(p, NULL, 0);
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *raw = malloc(cap);
    for (size_t n; raw && (n = fread(raw + len, 1, cap - len, f)) > 0;) {
        len += n;
        char *r = len == cap ? realloc(raw, cap *= 2) : raw;
        if (!r) free(raw);
        raw = r;
    }
    fclose(f);
    if (!raw) return NULL;
    char *text = malloc(len + 1);
    size_t t = 0;
    bool packetized = len >= 4 && le32((unsigned char *)raw) == TSDL_MAGIC;
    for (size_t off = 0; text && off < len;) {
        size_t from = off, to = len;
        if (packetized) {
            const unsigned char *h = (unsigned char *)raw + off;
            uint32_t content = off + META_HEADER <= len ? le32(h + 24) / 8 : 0;
            uint32_t size = off + META_HEADER <= len ? le32(h + 28) / 8 : 0;
            if (le32(h) != TSDL_MAGIC || content < META_HEADER || size < content) break;
            from = off + META_HEADER;
            to = off + content < len ? off + content : len;
            off += size;
        } else {
            off = len;
        }
        for (size_t i = from; i < to; i++) {
            bool blank = raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r';
            char c = raw[i];
            if (blank) c = ' ';
            if (c != ' ' || (t && text[t - 1] != ' ')) text[t++] = c;
        }
    }
    if (text) text[t] = '\0';
    free(raw);
    return text;
}

/* Reads "key = N;" after `from` in s; -1 when absent. */
static int number_after(const char *s, const char *key, long double *v)
{
    const char *k = s ? strstr(s, key) : NULL;
    if (!k) return -1;
    *v = strtold(k + strlen(key), NULL);
    return 0;
}

/* The clock of the packet timestamps: ns = (offset_s * freq + offset +
 * cycles) * 1e9 / freq must stay below 2^63. */
static uint64_t ts_limit(const char *text)
{
    const char *clock = strstr(text, "clock { name = \"monotonic\";");
    const char *end = clock ? strstr(clock, "};") : NULL;
    long double freq = 1e9L, offset_s = 0, offset = 0;
    if (!clock || !end) return UINT64_C(1) << 62; /* half the range: no clock read */
    char *c = strndup(clock, (size_t)(end - clock));
    if (c) {
        number_after(c, " freq = ", &freq);
        number_after(c, " offset_s = ", &offset_s);
        number_after(c, " offset = ", &offset);
        free(c);
    }
    if (!(freq >= 1 && freq <= 1e18L)) return 0;        /* nothing can be trusted */
    long double max_ns = 9223372036854775807.0L - 1e9L; /* a second of slack */
    long double cycles = max_ns * freq / 1e9L - offset_s * freq - offset;
    if (!(cycles > 0)) return 0;
    return cycles >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)cycles;
}

static void layout_read(const char *dir, layout *l)
{
    *l = (layout){0};
    char *text = metadata_text(dir);
    if (!text) return;
    l->known = true;
    for (size_t i = 0; i < sizeof LAYOUT / sizeof *LAYOUT; i++)
        l->known = l->known && strstr(text, LAYOUT[i]);
    l->ts_limit = ts_limit(text);
    free(text);
}

/* One packet's header: NULL when libbabeltrace2 can decode it, else what
 * is wrong (written into why). */
/* The stream so far, for the checks that compare a packet with the one
 * before it. */
typedef struct {
    uint64_t discarded; /* events_discarded of the last packet (a running total) */
    uint64_t te;        /* its timestamp_end; 0 before the first packet */
} prev_packet;

/* events_discarded is a running total: it never falls, and no more events
 * can have been lost since the last packet than clock cycles went by (plus
 * a second's slack): LTTng cannot lose more than one event a nanosecond. A
 * flipped high bit there made the analyzer take every event for lost. */
static bool discarded_plausible(const unsigned char *h, const prev_packet *prev)
{
    uint64_t d = le64(h + OFF_DISCARDED), te = le64(h + OFF_TS_END);
    uint64_t since = prev->te ? prev->te : le64(h + OFF_TS_BEGIN);
    uint64_t cycles = te > since ? te - since : 0;
    return d >= prev->discarded && d - prev->discarded <= cycles + UINT64_C(1000000000);
}

static const char *packet_fault(const layout *l, const unsigned char *h, uint64_t off,
                                uint64_t file_size, const prev_packet *prev, char *why, size_t n)
{
    uint64_t content = le64(h + OFF_CONTENT), size = le64(h + OFF_SIZE);
    uint64_t tb = le64(h + OFF_TS_BEGIN), te = le64(h + OFF_TS_END);
    if (le32(h) != PKT_MAGIC)
        snprintf(why, n, "bad magic number %#" PRIx32, le32(h));
    else if (size >= UINT64_C(1) << 63 || content >= UINT64_C(1) << 63)
        snprintf(why, n, "packet_size %#" PRIx64 " / content_size %#" PRIx64 " bits (2^63 or more)",
                 size, content);
    else if (size % 8 || size < 8 * PKT_HEADER || content > size || content < 8 * PKT_HEADER)
        snprintf(why, n, "packet_size %" PRIu64 " / content_size %" PRIu64 " bits (impossible)",
                 size, content);
    else if (size / 8 > file_size - off)
        snprintf(why, n, "packet_size %" PRIu64 " bits goes past the end of the file", size);
    else if (tb > te)
        snprintf(why, n, "timestamp_begin %#" PRIx64 " after timestamp_end %#" PRIx64, tb, te);
    else if (te >= l->ts_limit)
        snprintf(why, n, "timestamp_end %#" PRIx64 " overflows the clock", te);
    else if (!discarded_plausible(h, prev))
        snprintf(why, n, "events_discarded %" PRIu64 " after %" PRIu64 " (impossible)",
                 le64(h + OFF_DISCARDED), prev->discarded);
    else
        return NULL;
    return why;
}

typedef enum {
    WALK_WHOLE,   /* every packet whole (or repaired) */
    WALK_CUT,     /* the last packet runs past the end of the file */
    WALK_DAMAGED, /* a packet libbabeltrace2 cannot decode safely */
} walk_end;

/* The entries of index/NAME.idx (lttng-tools' ctf-index.h, big-endian):
 * offset, packet_size, content_size, timestamp_begin, timestamp_end. */
typedef struct {
    uint64_t off, size, content, tb, te, discarded;
} idx_entry;

typedef struct {
    uint64_t whole, count; /* bytes and number of the packets before the end */
    uint64_t repaired;     /* headers rebuilt from the index */
    uint64_t first_repair; /* number of the first (0-based) */
    uint64_t longest;      /* bits of the largest packet before the end */
    char why[200];         /* what is wrong with the damaged header */
    char repair_why[200];  /* and with the first rebuilt one */
    packets_fix *fix;      /* the rebuilt headers, when wanted */
    size_t nfix, maxfix;
} walk_state;

static size_t index_load(const char *dir, const char *name, idx_entry **out)
{
    char p[PATH_MAX + 300];
    snprintf(p, sizeof p, "%s/index/%s.idx", dir, name);
    *out = NULL;
    FILE *f = fja_regular_open(p, NULL, 0);
    if (!f) return 0;
    unsigned char h[16], e[256];
    size_t len = fread(h, 1, 16, f) == 16 && be64(h) >> 32 == IDX_MAGIC
                     ? (size_t)(be64(h + 8) & 0xffffffffu)
                     : 0;
    size_t n = 0, cap = 0;
    while (len >= 40 && len <= sizeof e && fread(e, 1, len, f) == len) {
        if (n == cap) {
            idx_entry *x = realloc(*out, (cap = cap ? cap * 2 : 64) * sizeof *x);
            if (!x) break;
            *out = x;
        }
        (*out)[n++] = (idx_entry){be64(e),      be64(e + 8),  be64(e + 16),
                                  be64(e + 24), be64(e + 32), be64(e + 40)};
    }
    fclose(f);
    return n;
}

static void put_le64(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        b[i] = (unsigned char)v;
}

/* A damaged header whose sizes and timestamps the index knows (an entry
 * at the same offset) is rebuilt from it, one whose content_size is all
 * ones gets its packet_size and one whose packet_size is all ones its
 * content_size; 1 when the rebuilt one is sound (written to h). */
static int repair(const layout *l, unsigned char *h, uint64_t off, uint64_t file_size,
                  const prev_packet *prev, const idx_entry *ix, size_t nix, bool size_sound)
{
    char why[200];
    /* Only the discard counter wrong (LTTng's own quirk, or one damaged
     * field) in a header whose size leads to a packet (size_sound): the
     * counter alone is taken as unchanged, sizes and times kept. The index
     * is not asked: a stale one (a packet dropped or
     * swapped since it was written) would give another packet's sizes, and
     * libbabeltrace2 then stops decoding the stream there. */
    unsigned char d[PKT_HEADER];
    memcpy(d, h, sizeof d);
    put_le64(d + OFF_DISCARDED, prev->discarded);
    /* ... unless the index's entry is this very packet's (same sizes and
     * times): then its count, when it is plausible */
    for (size_t i = 0; i < nix; i++)
        if (ix[i].off == off && ix[i].size == le64(h + OFF_SIZE) &&
            ix[i].content == le64(h + OFF_CONTENT) && ix[i].tb == le64(h + OFF_TS_BEGIN) &&
            ix[i].te == le64(h + OFF_TS_END)) {
            put_le64(d + OFF_DISCARDED, ix[i].discarded);
            if (!discarded_plausible(d, prev)) put_le64(d + OFF_DISCARDED, prev->discarded);
        }
    if (size_sound && !discarded_plausible(h, prev) &&
        !packet_fault(l, d, off, file_size, prev, why, sizeof why)) {
        memcpy(h, d, sizeof d);
        return 1;
    }
    for (size_t i = 0; i < nix; i++) {
        if (ix[i].off != off) continue;
        /* An entry that starts before the packet before it ended describes
         * another packet: the stream lost or swapped packets since it was
         * indexed (its content_size would cut this one's events wrong). */
        if (ix[i].tb < prev->te) break;
        unsigned char r[PKT_HEADER];
        memcpy(r, h, sizeof r);
        put_le64(r + OFF_SIZE, ix[i].size);
        put_le64(r + OFF_CONTENT, ix[i].content);
        put_le64(r + OFF_TS_BEGIN, ix[i].tb);
        put_le64(r + OFF_TS_END, ix[i].te);
        put_le64(r + OFF_DISCARDED, ix[i].discarded);
        /* LTTng 2.13 may write 0 there in a stream's trailing packet, in
         * the index too (lttng-tools fixed it later: "the trailing packet
         * in snapshots contains the appropriate events discarded"); taken
         * as unchanged, as without the index below. */
        if (!discarded_plausible(r, prev)) put_le64(r + OFF_DISCARDED, prev->discarded);
        if (packet_fault(l, r, off, file_size, prev, why, sizeof why)) return 0;
        memcpy(h, r, sizeof r);
        return 1;
    }
    /* Without the index: a content_size of all ones is what babeltrace2
     * takes for "not set", the whole packet (CTF's default), and a
     * packet_size of all ones likewise, the content alone (the next packet
     * right after it: read whole when the packet was full, else the next
     * header is not a packet's, for babeltrace2 too); an impossible
     * events_discarded is taken as unchanged (a loss it may have counted
     * is then not seen). Said so. */
    unsigned char r[PKT_HEADER];
    memcpy(r, h, sizeof r);
    if (le64(h + OFF_CONTENT) == UINT64_MAX)
        put_le64(r + OFF_CONTENT, le64(h + OFF_SIZE));
    else if (le64(h + OFF_SIZE) == UINT64_MAX)
        put_le64(r + OFF_SIZE, le64(h + OFF_CONTENT));
    if (!discarded_plausible(h, prev)) put_le64(r + OFF_DISCARDED, prev->discarded);
    if (!memcmp(r, h, sizeof r) || packet_fault(l, r, off, file_size, prev, why, sizeof why))
        return 0;
    memcpy(h, r, sizeof r);
    return 1;
}

/* Whether a packet starts at off of stream file f (of size bytes), or the
 * file ends there. */
static bool packet_at(FILE *f, uint64_t off, uint64_t size)
{
    unsigned char m[4];
    if (off == size) return true;
    return off < size && size - off >= 4 && fseeko(f, (off_t)off, SEEK_SET) == 0 &&
           fread(m, 1, sizeof m, f) == sizeof m && le32(m) == PKT_MAGIC;
}

/* A packet_size that looks sound but leads nowhere: the index entry at
 * the same offset says another size, after which a packet starts (or the
 * file ends), and none starts after the header's. The header is then
 * damaged (a flipped bit in its size), and repair takes the index's. */
static const char *size_fault(FILE *f, const unsigned char *h, uint64_t off, uint64_t size,
                              const idx_entry *ix, size_t nix, char *why, size_t n)
{
    uint64_t bits = le64(h + OFF_SIZE);
    for (size_t i = 0; i < nix; i++) {
        if (ix[i].off != off) continue;
        if (ix[i].size == bits || ix[i].size % 8 || ix[i].size / 8 > size - off) return NULL;
        if (packet_at(f, off + bits / 8, size) || !packet_at(f, off + ix[i].size / 8, size))
            return NULL;
        snprintf(why, n,
                 "packet_size %" PRIu64 " bits leads to no packet (the index says %" PRIu64 ")",
                 bits, ix[i].size);
        return why;
    }
    return NULL;
}

/* Walks the packets of one stream file from their headers: *whole gets
 * the bytes of the packets before the first damaged or cut one, *count
 * their number; why says what is wrong with the first damaged one. A
 * header the index can mend (repair) counts as whole: fix gets it (when
 * not NULL; *nfix of them, room for maxfix), *repaired their number. */
static walk_end walk(const layout *l, const char *dir, const char *name, walk_state *w)
{
    char path[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fja_regular_open(path, NULL, 0);
    struct stat st;
    if (!f || fstat(fileno(f), &st)) {
        if (f) fclose(f);
        return WALK_WHOLE; /* gone: the index check and salvage_missing tell */
    }
    idx_entry *ix;
    size_t nix = index_load(dir, name, &ix);
    uint64_t size = (uint64_t)st.st_size;
    walk_end end = WALK_WHOLE;
    unsigned char h[PKT_HEADER];
    prev_packet prev = {0};
    while (w->whole < size && end == WALK_WHOLE) {
        /* a packet cut short holds no more than the rest of the file */
        uint64_t rest = (size - w->whole) * 8;
        if (fseeko(f, (off_t)w->whole, SEEK_SET) || fread(h, 1, sizeof h, f) != sizeof h) {
            end = WALK_CUT; /* not even a whole header */
            break;
        }
        char why[200];
        /* size_sound: the header's size leads to a packet (or the end),
         * or the index knows no other (size_fault) */
        char swhy[200];
        bool size_sound = !size_fault(f, h, w->whole, size, ix, nix, swhy, sizeof swhy);
        if (packet_fault(l, h, w->whole, size, &prev, why, sizeof why) ||
            (!size_sound && snprintf(why, sizeof why, "%s", swhy) >= 0)) {
            uint64_t bits = le64(h + OFF_SIZE);
            bool cut = le32(h) == PKT_MAGIC && bits < UINT64_C(1) << 63 && bits % 8 == 0 &&
                       bits / 8 > size - w->whole;
            if (cut) {
                end = WALK_CUT;
                if (rest > w->longest) w->longest = rest;
                break;
            }
            bool room = !w->fix || w->nfix < w->maxfix;
            if (!room || !repair(l, h, w->whole, size, &prev, ix, nix, size_sound)) {
                snprintf(w->why, sizeof w->why, "%s", room ? why : "too many damaged headers");
                end = WALK_DAMAGED;
                break;
            }
            if (!w->repaired++) {
                w->first_repair = w->count;
                snprintf(w->repair_why, sizeof w->repair_why, "%s", why);
            }
            if (w->fix) {
                w->fix[w->nfix].off = w->whole;
                memcpy(w->fix[w->nfix++].header, h, PKT_HEADER);
            }
        }
        if (le64(h + OFF_SIZE) > w->longest) w->longest = le64(h + OFF_SIZE);
        w->whole += le64(h + OFF_SIZE) / 8;
        w->count++;
        prev = (prev_packet){.discarded = le64(h + OFF_DISCARDED), .te = le64(h + OFF_TS_END)};
    }
    free(ix);
    fclose(f);
    return end;
}

uint64_t packets_plan(const char *dir, const char *name, packets_fix *fix, size_t maxfix,
                      size_t *nfix)
{
    layout l;
    layout_read(dir, &l);
    *nfix = 0;
    if (!l.known) {
        char path[PATH_MAX + 256];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        return stat(path, &st) ? 0 : (uint64_t)st.st_size;
    }
    walk_state w = {.fix = fix, .maxfix = maxfix};
    walk(&l, dir, name, &w);
    *nfix = w.nfix;
    return w.whole;
}

/* Whether index/NAME.idx agrees with the stream file: each entry at the
 * offset of the packet it lists, with its sizes. Entries past the end of
 * the file are a recording cut short (salvage_missing counts them), not
 * a disagreement. */
static bool index_agrees(const char *dir, const char *name, char *why, size_t n)
{
    char p[PATH_MAX + 300];
    struct stat is;
    snprintf(p, sizeof p, "%s/index/%s.idx", dir, name);
    if (stat(p, &is) && errno == ENOENT) return true; /* babeltrace2 indexes the file itself */
    /* One that is there but cannot be read (a FIFO would block
     * libbabeltrace2 for ever): the trace is read without its index. */
    FILE *f = fja_regular_open(p, why, n);
    if (!f) return false;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *s = fja_regular_open(p, NULL, 0);
    struct stat st;
    unsigned char h[16], e[256], ph[PKT_HEADER];
    bool ok = s && !fstat(fileno(s), &st) && fread(h, 1, 16, f) == 16 && be64(h) >> 32 == IDX_MAGIC;
    size_t len = ok ? (size_t)(be64(h + 8) & 0xffffffffu) : 0;
    ok = ok && len >= 24 && len <= sizeof e;
    uint64_t expect = 0;
    while (ok && expect < (uint64_t)st.st_size && fread(e, 1, len, f) == len) {
        uint64_t off = be64(e), size = be64(e + 8), content = be64(e + 16);
        ok = off == expect && fseeko(s, (off_t)off, SEEK_SET) == 0 &&
             fread(ph, 1, sizeof ph, s) == sizeof ph && le64(ph + OFF_SIZE) == size &&
             le64(ph + OFF_CONTENT) == content && size % 8 == 0 && size >= 8 * PKT_HEADER &&
             size < UINT64_C(1) << 63;
        expect = off + size / 8;
    }
    fclose(f);
    if (s) fclose(s);
    return ok;
}

static bool is_stream(const char *dir, const char *name, char *path, size_t n)
{
    struct stat st;
    if (name[0] == '.' || strcmp(name, "metadata") == 0) return false;
    snprintf(path, n, "%s/%s", dir, name);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A stream file libbabeltrace2 would skip (a FIFO, a device: not a
 * regular file) or fail on (not readable): why says which and why, and
 * the trace is read without it (salvage.h), damaged. Folders are no
 * stream files (the index folder, a link to elsewhere). */
static bool stream_unreadable(const char *dir, const char *name, char *why, size_t n)
{
    char path[PATH_MAX + 256];
    struct stat st;
    if (name[0] == '.' || strcmp(name, "metadata") == 0) return false;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (stat(path, &st) || S_ISDIR(st.st_mode)) return false;
    FILE *f = fja_regular_open(path, why, n);
    if (f) fclose(f);
    return !f;
}

/* Calls late for stream file path if its first packet is not packet 0. */
static void first_packet(const char *path, void (*late)(void *ctx, uint64_t cls, uint64_t inst),
                         void *ctx)
{
    unsigned char h[PKT_HEADER];
    FILE *f = late ? fja_regular_open(path, NULL, 0) : NULL;
    if (!f) return;
    /* header: magic, uuid[16], stream_id (u32), stream_instance_id (u64);
     * context: ... packet_seq_num at OFF_SEQ */
    if (fread(h, 1, sizeof h, f) == sizeof h && le32(h) == PKT_MAGIC && le64(h + OFF_SEQ) > 0)
        late(ctx, le32(h + 20), le64(h + 24));
    fclose(f);
}

int packets_check(const char *dir, fja_packets *p,
                  void (*late)(void *ctx, uint64_t cls, uint64_t inst), void *ctx)
{
    *p = (fja_packets){0};
    layout l;
    layout_read(dir, &l);
    p->layout_known = l.known;
    DIR *d = opendir(dir);
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) {
        char path[PATH_MAX + 256], why[PATH_MAX + 300];
        if (stream_unreadable(dir, e->d_name, why, sizeof why)) {
            if (!p->damaged)
                note_printf(p->note, sizeof p->note, "%s (none of its events can be read)", why);
            p->damaged = true;
            continue;
        }
        if (!is_stream(dir, e->d_name, path, sizeof path)) continue;
        p->streams++;
        if (!l.known) {
            struct stat st;
            uint64_t bits = stat(path, &st) ? 0 : (uint64_t)st.st_size * 8;
            if (bits > p->longest) p->longest = bits;
            continue;
        }
        first_packet(path, late, ctx);
        walk_state w = {0};
        walk_end end = walk(&l, dir, e->d_name, &w);
        if (w.longest > p->longest) p->longest = w.longest;
        *why = '\0';
        bool agrees = index_agrees(dir, e->d_name, why, sizeof why);
        p->whole += w.count;
        if (!agrees && !p->index_damaged && *why)
            note_printf(p->index_note, sizeof p->index_note,
                        "%s; the trace is read without its "
                        "index",
                        why);
        p->index_damaged |= !agrees;
        /* A counter that falls or leaps is no damaged header: LTTng 2.13
         * writes 0 in a trailing packet, and a count in a first packet
         * followed by 0s is read whole, as babeltrace2 reads it; the
         * count is taken as unchanged (nothing else is rewritten). */
        if (w.repaired && !p->repaired && !strncmp(w.repair_why, "events_discarded", 16))
            note_printf(p->repair_note, sizeof p->repair_note,
                        "%s: packet %" PRIu64 ": %s for a running total: taken as unchanged, "
                        "every event read",
                        path, w.first_repair + 1, w.repair_why);
        else if (w.repaired && !p->repaired)
            note_printf(p->repair_note, sizeof p->repair_note,
                        "%s: packet %" PRIu64 " has a damaged header (%s): rebuilt from the LTTng "
                        "index (without one: an unset content_size is the packet size, an "
                        "unset packet_size the content size, an impossible "
                        "events_discarded is taken as unchanged)",
                        path, w.first_repair + 1, w.repair_why);
        p->repaired += w.repaired;
        /* A packet running past the end of the file is a recording cut
         * short when the index says so too, else a damaged size. */
        if (end == WALK_CUT && agrees) {
            struct stat st;
            char idx[PATH_MAX + 300];
            uint64_t bytes = stat(path, &st) ? 0 : (uint64_t)st.st_size - w.whole;
            snprintf(idx, sizeof idx, "%s/index/%s.idx", dir, e->d_name);
            if (!p->cut_all)
                note_printf(p->cut_note, sizeof p->cut_note,
                            "%s is cut short (a recording cut short?): its packet %" PRIu64
                            " (byte %" PRIu64 ") runs past the end of the file",
                            path, w.count + 1, w.whole);
            p->cut_all += bytes ? bytes : 1;
            if (stat(idx, &st) && errno == ENOENT) p->cut_unindexed += bytes ? bytes : 1;
        }
        if (end == WALK_WHOLE || (end == WALK_CUT && agrees)) continue;
        struct stat st;
        p->dropped += stat(path, &st) ? 0 : (uint64_t)st.st_size - w.whole;
        if (!p->damaged)
            note_printf(p->note, sizeof p->note,
                        "%s: packet %" PRIu64 " (byte %" PRIu64 ") cannot be decoded: %s", path,
                        w.count + 1, w.whole,
                        end == WALK_DAMAGED ? w.why : "it runs past the end of the file");
        p->damaged = true;
    }
    closedir(d);
    return 0;
}

/* The byte offset of packet number packet (1-based) of the stream file f
 * of size bytes, from the packet sizes before it. */
static uint64_t packet_offset(FILE *f, uint64_t size, uint64_t packet)
{
    unsigned char h[PKT_HEADER];
    uint64_t off = 0;
    for (uint64_t k = 1; k < packet; k++) {
        if (fseeko(f, (off_t)off, SEEK_SET) || fread(h, 1, sizeof h, f) != sizeof h)
            return UINT64_MAX;
        uint64_t bits = le64(h + OFF_SIZE);
        if (bits % 8 || bits < 8 * PKT_HEADER || bits / 8 > size - off) return UINT64_MAX;
        off += bits / 8;
    }
    return off < size ? off : UINT64_MAX;
}

uint64_t packets_offset(const char *dir, const char *name, uint64_t packet)
{
    layout l;
    layout_read(dir, &l);
    char path[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = l.known ? fja_regular_open(path, NULL, 0) : NULL;
    struct stat st;
    uint64_t off =
        f && !fstat(fileno(f), &st) ? packet_offset(f, (uint64_t)st.st_size, packet) : UINT64_MAX;
    if (f) fclose(f);
    return off;
}

int packets_locate(const char *dir, uint64_t cls, uint64_t inst, uint64_t packet, char *name,
                   size_t n, uint64_t *offset)
{
    layout l;
    layout_read(dir, &l);
    DIR *d = l.known ? opendir(dir) : NULL;
    int found = -1;
    for (struct dirent *e; d && found && (e = readdir(d));) {
        char path[PATH_MAX + 256];
        unsigned char h[PKT_HEADER];
        struct stat st;
        if (!is_stream(dir, e->d_name, path, sizeof path)) continue;
        FILE *f = fja_regular_open(path, NULL, 0);
        if (!f) continue;
        /* header: magic, uuid[16], stream_id (u32), stream_instance_id (u64) */
        if (fread(h, 1, sizeof h, f) == sizeof h && le32(h + 20) == cls && le64(h + 24) == inst &&
            !fstat(fileno(f), &st)) {
            snprintf(name, n, "%s", e->d_name);
            *offset = packet_offset(f, (uint64_t)st.st_size, packet);
            found = 0;
        }
        fclose(f);
    }
    if (d) closedir(d);
    return found;
}

int packets_of_port(const char *dir, const char *port_name, uint64_t packet, char *name, size_t n,
                    uint64_t *offset, const char **ids)
{
    uint64_t cls, inst;
    *ids = port_name ? strchr(port_name, '|') : NULL;
    /* without a stream instance id, the name ends with the file's path */
    const char *path = *ids ? strchr(*ids + 1, '|') : NULL;
    if (path && path[1] == ' ' && path[2] == '/') {
        snprintf(name, n, "%s", strrchr(path, '/') + 1);
        *offset = packets_offset(dir, name, packet);
        return 0;
    }
    if (!*ids || sscanf(*ids, "| %" SCNu64 " | %" SCNu64, &cls, &inst) != 2) return -1;
    return packets_locate(dir, cls, inst, packet, name, n, offset);
}

bool packets_content_full(const char *dir, const char *name, uint64_t off)
{
    layout l;
    layout_read(dir, &l);
    char path[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = l.known && off != UINT64_MAX ? fja_regular_open(path, NULL, 0) : NULL;
    unsigned char h[PKT_HEADER];
    bool full = f && !fseeko(f, (off_t)off, SEEK_SET) && fread(h, 1, sizeof h, f) == sizeof h &&
                le64(h + OFF_CONTENT) == le64(h + OFF_SIZE);
    if (f) fclose(f);
    return full;
}
