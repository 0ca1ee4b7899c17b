#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "reader.h"
#include "regular.h"

/* At most this much of the file is read: fjtrace-record writes a few
 * lines; a larger file is not its. */
#define HOST_FILE_MAX 4096

static fja_host_fact yes_no(const char *v)
{
    if (!strcmp(v, "y")) return FJA_HOST_YES;
    if (!strcmp(v, "n")) return FJA_HOST_NO;
    return FJA_HOST_NOT_KNOWN; /* "unknown": the recorder could not read the configuration */
}

/* One "KEY VALUE" line into f; 0, or -1 for a line that is not one of
 * fjtrace-record's. */
static int host_line(char *line, fja_host_facts *f)
{
    if (!*line || *line == '#') return 0;
    char *value = strchr(line, ' ');
    if (!value) return -1;
    *value++ = '\0';
    if (!strcmp(line, "kernel")) {
        snprintf(f->kernel, sizeof f->kernel, "%s", value);
    } else if (!strcmp(line, "CONFIG_IRQ_TIME_ACCOUNTING")) {
        f->irq_time_accounting = yes_no(value);
    } else if (!strcmp(line, "CONFIG_PARAVIRT_TIME_ACCOUNTING")) {
        f->steal_time_accounting = yes_no(value);
    } else {
        return -1;
    }
    return 0;
}

static int host_parse(char *text, fja_host_facts *f, int *bad_line)
{
    int n = 0;
    for (char *line = text, *next; line && *line; line = next) {
        n++;
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (host_line(line, f)) {
            *bad_line = n;
            return -1;
        }
    }
    return 0;
}

int reader_host_facts(const char *dir, fja_host_facts *f, char *why, size_t n)
{
    *f = (fja_host_facts){0};
    *why = '\0';
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, FJA_HOST_FILE);
    FILE *in = fja_regular_open(path, why, n);
    if (!in) {
        /* a trace recorded otherwise (or a file given instead of a folder)
         * has none: not known, and nothing to say */
        if (errno == ENOENT || errno == ENOTDIR) *why = '\0';
        return -1;
    }
    char text[HOST_FILE_MAX + 1];
    size_t len = fread(text, 1, sizeof text, in);
    int failed = ferror(in);
    fclose(in);
    text[len < HOST_FILE_MAX ? len : HOST_FILE_MAX] = '\0';
    int bad_line = 0;
    if (failed)
        snprintf(why, n, "%s: cannot be read", path);
    else if (len > HOST_FILE_MAX)
        snprintf(why, n, "%s: over %d bytes, not fjtrace-record's", path, HOST_FILE_MAX);
    else if (memchr(text, '\0', len))
        snprintf(why, n, "%s: holds a NUL byte, not fjtrace-record's", path);
    else if (host_parse(text, f, &bad_line))
        snprintf(why, n, "%s: line %d is not fjtrace-record's", path, bad_line);
    if (!*why) return 0;
    *f = (fja_host_facts){0};
    return -1;
}
