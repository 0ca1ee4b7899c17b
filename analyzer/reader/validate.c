#include "validate.h"

#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "regular.h"
#include "tp_layout.h"

#define PKT_MAGIC 0xc1fc1fc1u
#define PKT_HEADER 84 /* packets.h */
enum { OFF_TS_BEGIN = 32, OFF_TS_END = 40, OFF_SIZE = 56 };

typedef struct {
    char *path; /* realpath of the stream file */
    uint64_t (*bounds)[2];
    size_t n;
} stream_file;

static stream_file *files;
static size_t nfiles, capfiles;

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

void validate_bounds_clear(void)
{
    for (size_t i = 0; i < nfiles; i++) {
        free(files[i].path);
        free(files[i].bounds);
    }
    free(files);
    files = NULL;
    nfiles = capfiles = 0;
}

/* The packet bounds of one stream file: its headers walked as far as their
 * sizes lead inside the file (the packet check, packets.h, has cut or
 * rebuilt what libbabeltrace2 could not decode). */
static int file_add(const char *path)
{
    FILE *f = fja_regular_open(path, NULL, 0);
    struct stat st;
    if (!f || fstat(fileno(f), &st)) {
        if (f) fclose(f);
        return 0;
    }
    stream_file s = {.path = realpath(path, NULL)};
    size_t cap = 0;
    unsigned char h[PKT_HEADER];
    uint64_t off = 0, size = (uint64_t)st.st_size;
    while (s.path && off < size && fseeko(f, (off_t)off, SEEK_SET) == 0 &&
           fread(h, 1, sizeof h, f) == sizeof h && (le64(h) & 0xffffffffu) == PKT_MAGIC) {
        uint64_t bits = le64(h + OFF_SIZE);
        if (bits % 8 || bits < 8 * PKT_HEADER || bits / 8 > size - off) break;
        if (s.n == cap) {
            uint64_t(*b)[2] = realloc(s.bounds, (cap = cap ? 2 * cap : 16) * sizeof *b);
            if (!b) break;
            s.bounds = b;
        }
        s.bounds[s.n][0] = le64(h + OFF_TS_BEGIN);
        s.bounds[s.n++][1] = le64(h + OFF_TS_END);
        off += bits / 8;
    }
    fclose(f);
    if (nfiles == capfiles) {
        size_t c = capfiles ? 2 * capfiles : 16;
        stream_file *a = realloc(files, c * sizeof *a);
        if (!a) {
            free(s.path);
            free(s.bounds);
            return -1;
        }
        files = a;
        capfiles = c;
    }
    if (!s.path) return -1;
    files[nfiles++] = s;
    return 0;
}

int validate_bounds_add(const char *dir)
{
    DIR *d = opendir(dir);
    int rc = 0;
    for (struct dirent *e; d && !rc && (e = readdir(d));) {
        char p[PATH_MAX + 256];
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata") || !strcmp(e->d_name, "index"))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        rc = file_add(p);
    }
    if (d) closedir(d);
    return rc;
}

static const stream_file *file_of(const bt_stream *s)
{
    const char *name = bt_stream_get_name(s); /* ctf.fs: the stream file's path */
    if (!name || !nfiles) return NULL;
    char *real = realpath(name, NULL);
    const stream_file *found = NULL;
    for (size_t i = 0; real && i < nfiles && !found; i++)
        if (!strcmp(files[i].path, real)) found = &files[i];
    free(real);
    return found;
}

static validate_slot *slot_of(validate_ctx *c, const bt_stream *s)
{
    if (c->last && c->last->stream == s) return c->last; /* (slots never move) */
    size_t h = ((uintptr_t)s >> 4) % VALIDATE_SLOTS;
    for (size_t i = 0; i < VALIDATE_SLOTS; i++, h = (h + 1) % VALIDATE_SLOTS) {
        validate_slot *v = &c->slots[h];
        if (v->stream == s) return c->last = v;
        if (!v->stream) {
            *v = (validate_slot){.stream = s, .file = file_of(s)};
            return c->last = v;
        }
    }
    return NULL; /* more streams than slots: not checked */
}

void validate_packet(validate_ctx *c, const bt_stream *s)
{
    validate_slot *v = slot_of(c, s);
    if (v) v->packet++;
}

void validate_where(validate_ctx *c, const bt_stream *s, char *where, size_t n)
{
    const validate_slot *v = slot_of(c, s);
    const char *name = bt_stream_get_name(s);
    snprintf(where, n, "%s: packet %" PRIu64, name ? name : "a stream", v ? v->packet : 0);
}

bool validate_time_ok(validate_ctx *c, const bt_stream *s, uint64_t cycles)
{
    validate_slot *v = slot_of(c, s);
    if (!v || !v->file) return true;
    const stream_file *f = v->file;
    if (v->packet && v->packet <= f->n) {
        const uint64_t *b = f->bounds[v->packet - 1];
        if (b[1] > b[0] && (cycles < b[0] || cycles > b[1])) return false; /* as below */
    }
    if (cycles < v->last) return false;
    v->last = cycles;
    return true;
}

const char *validate_time(validate_ctx *c, const bt_stream *s, uint64_t cycles, char *why, size_t n)
{
    validate_slot *v = slot_of(c, s);
    if (!v || !v->file) return NULL;
    const stream_file *f = v->file;
    char where[PATH_MAX + 64];
    if (v->packet && v->packet <= f->n) {
        const uint64_t *b = f->bounds[v->packet - 1];
        /* (bounds not set, as in a packet never closed: not checked) */
        if (b[1] > b[0] && (cycles < b[0] || cycles > b[1])) {
            validate_where(c, s, where, sizeof where);
            snprintf(why, n,
                     "%s: an event at clock %" PRIu64 " outside its packet's %" PRIu64 "..%" PRIu64
                     " (a damaged event header?)",
                     where, cycles, b[0], b[1]);
            return why;
        }
    }
    if (cycles < v->last) {
        validate_where(c, s, where, sizeof where);
        snprintf(why, n, "%s: an event at clock %" PRIu64 " before the one before it (%" PRIu64 ")",
                 where, cycles, v->last);
        return why;
    }
    v->last = cycles;
    return NULL;
}

/* Member `name` of the layout string "a:u b:s c:x": its kind, 0 if absent. */
static char layout_kind(const char *members, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = members; *p;) {
        const char *colon = strchr(p, ':');
        if (!colon) break;
        if ((size_t)(colon - p) == len && !strncmp(p, name, len)) return colon[1];
        p = colon + 2;
        while (*p == ' ')
            p++;
    }
    return 0;
}

/* Members the provider gave in an older layout and gives no more: traces
 * recorded then are still read, the tracker checks what they say
 * (fja_event.named). fork's size_hint and site: before they went into one
 * field, site_size (2026-12-06); fork_wide still has them. */
static const struct {
    const char *event, *members;
} TP_OLDER[] = {{"fork", "parent:u size_hint:u site:u"}, {"executed", "task:u"}};

static char older_kind(const char *event, const char *name)
{
    for (size_t i = 0; i < sizeof TP_OLDER / sizeof *TP_OLDER; i++)
        if (!strcmp(TP_OLDER[i].event, event)) return layout_kind(TP_OLDER[i].members, name);
    return 0;
}

const char *validate_layout(const char *name, const bt_field_class *payload, char *why, size_t n)
{
    const char *members = NULL;
    for (size_t i = 0; i < sizeof TP_LAYOUT / sizeof *TP_LAYOUT && !members; i++)
        if (!strcmp(TP_LAYOUT[i].event, name)) members = TP_LAYOUT[i].members;
    if (!members) return NULL;
    if (!payload || bt_field_class_get_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE) {
        snprintf(why, n, "fjtrace:%s has no payload structure", name);
        return why;
    }
    uint64_t count = bt_field_class_structure_get_member_count(payload);
    for (uint64_t i = 0; i < count; i++) {
        const bt_field_class_structure_member *m =
            bt_field_class_structure_borrow_member_by_index_const(payload, i);
        const char *mn = bt_field_class_structure_member_get_name(m);
        bt_field_class_type t =
            bt_field_class_get_type(bt_field_class_structure_member_borrow_field_class_const(m));
        char kind = layout_kind(members, mn);
        if (!kind) kind = older_kind(name, mn);
        bool integer = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER);
        if (!kind || (kind == 'x') != (t == BT_FIELD_CLASS_TYPE_STRING) ||
            ((kind == 'u' || kind == 's') && !integer)) {
            snprintf(why, n,
                     "fjtrace:%s has a member '%s' the provider does not give it (its layout: %s): "
                     "a damaged or renamed event class",
                     name, mn, members);
            return why;
        }
    }
    static const char *const needed[] = {"pool", "worker", "task"};
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) {
        if (!layout_kind(members, needed[i])) continue;
        const bt_field_class_structure_member *m =
            bt_field_class_structure_borrow_member_by_name_const(payload, needed[i]);
        if (!m) {
            snprintf(why, n, "fjtrace:%s lacks its member '%s' (its layout: %s)", name, needed[i],
                     members);
            return why;
        }
    }
    /* A site name is its fields, every one of them (its layout never
     * changed): a class with fewer is another event renamed so (an
     * executed, whose pool and worker a site name has too). */
    if (!strcmp(name, "site_name")) {
        for (const char *p = members; *p;) {
            const char *colon = strchr(p, ':');
            if (!colon) break;
            char mn[32];
            snprintf(mn, sizeof mn, "%.*s", (int)(colon - p), p);
            if (!bt_field_class_structure_borrow_member_by_name_const(payload, mn)) {
                snprintf(why, n, "fjtrace:%s lacks its member '%s' (its layout: %s)", name, mn,
                         members);
                return why;
            }
            p = colon + 2;
            while (*p == ' ')
                p++;
        }
    }
    return NULL;
}
