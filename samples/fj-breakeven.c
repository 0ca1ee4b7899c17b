/*
 * fj-breakeven: par vs seq break-even of a decomposed pipeline
 * (docs/experiments.md §2). A source of longs in (0, N], a filter that burns Q
 * units of CPU per element and keeps the elements whose burnt hash is even,
 * an empty sink that counts them. The parallel pipeline splits the range
 * with counted completers down to N/(4P) elements per leaf (as the JDK's
 * streams do); C client threads each issue requests with a think time
 * between them. Per-request times are reported as percentiles for the
 * sequential (on the client thread) and the parallel pipeline.
 * --grid sweeps N over 1..10^6 and Q over 1..10^5 in decades and prints the
 * seq/par ratio of the medians per cell (> 1: parallel wins).
 */
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

static long think_ms = 10, clients = 1, requests = 50;
static double cell_seconds = 1.0;
static fj_pool *pool;

static long filter_keeps(long x, long q)
{
    uint64_t h = (uint64_t)x;
    for (long i = 0; i < q; i++) {
        h = h * 6364136223846793005ull + 1442695040888963407ull;
        __asm__ volatile("" : "+r"(h)); /* the burn must not be optimised out */
    }
    return (long)((h >> 17) & 1);
}

static long run_seq(long n, long q)
{
    long kept = 0;
    for (long x = 1; x <= n; x++)
        kept += filter_keeps(x, q);
    return kept;
}

/* One parallel request: its split tree's nodes come from one array. */
struct request {
    struct span *nodes;
    _Atomic long next; /* bump allocator: first free node */
};

/* One node of the parallel pipeline's split tree. */
struct span {
    fj_completer cc;
    struct request *req;
    long lo, hi, q, leaf, kept;
    struct span *kids; /* two, or NULL for a leaf */
};

static void span_done(fj_completer *c, fj_completer *caller)
{
    (void)caller;
    struct span *s = c->user;
    if (s->kids) s->kept = s->kids[0].kept + s->kids[1].kept;
}

static void span_compute(fj_completer *c)
{
    struct span *s = c->user;
    if (s->hi - s->lo <= s->leaf) {
        for (long x = s->lo + 1; x <= s->hi; x++)
            s->kept += filter_keeps(x, s->q);
        fj_completer_try_complete(c);
        return;
    }
    /* Relaxed: only uniqueness of the slots matters; the children are
     * published to other workers by the fork. */
    long at = atomic_fetch_add_explicit(&s->req->next, 2, memory_order_relaxed);
    s->kids = &s->req->nodes[at];
    long mid = s->lo + (s->hi - s->lo) / 2;
    long bounds[3] = {s->lo, mid, s->hi};
    fj_completer_add_pending(c, 2);
    for (int i = 0; i < 2; i++) {
        struct span *k = &s->kids[i];
        *k = (struct span){
            .req = s->req, .lo = bounds[i], .hi = bounds[i + 1], .q = s->q, .leaf = s->leaf};
        fj_completer_init(&k->cc, c, span_compute, span_done, k);
        fj_task_set_size_hint(&k->cc.task, (uint64_t)(k->hi - k->lo));
        fj_completer_fork(&k->cc);
    }
    fj_completer_try_complete(c);
}

static long run_par(long n, long q, struct span *nodes)
{
    struct request req = {nodes, 1};
    long leaf = n / (4L * fj_pool_workers(pool));
    struct span *root = &nodes[0];
    *root = (struct span){.req = &req, .lo = 0, .hi = n, .q = q, .leaf = leaf > 0 ? leaf : 1};
    fj_completer_init(&root->cc, NULL, span_compute, span_done, root);
    fj_task_set_size_hint(&root->cc.task, (uint64_t)n);
    fj_invoke(pool, &root->cc.task);
    return root->kept;
}

/* Halving down to leaf size L gives at most 2N/L + 1 leaves. */
static size_t nodes_needed(long n)
{
    long leaf = n / (4L * fj_pool_workers(pool));
    leaf = leaf > 0 ? leaf : 1;
    return (size_t)(2 * (2 * n / leaf + 1) + 4);
}

/* What one client thread measures. */
struct client {
    long n, q, count;
    int par;
    double *times, deadline;
    long expect;
    int wrong;
};

static void think(void)
{
    struct timespec ts = {think_ms / 1000, (think_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void *client_main(void *arg)
{
    struct client *c = arg;
    struct span *nodes = c->par ? malloc(nodes_needed(c->n) * sizeof(*nodes)) : NULL;
    if (c->par && !nodes) {
        c->wrong = 1;
        return NULL;
    }
    for (c->count = 0; c->count < requests; c->count++) {
        if (c->count > 0 && sample_now() > c->deadline) break;
        double t0 = sample_now();
        long kept = c->par ? run_par(c->n, c->q, nodes) : run_seq(c->n, c->q);
        c->times[c->count] = sample_now() - t0;
        c->wrong |= kept != c->expect;
        think();
    }
    free(nodes);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct dist {
    double min, p50, p90, p99, max;
    long samples;
};

static double pct(const double *v, long n, double p)
{
    long i = (long)(p * (double)(n - 1) + 0.5);
    return v[i];
}

/* Runs C clients of one kind for one (N, Q); returns 0 if results agree. */
static int measure(long n, long q, int par, long expect, struct dist *d)
{
    struct client *cl = calloc((size_t)clients, sizeof(*cl));
    double *all = malloc(sizeof(double) * (size_t)(clients * requests));
    pthread_t *th = malloc(sizeof(pthread_t) * (size_t)clients);
    if (!cl || !all || !th) exit(SAMPLE_RUNTIME);
    double deadline = sample_now() + cell_seconds;
    for (long i = 0; i < clients; i++) {
        cl[i] = (struct client){n, q, 0, par, all + i * requests, deadline, expect, 0};
        if (pthread_create(&th[i], NULL, client_main, &cl[i]) != 0) exit(SAMPLE_RUNTIME);
    }
    long total = 0;
    int wrong = 0;
    for (long i = 0; i < clients; i++) {
        pthread_join(th[i], NULL);
        memmove(all + total, cl[i].times, sizeof(double) * (size_t)cl[i].count);
        total += cl[i].count;
        wrong |= cl[i].wrong;
    }
    qsort(all, (size_t)total, sizeof(double), cmp_double);
    *d = (struct dist){
        all[0], pct(all, total, .5), pct(all, total, .9), pct(all, total, .99), all[total - 1],
        total};
    free(cl);
    free(all);
    free(th);
    return wrong;
}

static void print_dist(const char *label, const struct dist *d)
{
    printf("%-4s %8ld %10.1f %10.1f %10.1f %10.1f %10.1f\n", label, d->samples, d->min * 1e6,
           d->p50 * 1e6, d->p90 * 1e6, d->p99 * 1e6, d->max * 1e6);
}

static int run_one(long n, long q)
{
    long expect = run_seq(n, q);
    struct dist seq, par;
    int wrong = measure(n, q, 0, expect, &seq) | measure(n, q, 1, expect, &par);
    printf("N=%ld Q=%ld P=%d clients=%ld think=%ldms: %ld of %ld kept\n", n, q,
           fj_pool_workers(pool), clients, think_ms, expect, n);
    printf("%-4s %8s %10s %10s %10s %10s %10s  (us per request)\n", "", "samples", "min", "p50",
           "p90", "p99", "max");
    print_dist("seq", &seq);
    print_dist("par", &par);
    printf("seq/par %8s %10.2f %10.2f %10.2f %10.2f %10.2f  (> 1: parallel faster)\n", "",
           seq.min / par.min, seq.p50 / par.p50, seq.p90 / par.p90, seq.p99 / par.p99,
           seq.max / par.max);
    return wrong;
}

/* The break-even table: seq/par of the p50s; '*' marks the front, the
 * first Q (per N) where parallel is at least as fast. Cells whose single
 * sequential request would exceed the cell's time budget are skipped. */
static int run_grid(long max_n, long max_q)
{
    double unit = sample_now();
    run_seq(1000, 1000);
    unit = (sample_now() - unit) / 1e6;
    printf("break-even grid, P=%d, clients=%ld, think %ld ms: seq/par of median request time\n"
           "(> 1: parallel faster; * = break-even front; - = skipped, over --cell-seconds)\n",
           fj_pool_workers(pool), clients, think_ms);
    printf("%9s", "N \\ Q");
    for (long q = 1; q <= max_q; q *= 10)
        printf(" %9ld", q);
    printf("\n");
    int wrong = 0;
    for (long n = 1; n <= max_n; n *= 10) {
        printf("%9ld", n);
        int front_seen = 0;
        for (long q = 1; q <= max_q; q *= 10) {
            if ((double)n * (double)q * unit > cell_seconds) {
                printf(" %9s", "-");
                continue;
            }
            long expect = run_seq(n, q);
            struct dist seq, par;
            wrong |= measure(n, q, 0, expect, &seq) | measure(n, q, 1, expect, &par);
            double r = seq.p50 / par.p50;
            int front = !front_seen && r >= 1.0;
            front_seen |= front;
            printf(" %8.3g%c", r, front ? '*' : ' ');
            fflush(stdout);
        }
        printf("\n");
    }
    return wrong;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: fj-breakeven [-n N] [-q Q] [-p P] [-c CLIENTS] [-r REQUESTS] [--think MS]\n"
            "                    [--grid] [--max-n N] [--max-q Q] [--cell-seconds S]\n"
            "  -n N, -q Q       source size and CPU units per element (default 100, 1000)\n"
            "  -p P             workers (default: $FJ_WORKERS, else online CPUs)\n"
            "  -c CLIENTS       client threads (default 1); -r requests each (default 50)\n"
            "  --think MS       think time between a client's requests (default 10)\n"
            "  --grid           sweep N = 1..max-n and Q = 1..max-q in decades\n"
            "                   (defaults 10^6 and 10^5); each cell and kind bounded by\n"
            "  --cell-seconds S (default 1)\n"
            "exit: 0 ok, 1 wrong result, 2 bad usage, 3 runtime error\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"think", required_argument, 0, 't'},
                                         {"grid", no_argument, 0, 'g'},
                                         {"max-n", required_argument, 0, 'N'},
                                         {"max-q", required_argument, 0, 'Q'},
                                         {"cell-seconds", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    long n = 100, q = 1000, p = 0, max_n = 1000000, max_q = 100000;
    int c, bad = 0, grid = 0;
    while ((c = getopt_long(argc, argv, "n:q:p:c:r:h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'n':
            bad |= sample_parse_long(optarg, 1, 1L << 40, &n);
            break;
        case 'q':
            bad |= sample_parse_long(optarg, 0, 1L << 40, &q);
            break;
        case 'p':
            bad |= sample_parse_long(optarg, 1, 512, &p);
            break;
        case 'c':
            bad |= sample_parse_long(optarg, 1, 1024, &clients);
            break;
        case 'r':
            bad |= sample_parse_long(optarg, 1, 1000000, &requests);
            break;
        case 't':
            bad |= sample_parse_long(optarg, 0, 60000, &think_ms);
            break;
        case 'g':
            grid = 1;
            break;
        case 'N':
            bad |= sample_parse_long(optarg, 1, 1L << 40, &max_n);
            break;
        case 'Q':
            bad |= sample_parse_long(optarg, 1, 1L << 40, &max_q);
            break;
        case 's':
            cell_seconds = strtod(optarg, &end);
            bad |= *end != '\0' || !(cell_seconds > 0);
            break;
        case 'h':
            usage(stdout);
            return SAMPLE_OK;
        case 'V':
            sample_print_version("fj-breakeven");
            return SAMPLE_OK;
        default:
            bad = 1;
        }
    }
    if (bad || optind != argc) {
        usage(stderr);
        return SAMPLE_USAGE;
    }
    pool = sample_pool_create((int)p);
    int wrong = grid ? run_grid(max_n, max_q) : run_one(n, q);
    sample_pool_destroy(pool);
    if (wrong) {
        fprintf(stderr, "fj-breakeven: WRONG: parallel and sequential pipelines disagree\n");
        return SAMPLE_WRONG;
    }
    return SAMPLE_OK;
}
