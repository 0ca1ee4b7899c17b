#include "outfile.h"

#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void tmp_remove(fja_outfile *o)
{
    unlink(o->tmp);
    fja_interrupt_forget(o->tmp);
}

static void reason(const fja_outfile *o, char *err, size_t errlen, int e)
{
    snprintf(err, errlen, "cannot write %s: %s%s", o->path, strerror(e),
             *o->tmp ? " (nothing written)" : "");
}

/* ".NAME.tmp-PID-N" in the target's folder, so the rename stays within one
 * file system and is atomic. NAME is shortened when the whole would not fit
 * in NAME_MAX (a target name of 240-255 bytes): PID-N keeps it unique. */
static int tmp_name(fja_outfile *o, const char *path)
{
    static unsigned serial;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    char suffix[48];
    int slen = snprintf(suffix, sizeof suffix, ".tmp-%ld-%u", (long)getpid(), serial++);
    size_t room = NAME_MAX - 1 - (size_t)slen; /* the leading dot */
    size_t blen = strlen(base);
    int n = snprintf(o->tmp, sizeof o->tmp, "%.*s.%.*s%s", dirlen, path,
                     (int)(blen < room ? blen : room), base, suffix);
    return n > 0 && (size_t)n < sizeof o->tmp ? 0 : -1;
}

FILE *fja_outfile_open(fja_outfile *o, const char *path, char *err, size_t errlen)
{
    *o = (fja_outfile){.path = path};
    struct stat st;
    bool direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (direct) {
        o->f = fopen(path, "w");
    } else if (tmp_name(o, path)) {
        errno = ENAMETOOLONG;
    } else {
        fja_interrupt_defer(); /* a Ctrl-C removes it from the moment it exists */
        int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 && (fja_interrupt_track(o->tmp) || !(o->f = fdopen(fd, "w")))) {
            int e = errno;
            close(fd);
            tmp_remove(o);
            errno = e;
        }
        fja_interrupt_resume();
    }
    if (!o->f) reason(o, err, errlen, errno);
    return o->f;
}

int fja_outfile_commit(fja_outfile *o, char *err, size_t errlen)
{
    /* fflush and fclose report what the buffered writes could not say. */
    int e = 0;
    if (fflush(o->f) || ferror(o->f)) e = errno ? errno : EIO;
    if (fclose(o->f) && !e) e = errno;
    o->f = NULL;
    if (!e && *o->tmp && rename(o->tmp, o->path)) e = errno;
    if (!e) {
        if (*o->tmp) fja_interrupt_forget(o->tmp);
        return 0;
    }
    if (*o->tmp) tmp_remove(o);
    reason(o, err, errlen, e);
    return -1;
}

void fja_outfile_abort(fja_outfile *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (*o->tmp) tmp_remove(o);
}

void fja_outfile_fail(fja_outfile *o, int e, char *err, size_t errlen)
{
    fja_outfile_abort(o);
    reason(o, err, errlen, e ? e : EIO);
}

int fja_outfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    fja_outfile o;
    FILE *f = fja_outfile_open(&o, path, err, errlen);
    if (!f) return -1;
    errno = 0;
    if (len && fwrite(data, 1, len, f) != len) {
        fja_outfile_fail(&o, errno, err, errlen);
        return -1;
    }
    return fja_outfile_commit(&o, err, errlen);
}
