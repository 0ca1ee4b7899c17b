/* fjtrace-top -- CMD: a private lttng-relayd on 127.0.0.1 (free ports, its
 * own output folder, its own process group so that a Ctrl-C in the
 * terminal does not stop it before the trace is in), then
 * fjtrace-record --relayd ... --live on CMD, in a process group of its own
 * too: fjtrace-top passes signals on to it deliberately. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkstemps, mkdtemp, SOCK_CLOEXEC */
#endif
#include "top.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void msleep(long ms)
{
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) && errno == EINTR)
        ;
}

/* n TCP ports of 127.0.0.1 that were free a moment ago (all bound at once,
 * so they differ). */
static int free_ports(int *ports, int n)
{
    int fds[3] = {-1, -1, -1}, rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof a;
        fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&a, sizeof a) ||
            getsockname(fds[i], (struct sockaddr *)&a, &len))
            rc = -1;
        else
            ports[i] = ntohs(a.sin_port);
    }
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0) close(fds[i]);
    return rc;
}

static bool port_open(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                            .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0) close(fd);
    return ok;
}

/* In a child: stdin from /dev/null, stdout and stderr to path (appended). */
static void child_stdio(const char *path)
{
    int in = open("/dev/null", O_RDONLY);
    int out = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || out < 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    if (in > 2) close(in);
    if (out > 2) close(out);
}

static pid_t spawn(char *const *argv, const char *log)
{
    pid_t pid = fork();
    if (pid != 0) return pid;
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    child_stdio(log);
    execvp(argv[0], argv);
    fprintf(stderr, "%s: cannot run %s: %s\n", TOP_PROG, argv[0], strerror(errno));
    _exit(127);
}

static void reap(pid_t pid, int *status)
{
    for (int i = 0; i < 100; i++) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) return;
        msleep(100);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
}

/* One try at a relay daemon on free ports: 0 when it listens. */
static int relayd_try(top_launch *l, int ports[3])
{
    if (free_ports(ports, 3)) return -1;
    char ctrl[64], data[64], live[64], log[300];
    snprintf(ctrl, sizeof ctrl, "tcp://127.0.0.1:%d", ports[0]);
    snprintf(data, sizeof data, "tcp://127.0.0.1:%d", ports[1]);
    snprintf(live, sizeof live, "tcp://127.0.0.1:%d", ports[2]);
    snprintf(log, sizeof log, "%s.log", l->relay_dir);
    char *argv[] = {"lttng-relayd", "-o", l->relay_dir, "-C", ctrl, "-D", data, "-L", live, NULL};
    l->relayd = spawn(argv, log);
    if (l->relayd < 0) return -1;
    for (int i = 0; i < 100; i++) {
        int st;
        if (waitpid(l->relayd, &st, WNOHANG) == l->relayd) break; /* it failed */
        if (port_open(ports[2]) && port_open(ports[0]) && port_open(ports[1])) return 0;
        msleep(100);
    }
    if (kill(l->relayd, SIGTERM) == 0) reap(l->relayd, &(int){0});
    l->relayd = 0;
    return -1;
}

static int relayd_start(top_launch *l, int ports[3])
{
    const char *tmp = getenv("TMPDIR");
    snprintf(l->relay_dir, sizeof l->relay_dir, "%s/fjtrace-top.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(l->relay_dir)) {
        fprintf(stderr, "%s: cannot create a folder for the relay daemon in %s: %s\n", TOP_PROG,
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return TOP_EXIT_LAUNCH;
    }
    for (int tries = 0; tries < 3; tries++) /* a port taken meanwhile: new ports */
        if (!relayd_try(l, ports)) return 0;
    fprintf(stderr, "%s: cannot start lttng-relayd on 127.0.0.1 (see %s.log)\n", TOP_PROG,
            l->relay_dir);
    return TOP_EXIT_LAUNCH;
}

/* A companion program: $ENV, else NAME beside this program (installed:
 * one bindir), else in the build tree (top/ -> SUBDIR/), else on PATH. */
void top_tool_path(const char *name, const char *env, const char *subdir, char *buf, size_t n)
{
    const char *e = getenv(env);
    if (e && *e) {
        snprintf(buf, n, "%s", e);
        return;
    }
    char self[512];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash = len > 0 ? (self[len] = '\0', strrchr(self, '/')) : NULL;
    if (slash) {
        *slash = '\0';
        int k = snprintf(buf, n, "%s/%s", self, name);
        if (k > 0 && (size_t)k < n && access(buf, X_OK) == 0) return;
        k = snprintf(buf, n, "%s/../%s/%s", self, subdir, name);
        if (k > 0 && (size_t)k < n && access(buf, X_OK) == 0) return;
    }
    snprintf(buf, n, "%s", name);
}

/* net://HOST[:CTRL:DATA][/...] -> HOST (brackets kept for IPv6). */
static void relay_host(const char *url, char *host, size_t n)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    size_t len = p[0] == '[' ? strcspn(p, "]") + 1 : strcspn(p, ":/");
    snprintf(host, n, "%.*s", (int)len, p);
}

static int log_open(top_launch *l, const top_options *o)
{
    if (o->cmd_output) {
        /* Opened here, before anything starts: the children append to it,
         * and one that cannot would only _exit(127), read as "CMD not
         * found". */
        snprintf(l->log, sizeof l->log, "%s", o->cmd_output);
        int fd = open(l->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0) {
            fprintf(stderr, "%s: cannot write --cmd-output %s: %s\n", TOP_PROG, l->log,
                    strerror(errno));
            return TOP_EXIT_INTERNAL;
        }
        close(fd);
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(l->log, sizeof l->log, "%s/fjtrace-top-XXXXXX.log", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemps(l->log, 4);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot create %s: %s\n", TOP_PROG, l->log, strerror(errno));
        return TOP_EXIT_LAUNCH;
    }
    close(fd);
    return 0;
}

int top_launch_start(top_launch *l, const top_options *o)
{
    *l = (top_launch){.recorder_status = -1};
    int ports[3] = {0, 0, o->live_port}, rc;
    char session[64], host[256] = "localhost", relay[300], live[32], rec[512];
    snprintf(session, sizeof session, "fjtrace-top-%ld", (long)getpid());
    gethostname(host, sizeof host - 1);
    if ((rc = log_open(l, o))) return rc;
    if (o->relayd) {
        snprintf(relay, sizeof relay, "%s", o->relayd);
    } else {
        if ((rc = relayd_start(l, ports))) return rc;
        snprintf(relay, sizeof relay, "net://127.0.0.1:%d:%d", ports[0], ports[1]);
        snprintf(l->trace_dir, sizeof l->trace_dir, "%s/%s/%s", l->relay_dir, host, session);
    }
    char rhost[256];
    relay_host(relay, rhost, sizeof rhost);
    snprintf(l->live_url, sizeof l->live_url, "net://%s:%d/host/%s/%s", rhost, ports[2], host,
             session);
    /* The live timer: how often the relay gets the buffers' news. */
    long us = (long)(o->interval_s * 1e6 / 4);
    snprintf(live, sizeof live, "--live=%ld", us < 100000 ? 100000 : us > 1000000 ? 1000000 : us);
    top_tool_path("fjtrace-record", "FJTRACE_RECORD", "scripts", rec, sizeof rec);
    int n = 0;
    while (o->cmd[n])
        n++;
    char **argv = calloc((size_t)n + 10, sizeof *argv);
    if (!argv) return TOP_EXIT_INTERNAL;
    int k = 0;
    argv[k++] = rec;
    argv[k++] = "--relayd";
    argv[k++] = relay;
    argv[k++] = live;
    argv[k++] = "--cmd-only"; /* CMD's events, not other programs' of the user */
    if (o->openmp) argv[k++] = "--openmp";
    argv[k++] = "--session-name";
    argv[k++] = session;
    argv[k++] = "--";
    for (int i = 0; i < n; i++)
        argv[k++] = o->cmd[i];
    l->recorder = spawn(argv, l->log);
    free(argv);
    if (l->recorder < 0) {
        fprintf(stderr, "%s: cannot start %s: %s\n", TOP_PROG, rec, strerror(errno));
        l->recorder = 0;
        return TOP_EXIT_LAUNCH;
    }
    return 0;
}

int top_run_wait(const char *prog, const char *arg)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execlp(prog, prog, "--no-progress", arg, (char *)NULL);
        fprintf(stderr, "%s: cannot run %s: %s\n", TOP_PROG, prog, strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

bool top_launch_recorder_done(top_launch *l)
{
    if (l->recorder_status >= 0) return true;
    if (l->recorder <= 0) return true;
    int st;
    if (waitpid(l->recorder, &st, WNOHANG) != l->recorder) return false;
    l->recorder_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return true;
}

void top_launch_signal(top_launch *l, int sig)
{
    if (l->recorder > 0 && l->recorder_status < 0) kill(l->recorder, sig);
}

void top_launch_stop(top_launch *l)
{
    if (l->recorder > 0 && !top_launch_recorder_done(l)) {
        kill(l->recorder, SIGTERM);
        int st = 0;
        reap(l->recorder, &st);
        l->recorder_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    if (l->relayd > 0) {
        kill(l->relayd, SIGTERM);
        reap(l->relayd, &(int){0});
        l->relayd = 0;
    }
}
