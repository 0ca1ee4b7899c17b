#include "salvage.h"

#include "packets.h"
#include "regular.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first `len` bytes of src into a new file dst. */
static int copy_prefix(const char *src, const char *dst, uint64_t len)
{
    int in = fja_regular_fd(src, NULL, 0);
    int out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int rc = in < 0 || out < 0 ? -1 : 0;
    static char buf[1 << 16];
    while (!rc && len) {
        ssize_t n = read(in, buf, len < sizeof buf ? (size_t)len : sizeof buf);
        if (n <= 0 || write(out, buf, (size_t)n) != n) rc = -1;
        len -= n > 0 ? (uint64_t)n : 0;
    }
    if (in >= 0) close(in);
    if (out >= 0 && close(out)) rc = -1;
    return rc;
}

/* Headers rebuilt from the index (packets.h) over a copy's. */
static int write_fixes(const char *path, const packets_fix *fix, size_t n)
{
    int fd = n ? open(path, O_WRONLY | O_CLOEXEC) : -1;
    int rc = n && fd < 0 ? -1 : 0;
    for (size_t i = 0; !rc && i < n; i++)
        if (pwrite(fd, fix[i].header, sizeof fix[i].header, (off_t)fix[i].off) !=
            (ssize_t)sizeof fix[i].header)
            rc = -1;
    if (fd >= 0 && close(fd)) rc = -1;
    return rc;
}

#define MAX_FIXES 256 /* headers rebuilt per stream file; past them, cut */

static uint64_t be64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

/* From the LTTng index of stream file `name` (size bytes long; lttng-tools'
 * ctf-index.h: a big-endian header {magic 0xc1f1dcc1, major, minor, entry
 * length}, then one entry a packet starting {offset, packet size in bits}):
 * *present, the bytes of whole packets at the start of the file, and
 * *listed, where the index says the last packet ends. Both are size when
 * there is no index to read. */
static void indexed(const char *src_dir, const char *name, uint64_t size, uint64_t *present,
                    uint64_t *listed)
{
    char path[PATH_MAX + 512];
    snprintf(path, sizeof path, "%s/index/%s.idx", src_dir, name);
    FILE *f = fja_regular_open(path, NULL, 0);
    unsigned char h[16], e[256];
    *present = *listed = size;
    if (!f) return;
    size_t len = fread(h, 1, 16, f) == 16 ? (size_t)be64(h + 8) & 0xffffffffu : 0;
    if (len >= 16 && len <= sizeof e && be64(h) >> 32 == 0xc1f1dcc1u) {
        uint64_t whole = 0, last = 0;
        bool contiguous = true;
        while (fread(e, 1, len, f) == len) {
            uint64_t off = be64(e), end = off + be64(e + 8) / 8;
            contiguous = contiguous && off == whole && end > off && end <= size;
            if (contiguous) whole = end;
            if (end > last) last = end;
        }
        *present = whole;
        *listed = last > size ? last : size;
    }
    fclose(f);
}

static bool is_stream(const char *src_dir, const char *name, uint64_t *size)
{
    char src[PATH_MAX + 256];
    struct stat st;
    if (name[0] == '.' || strcmp(name, "metadata") == 0) return false;
    snprintf(src, sizeof src, "%s/%s", src_dir, name);
    if (stat(src, &st) || !S_ISREG(st.st_mode)) return false;
    *size = (uint64_t)st.st_size;
    return true;
}

/* Over the index files, so that a stream file gone altogether counts too. */
uint64_t salvage_missing(const char *dir, char *first, size_t n)
{
    char idx[PATH_MAX + 16];
    snprintf(idx, sizeof idx, "%s/index", dir);
    DIR *d = opendir(idx);
    uint64_t missing = 0, size, present, listed;
    for (struct dirent *e; d && (e = readdir(d));) {
        char name[256];
        size_t len = strlen(e->d_name);
        if (len < 5 || len >= sizeof name || strcmp(e->d_name + len - 4, ".idx") != 0) continue;
        snprintf(name, sizeof name, "%.*s", (int)(len - 4), e->d_name); /* the stream's */
        struct stat st;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        /* not a regular file, or unreadable: packets.h names it, no cut */
        if (!stat(path, &st) && (!S_ISREG(st.st_mode) || access(path, R_OK))) continue;
        if (!is_stream(dir, name, &size)) size = 0;
        indexed(dir, name, size, &present, &listed);
        if (listed > present && !missing) snprintf(first, n, "%s", name);
        missing += listed - present;
    }
    if (d) closedir(d);
    return missing;
}

/* A stream file's copy: its first keep bytes, then the rebuilt headers. */
typedef struct {
    const char *src;
    uint64_t keep;
    const packets_fix *fix;
    size_t nfix;
} cut_copy;

static int make_cut(const char *path, void *ctx)
{
    const cut_copy *c = ctx;
    return copy_prefix(c->src, path, c->keep) || write_fixes(path, c->fix, c->nfix) ? -1 : 0;
}

/* Links or cuts one entry of the trace folder into the copy: a stream file
 * is kept up to its last whole packet by the index (unless it is damaged)
 * and before its first damaged packet (packets.h). */
static int salvage_entry(const char *name, fja_salvage *s, unsigned how)
{
    const char *src_dir = s->t.trace;
    char src[PATH_MAX + 256];
    struct stat st;
    snprintf(src, sizeof src, "%s/%s", src_dir, name);
    if (stat(src, &st)) return -1;
    if (!S_ISREG(st.st_mode)) return 0; /* the index folder: babeltrace2 re-indexes */
    /* One that cannot be read (packets.h told why): the copy is without it */
    if (access(src, R_OK)) return 0;
    uint64_t size = (uint64_t)st.st_size, keep = size, listed;
    bool stream = strcmp(name, "metadata") != 0;
    if (stream && !(how & SALVAGE_NO_INDEX)) indexed(src_dir, name, size, &keep, &listed);
    packets_fix *fix = NULL;
    size_t nfix = 0;
    if (stream && (how & SALVAGE_HEADERS)) {
        fix = malloc(MAX_FIXES * sizeof *fix);
        if (!fix) return -1;
        uint64_t readable = packets_plan(src_dir, name, fix, MAX_FIXES, &nfix);
        keep = readable < keep ? readable : keep;
    }
    int rc;
    if (keep >= size && !nfix) {
        rc = fja_tmptrace_link(&s->t, name);
    } else {
        s->dropped += size - keep;
        cut_copy c = {.src = src, .keep = keep, .fix = fix, .nfix = nfix};
        rc = fja_tmptrace_file(&s->t, name, make_cut, &c);
    }
    free(fix);
    return rc;
}

int salvage_make(const char *dir, fja_salvage *s, unsigned how)
{
    *s = (fja_salvage){0};
    if (fja_tmptrace_begin(&s->t, dir, "fjtrace-salvage-")) return -1;
    DIR *d = opendir(s->t.trace);
    int rc = d ? 0 : -1;
    for (struct dirent *e; !rc && (e = readdir(d));)
        if (e->d_name[0] != '.') rc = salvage_entry(e->d_name, s, how);
    if (d) closedir(d);
    bool wanted = s->dropped || (how & SALVAGE_ALWAYS);
    if (rc || !wanted) salvage_remove(s);
    return rc ? -1 : wanted ? 1 : 0;
}

void salvage_remove(fja_salvage *s)
{
    fja_tmptrace_remove(&s->t);
}
