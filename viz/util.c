/* Formatting, escaping and colours shared by every picture. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "viz_int.h"

const char *fjv_count(char *buf, size_t n, uint64_t v)
{
    char raw[32];
    int len = snprintf(raw, sizeof raw, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < len && o + 1 < n; i++) {
        if (i && (len - i) % 3 == 0 && o + 2 < n) buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
    return buf;
}

void fjv_str_add(fjv_str *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void fjv_str_printf(fjv_str *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        fjv_str_add(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    fjv_str_add(b, big, (size_t)n);
    free(big);
}

void fjv_str_label(fjv_str *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\') fjv_str_add(b, "\\", 1);
        fjv_str_add(b, s, 1);
    }
}

void fjv_str_xml(fjv_str *b, const char *s)
{
    for (; *s; s++) {
        const char *e = NULL;
        switch (*s) {
        case '&':
            e = "&amp;";
            break;
        case '<':
            e = "&lt;";
            break;
        case '>':
            e = "&gt;";
            break;
        case '"':
            e = "&quot;";
            break;
        case '\'':
            e = "&#39;";
            break;
        default:
            break;
        }
        /* Control characters are not allowed in XML 1.0 at all. */
        if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') e = "?";
        if (e)
            fjv_str_add(b, e, strlen(e));
        else
            fjv_str_add(b, s, 1);
    }
}

void fjv_str_free(fjv_str *b)
{
    free(b->s);
    *b = (fjv_str){0};
}

int fjv_write_file(const char *path, const void *data, size_t len, FILE *err)
{
    char msg[4200];
    int rc = fja_outfile_write(path, data, len, msg, sizeof msg);
    if (rc) fprintf(err, "fjtrace-analyze: %s\n", msg);
    return rc;
}

/* Twelve well-separated hues (Tableau-like), light enough for black text. */
static const fjv_rgb palette[] = {
    {0.56, 0.74, 0.92}, {1.00, 0.73, 0.47}, {0.60, 0.87, 0.54}, {1.00, 0.60, 0.59},
    {0.77, 0.69, 0.84}, {0.77, 0.61, 0.58}, {0.97, 0.71, 0.82}, {0.78, 0.78, 0.78},
    {0.86, 0.86, 0.55}, {0.62, 0.85, 0.90}, {0.99, 0.85, 0.40}, {0.70, 0.87, 0.75},
};
#define NPALETTE (sizeof palette / sizeof *palette)

fjv_rgb fjv_worker_rgb(int32_t w)
{
    if (w < 0) return (fjv_rgb){0.95, 0.95, 0.95};
    return palette[(uint32_t)w % NPALETTE];
}

const char *fjv_hex(fjv_rgb c, char buf[8])
{
    snprintf(buf, 8, "#%02x%02x%02x", (unsigned)(c.r * 255 + 0.5), (unsigned)(c.g * 255 + 0.5),
             (unsigned)(c.b * 255 + 0.5));
    return buf;
}

fjv_rgb fjv_state_rgb(fjv_lstate s, uint32_t tree)
{
    switch (s) {
    case LS_RUN: {
        /* Alternate greens so neighbouring trees stay apart. */
        static const fjv_rgb greens[] = {
            {0.17, 0.63, 0.17}, {0.10, 0.45, 0.25}, {0.40, 0.75, 0.30}, {0.05, 0.55, 0.45}};
        return tree == FJA_TASK_NONE ? greens[0] : greens[tree % 4];
    }
    case LS_JOIN:
        return (fjv_rgb){0.95, 0.55, 0.10};
    case LS_SEARCH:
        return (fjv_rgb){0.95, 0.85, 0.30};
    case LS_PARK:
        return (fjv_rgb){0.75, 0.80, 0.88};
    case LS_LOCK: /* a task that is blocked, not running: nothing like the greens */
        return (fjv_rgb){0.80, 0.15, 0.55};
    case LS_PREEMPTED: /* wanting the CPU and not having it: dark, nothing like a state of work */
        return (fjv_rgb){0.35, 0.35, 0.40};
    case LS_BLOCKED:
        return (fjv_rgb){0.55, 0.40, 0.25};
    default:
        return (fjv_rgb){1, 1, 1};
    }
}

const char *fjv_state_name(fjv_lstate s)
{
    static const char *const names[LS_COUNT] = {
        "running",   "waiting in a join",    "searching", "parked", "waiting for a lock",
        "preempted", "blocked (off the CPU)"};
    return s < LS_COUNT ? names[s] : "off";
}

const char *fjv_discard_note(const fja_trace_summary *m, char *buf, size_t n)
{
    char c[32];
    if (!m->discarded_events && !m->discard_messages) return "";
    snprintf(buf, n, "  [WARNING: %s events discarded while recording: incomplete]",
             fjv_count(c, sizeof c, m->discarded_events));
    return buf;
}

const char *fjv_pool_label(const fjv_pool *p, char *buf, size_t n)
{
    fja_pool_totals t = {.source = p->source, .id = p->id, .pid = p->pid};
    snprintf(t.procname, sizeof t.procname, "%s", p->procname);
    return fja_pool_label(&t, false, buf, n);
}

const char *fjv_site_label(const fjv_options *o, int64_t pid, uint64_t site, char *buf, size_t n)
{
    fja_site_where w = {0};
    if (!o->site_resolve || !site || o->site_resolve(o->site_ctx, pid, site, &w) != 0) return NULL;
    return fja_site_where_label(buf, n, site, &w);
}

const char *fjv_pool_name(uint32_t source, uint32_t id, char *buf, size_t n)
{
    if (source)
        snprintf(buf, n, "t%u.%u", source, id);
    else
        snprintf(buf, n, "%u", id);
    return buf;
}
