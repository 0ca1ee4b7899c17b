/* noperf CMD [ARGS...]: runs CMD with perf_event_open(2) refused (EACCES)
 * by a seccomp filter, as in a container that forbids it: the off-CPU
 * recording of libfj must then say "unavailable" in the trace. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: noperf CMD [ARGS...]\n");
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(perf_event_open), 0) != 0 ||
        seccomp_load(ctx) != 0) {
        fprintf(stderr, "noperf: cannot install the seccomp filter\n");
        return 3;
    }
    seccomp_release(ctx);
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 127;
}
