/* The one JSON emitter of fjtrace-analyze: the JSON report (report_json.c)
 * and the Chrome trace (viz/collect.c) both write through it, so both
 * escape names the same way and keep commas and brackets balanced.
 *
 * Containers at depth < flat are written a member per line, indented by
 * two spaces, "key": value; those at depth >= flat on one line,
 * "key":value (a Chrome trace event per line). Depth 1 is the top object. */
#ifndef FJA_JSON_H
#define FJA_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FJA_JSON_MAX_DEPTH 32 /* the writers nest 7 deep at most */

typedef struct {
    FILE *f;
    int depth;
    int flat;
    bool first[FJA_JSON_MAX_DEPTH]; /* no member written yet at that depth */
} fja_json;

/* Writes the top object's '{'; flat as above (FJA_JSON_MAX_DEPTH: never). */
void fja_json_start(fja_json *w, FILE *f, int flat);
/* Closes the top object and ends the line. */
void fja_json_finish(fja_json *w);
/* k is the member's key in an object, NULL for an array element. */
void fja_json_open(fja_json *w, const char *k, char bracket); /* '{' or '[' */
void fja_json_close(fja_json *w, char bracket);               /* '}' or ']' */
/* Quotes, backslashes, control characters and '<' escaped, invalid UTF-8
 * as U+FFFD: valid JSON whatever s holds (names come from the trace). */
void fja_json_str(fja_json *w, const char *k, const char *s);
void fja_json_strf(fja_json *w, const char *k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void fja_json_null(fja_json *w, const char *k);
void fja_json_u64(fja_json *w, const char *k, uint64_t v);
void fja_json_i64(fja_json *w, const char *k, int64_t v);
void fja_json_bool(fja_json *w, const char *k, bool v);
/* %.6g; null when not finite (JSON has no NaN or infinity). */
void fja_json_dbl(fja_json *w, const char *k, double v);
/* With exactly `decimals` digits after the point; null when not finite. */
void fja_json_fixed(fja_json *w, const char *k, double v, int decimals);

#endif
