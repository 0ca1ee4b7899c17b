#include "regular.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind(mode_t m)
{
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a file";
}

static int refuse(const char *path, const struct stat *st, int err, char *why, size_t n)
{
    if (why && n) {
        if (st)
            snprintf(why, n, "%s: not a regular file (%s): refused", path, kind(st->st_mode));
        else
            snprintf(why, n, "%s: %s", path, strerror(err));
    }
    errno = st ? EINVAL : err;
    return -1;
}

int fja_regular_check(const char *path, char *why, size_t n)
{
    struct stat st;
    if (stat(path, &st)) return refuse(path, NULL, errno, why, n);
    return S_ISREG(st.st_mode) ? 0 : refuse(path, &st, 0, why, n);
}

int fja_regular_fd(const char *path, char *why, size_t n)
{
    if (fja_regular_check(path, why, n)) return -1;
    /* O_NONBLOCK: should it have become a FIFO since the check, the open
     * returns at once and fstat refuses it; on a regular file it changes
     * nothing (and is cleared). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return refuse(path, NULL, errno, why, n);
    struct stat st;
    if (fstat(fd, &st)) {
        int e = errno;
        close(fd);
        return refuse(path, NULL, e, why, n);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return refuse(path, &st, 0, why, n);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *fja_regular_open(const char *path, char *why, size_t n)
{
    int fd = fja_regular_fd(path, why, n);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        refuse(path, NULL, errno, why, n);
        close(fd);
    }
    return f;
}
