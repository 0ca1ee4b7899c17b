#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>

static bool pretty(const fja_json *w)
{
    return w->depth < w->flat;
}

static void indent(const fja_json *w)
{
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

static void sep(fja_json *w)
{
    if (!w->first[w->depth]) fputc(',', w->f);
    w->first[w->depth] = false;
    if (pretty(w)) indent(w);
}

static void key(fja_json *w, const char *k)
{
    sep(w);
    if (k) fprintf(w->f, pretty(w) ? "\"%s\": " : "\"%s\":", k);
}

void fja_json_start(fja_json *w, FILE *f, int flat)
{
    *w = (fja_json){.f = f, .depth = 1, .flat = flat};
    w->first[1] = true;
    fputc('{', f);
}

void fja_json_finish(fja_json *w)
{
    fputs(pretty(w) ? "\n}\n" : "}\n", w->f);
    w->depth = 0;
}

void fja_json_open(fja_json *w, const char *k, char bracket)
{
    key(w, k);
    fputc(bracket, w->f);
    w->first[++w->depth] = true;
}

void fja_json_close(fja_json *w, char bracket)
{
    bool empty = w->first[w->depth], was_pretty = pretty(w);
    w->depth--;
    if (!empty && was_pretty) indent(w);
    fputc(bracket, w->f);
}

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] < 0x80                   ? 1
            : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
            : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
            : s[0] >= 0xf0 && s[0] < 0xf5 ? 4
                                          : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    /* overlong 3/4-byte forms, surrogates and code points past U+10FFFF */
    if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
    if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
    return n;
}

/* Names come from the trace (process, lock, file and function names) and
 * paths from the user: '<' is escaped too, so that the JSON can be pasted
 * into an HTML <script> safely. */
void fja_json_str(fja_json *w, const char *k, const char *s)
{
    key(w, k);
    fputc('"', w->f);
    for (const unsigned char *c = (const unsigned char *)s; *c;) {
        int n = utf8_len(c);
        if (*c == '"' || *c == '\\')
            fprintf(w->f, "\\%c", *c);
        else if (*c < 0x20 || *c == '<')
            fprintf(w->f, "\\u%04x", *c);
        else if (n)
            fwrite(c, 1, (size_t)n, w->f);
        else
            fputs("\\ufffd", w->f);
        c += n ? n : 1;
    }
    fputc('"', w->f);
}

void fja_json_strf(fja_json *w, const char *k, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fja_json_str(w, k, buf);
}

void fja_json_null(fja_json *w, const char *k)
{
    key(w, k);
    fputs("null", w->f);
}

void fja_json_u64(fja_json *w, const char *k, uint64_t v)
{
    key(w, k);
    fprintf(w->f, "%" PRIu64, v);
}

void fja_json_i64(fja_json *w, const char *k, int64_t v)
{
    key(w, k);
    fprintf(w->f, "%" PRId64, v);
}

void fja_json_bool(fja_json *w, const char *k, bool v)
{
    key(w, k);
    fputs(v ? "true" : "false", w->f);
}

void fja_json_dbl(fja_json *w, const char *k, double v)
{
    key(w, k);
    if (isfinite(v))
        fprintf(w->f, "%.6g", v);
    else
        fputs("null", w->f);
}

void fja_json_fixed(fja_json *w, const char *k, double v, int decimals)
{
    key(w, k);
    if (isfinite(v))
        fprintf(w->f, "%.*f", decimals, v);
    else
        fputs("null", w->f);
}
