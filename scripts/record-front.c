/*
 * fjtrace-record: the front of the recorder (issue 24, item 11).
 *
 * The recorder is a bash script (installed as libexec/fjtrace/fjtrace-record.sh;
 * build/scripts/fjtrace-record.sh in a build tree). SIGUSR1 asks it for a
 * snapshot, but its default action kills, and bash runs its first line (the
 * trap) only 1-30 ms after exec: a SIGUSR1 sent in that window killed the
 * recorder (status 138) and left nothing. This front is what `fjtrace-record`
 * runs: its first act blocks SIGUSR1, SIGINT, SIGTERM and SIGHUP, which it
 * then reads with a signalfd; it starts the script as its child with those
 * signals unblocked and two pipes (FJTRACE_RECORD_CTL_FD, the script's
 * words to the front; FJTRACE_RECORD_REPLY_FD, the front's answers).
 *
 * SIGUSR1 is counted here, and the script learns the count by asking
 * ("count": the front answers the number of requests since it was last
 * asked). The script is sent a SIGUSR1 of its own only to wake it from its
 * wait for CMD, between its "open" (said just before that wait) and its
 * next "count": bash 5.2 can run a trap from inside the parser it re-enters
 * to expand a $( ), and the trap's text is then parsed with that
 * substitution's state ("trap: line 2: unexpected EOF while looking for
 * matching `)'", the request lost and the script ended with status 2: seen
 * once in about 100 SIGUSR1s sent as the script started). The script
 * expands no $( ) between "open" and its wait, nor between that wait and
 * "count"; the signal is sent before the answer to "count", so it reaches
 * the script no later than in its read of that answer, where bash runs the
 * trap itself. While the window is open and requests are unanswered the
 * wake-up is sent again every WAKE_RETRY_MS: a trap that ran just before
 * the wait began leaves the wait asleep otherwise. Pending standard
 * signals coalesce: several SIGUSR1s sent at once may count as one.
 *
 * SIGINT, SIGTERM and SIGHUP are passed on at once (the script
 * traps them from its start, and before that their default action ends it
 * as it ended the recorder before), except one the kernel sent (a
 * terminal's Ctrl-C or hangup): that went to the whole foreground process
 * group, the script included, which must not get it twice. The front exits
 * with the script's status, or dies of the signal that killed the script
 * (a shell sees 128+N either way).
 *
 * What no process can close: a signal that comes between exec and this
 * front's first instruction (the dynamic loader's start, well under a
 * millisecond) still meets the default action. A signal blocked by whoever
 * starts the recorder (pending at exec) is never lost: the mask survives
 * exec, and the signalfd reads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* Where the script lies, relative to the front's own folder (or absolute):
 * meson computes it from bindir and libexecdir. */
#ifndef FJTRACE_RECORD_LIBEXEC
#error "FJTRACE_RECORD_LIBEXEC (the script's folder) must be defined"
#endif
#define SCRIPT_NAME "fjtrace-record.sh"
/* The recorder's own failure: its script is missing (a broken install) or
 * could not be started (a failed fork, pipe, signalfd, setenv, prctl or
 * exec: out of processes, descriptors or memory), each with a message
 * naming the call. Documented with the other codes in the script's --help
 * and the manual page. */
#define EX_NO_SCRIPT 113
/* How often the front wakes the script again while it may be woken and has
 * not asked for its requests: short next to a snapshot's seconds, long
 * next to the microseconds a wait takes to begin. */
#define WAKE_RETRY_MS 20

static const char prog[] = "fjtrace-record";

/* script_path: the script beside the front (a build tree: build/scripts/
 * holds both), else in FJTRACE_RECORD_LIBEXEC (installed). 0, or -1 with a
 * message. `here` receives the front's folder: the script finds its
 * companions (VERSION, the OMPT tool, the Java agent) relative to it. */
static int script_path(char *path, size_t size, char *here, size_t here_size)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "%s: error: cannot read /proc/self/exe: %s\n", prog, strerror(errno));
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) return -1; /* never: /proc/self/exe links to an absolute path */
    *slash = '\0';
    if (snprintf(here, here_size, "%s", self) >= (int)here_size) return -1;
    if (snprintf(path, size, "%s/%s", self, SCRIPT_NAME) >= (int)size) return -1;
    if (access(path, X_OK) == 0) return 0;
    int len = FJTRACE_RECORD_LIBEXEC[0] == '/'
                  ? snprintf(path, size, "%s/%s", FJTRACE_RECORD_LIBEXEC, SCRIPT_NAME)
                  : snprintf(path, size, "%s/%s/%s", self, FJTRACE_RECORD_LIBEXEC, SCRIPT_NAME);
    if (len >= (int)size) return -1;
    if (access(path, X_OK) == 0) return 0;
    fprintf(stderr, "%s: error: its script %s is missing or not executable (a broken install?)\n",
            prog, path);
    return -1;
}

/* die_like STATUS: ends the front as the script ended: the same exit
 * status, or death by the same signal (its default action; a shell then
 * says 128+N). A signal whose default action is not to end the process
 * (or one that leaves a core) gives 128+N. */
static void die_like(int status)
{
    if (WIFEXITED(status)) exit(WEXITSTATUS(status));
    int sig = WTERMSIG(status);
    if (sig == SIGHUP || sig == SIGINT || sig == SIGTERM || sig == SIGUSR1 || sig == SIGUSR2 ||
        sig == SIGPIPE || sig == SIGALRM || sig == SIGKILL) {
        fflush(NULL);
        signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        raise(sig); /* pending while blocked; delivered by the unblock */
        sigprocmask(SIG_UNBLOCK, &one, NULL);
    }
    exit(128 + sig);
}

static const int handled[] = {SIGUSR1, SIGINT, SIGTERM, SIGHUP};
#define NHANDLED (sizeof handled / sizeof handled[0])

/* block_signals: blocks the handled signals and SIGCHLD (the caller's mask
 * before in *inherited) and returns a signalfd reading those the front
 * passes on, and SIGCHLD; -1 with a message. */
static int block_signals(sigset_t *inherited)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    for (size_t i = 0; i < NHANDLED; i++)
        sigaddset(&block, handled[i]);
    sigprocmask(SIG_BLOCK, &block, inherited);
    /* A signal ignored at exec (nohup's SIGHUP, SIGINT of a background job
     * of a script) stays ignored, as bash keeps it for the script: not read
     * here, and unblocked below so that the mask is the caller's again. A
     * blocked signal is queued even when ignored, so it must leave the set. */
    sigset_t read_set;
    sigemptyset(&read_set);
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction sa;
        sigaction(handled[i], NULL, &sa);
        if (sa.sa_handler == SIG_IGN) {
            sigset_t one;
            sigemptyset(&one);
            sigaddset(&one, handled[i]);
            sigprocmask(SIG_UNBLOCK, &one, NULL);
        } else {
            sigaddset(&read_set, handled[i]);
        }
    }
    /* SIGCHLD ignored by the caller would reap the script unseen. */
    signal(SIGCHLD, SIG_DFL);
    sigaddset(&read_set, SIGCHLD);
    int sfd = signalfd(-1, &read_set, SFD_CLOEXEC);
    if (sfd < 0) fprintf(stderr, "%s: error: signalfd: %s\n", prog, strerror(errno));
    return sfd;
}

/* pass_fd: dups FD (the dup survives exec: close-on-exec off) and names it
 * in the environment variable VAR; 0, or -1 with errno. */
static int pass_fd(int fd, const char *var)
{
    char num[32];
    int copy = dup(fd);
    if (copy < 0) return -1;
    snprintf(num, sizeof num, "%d", copy);
    return setenv(var, num, 1);
}

/* start_script: forks the script (path) with argv, its ends of the control
 * and reply pipes and the caller's mask but for the signals read here;
 * returns its pid, or -1 with a message. */
static pid_t start_script(const char *path, char **argv, const int ctl[2], const int reply[2],
                          const sigset_t *inherited)
{
    pid_t front = getpid();
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "%s: error: fork: %s\n", prog, strerror(errno));
        return -1;
    }
    if (child > 0) return child;
    /* The mask is the caller's but for the signals read here: those the
     * script must get (bash cannot unblock a signal). */
    if (pass_fd(ctl[1], "FJTRACE_RECORD_CTL_FD") != 0 ||
        pass_fd(reply[0], "FJTRACE_RECORD_REPLY_FD") != 0) {
        fprintf(stderr, "%s: error: cannot pass the pipes: %s\n", prog, strerror(errno));
        _exit(EX_NO_SCRIPT);
    }
    sigset_t mask = *inherited;
    for (size_t i = 0; i < NHANDLED; i++)
        sigdelset(&mask, handled[i]);
    sigdelset(&mask, SIGCHLD);
    sigprocmask(SIG_SETMASK, &mask, NULL);
    /* The front killed (SIGKILL: nothing to pass on) ends the script as a
     * SIGTERM does: CMD stopped, the session destroyed. (A front gone before
     * this line: the parent is no longer it.) */
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) {
        fprintf(stderr, "%s: error: prctl: %s\n", prog, strerror(errno));
        _exit(EX_NO_SCRIPT);
    }
    if (getppid() != front) _exit(EX_NO_SCRIPT); /* the front is gone: nobody to tell */
    argv[0] = (char *)path;
    execv(path, argv);
    fprintf(stderr, "%s: error: cannot run %s: %s\n", prog, path, strerror(errno));
    _exit(EX_NO_SCRIPT);
}

/* The script's snapshot requests and whether it may be woken for them. */
struct usr1_state {
    unsigned requests; /* SIGUSR1s since the script last asked ("count") */
    int open;          /* between the script's "open" and its next "count" */
    int pass;          /* after "plain": no flight recorder, passed on at once */
};

/* wake: a SIGUSR1 to the script, when it may take one and has a request to
 * learn of. */
static void wake(const struct usr1_state *u, pid_t child)
{
    if ((u->open || u->pass) && u->requests > 0) kill(child, SIGUSR1);
}

/* on_word: one line the script said. "open": it waits for CMD and may be
 * woken. "count": the window is closed, and the requests are its. "plain":
 * no --snapshot, SIGUSR1 has its default action in the script (it ends the
 * recorder), also for the requests held so far. */
static void on_word(struct usr1_state *u, const char *word, int reply_fd, pid_t child)
{
    if (strcmp(word, "plain") == 0) {
        u->pass = 1;
        wake(u, child);
    } else if (strcmp(word, "open") == 0) {
        u->open = 1;
        wake(u, child);
    } else if (strcmp(word, "count") == 0) {
        u->open = 0;
        char line[32];
        int len = snprintf(line, sizeof line, "%u\n", u->requests);
        /* A short or failed write (the script gone): its read ends with EOF,
         * taken for no request. */
        if (write(reply_fd, line, (size_t)len) == len) u->requests = 0;
    }
}

/* read_words: reads what the script said on ctl_fd and acts on each whole
 * line (a line is a few bytes and written at once: a pipe never splits
 * it). 0, or -1 at end of file (the script closed it, or ended). */
static int read_words(struct usr1_state *u, int ctl_fd, int reply_fd, pid_t child)
{
    char buf[256];
    ssize_t n = read(ctl_fd, buf, sizeof buf - 1);
    if (n == 0) return -1;
    if (n < 0) return errno == EINTR || errno == EAGAIN ? 0 : -1;
    buf[n] = '\0';
    for (char *save = NULL, *word = strtok_r(buf, "\n", &save); word;
         word = strtok_r(NULL, "\n", &save))
        on_word(u, word, reply_fd, child);
    return 0;
}

/* reap: the script's end if it ended, as the front's own. */
static void reap(pid_t child, int block)
{
    int status;
    pid_t w;
    while ((w = waitpid(child, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
    }
    if (w == child) die_like(status);
    if (block) exit(EX_NO_SCRIPT); /* no status to end with */
}

/* relay: passes the signals read on sfd to the script (child) until it
 * ends, then ends as it did; SIGUSR1 as the script asks (above). */
_Noreturn static void relay(int sfd, int ctl_fd, int reply_fd, pid_t child)
{
    struct usr1_state u = {0, 0, 0};
    struct pollfd pf[2] = {{.fd = sfd, .events = POLLIN}, {.fd = ctl_fd, .events = POLLIN}};
    for (;;) {
        int timeout = -1;
        if (u.open && u.requests > 0) timeout = WAKE_RETRY_MS;
        int ready = poll(pf, 2, timeout);
        if (ready < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "%s: error: poll: %s\n", prog, strerror(errno));
            reap(child, 1);
        }
        if (ready == 0) wake(&u, child);
        if (pf[1].revents && read_words(&u, ctl_fd, reply_fd, child) != 0)
            pf[1].fd = -1; /* poll skips it from now on */
        if (!(pf[0].revents & POLLIN)) continue;
        struct signalfd_siginfo si;
        if (read(sfd, &si, sizeof si) != (ssize_t)sizeof si) continue;
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap(child, 0);
            continue;
        }
        if (sig == SIGUSR1) {
            u.requests++;
            wake(&u, child);
            continue;
        }
        /* The kernel sends a terminal's SIGINT to the whole foreground
         * process group, and its SIGHUP (the terminal gone) to the group too
         * when the session leader exits: the script, in our group, has it
         * already. But a session leader's own SIGHUP from the kernel (the
         * front started by setsid on a terminal) is the front's alone. */
        if (si.ssi_code == SI_KERNEL && (sig == SIGINT || (sig == SIGHUP && getsid(0) != getpid())))
            continue;
        kill(child, sig);
    }
}

int main(int argc, char **argv)
{
    (void)argc; /* argv is the script's, NULL-terminated */
    /* First of all: from here on, none of the handled signals can end the
     * front. */
    sigset_t inherited;
    int sfd = block_signals(&inherited);
    if (sfd < 0) return EX_NO_SCRIPT;

    char path[PATH_MAX], here[PATH_MAX];
    if (script_path(path, sizeof path, here, sizeof here) != 0) return EX_NO_SCRIPT;
    int ctl[2], reply[2];
    if (pipe2(ctl, O_CLOEXEC) != 0 || pipe2(reply, O_CLOEXEC) != 0) {
        fprintf(stderr, "%s: error: pipe: %s\n", prog, strerror(errno));
        return EX_NO_SCRIPT;
    }
    char num[32];
    snprintf(num, sizeof num, "%ld", (long)getpid());
    if (setenv("FJTRACE_RECORD_PID", num, 1) != 0 || setenv("FJTRACE_RECORD_HERE", here, 1) != 0) {
        fprintf(stderr, "%s: error: setenv: %s\n", prog, strerror(errno));
        return EX_NO_SCRIPT;
    }
    pid_t child = start_script(path, argv, ctl, reply, &inherited);
    if (child < 0) return EX_NO_SCRIPT;
    close(ctl[1]);
    close(reply[0]);
    /* (the script gone, a write to it fails with EPIPE instead of ending
     * the front before it could end as the script did) */
    signal(SIGPIPE, SIG_IGN);
    relay(sfd, ctl[0], reply[1], child);
}
