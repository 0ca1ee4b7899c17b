/*
 * fj-uts: Unbalanced Tree Search, binomial variant (as UTS's T3 family): the
 * root has B0 children; every other node has M children with probability Q,
 * else none. Each node's randomness comes from hashing its parent's state
 * and its child index (splitmix64 here, not UTS's SHA-1, so node counts
 * differ from published UTS figures; the parallel count is checked against
 * the sequential one). Irregular work for the
 * stealer: a node's children are spread by halving their index range (one
 * fork per split). Size hint: the depth of the children being counted.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MAX_M 64
static long b0 = 20000, m = 8, seed = 7;
static double q = 0.124;

static uint64_t splitmix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static long children_of(uint64_t state, int depth)
{
    if (depth == 0) return b0;
    return (double)(splitmix(state) >> 11) * 0x1.0p-53 < q ? m : 0;
}

struct node {
    uint64_t state;
    int depth;
    long count;
};

static long count_seq(uint64_t state, int depth)
{
    long n = 1, kids = children_of(state, depth);
    for (long i = 0; i < kids; i++)
        n += count_seq(splitmix(state ^ (uint64_t)(i + 1)), depth + 1);
    return n;
}

static long count_par(FJ_CTX_PARAMS, uint64_t state, int depth);

/* Children [lo, hi) of the node (state, depth): a parallel for by halving,
 * so that a node with many children (the root's B0) does not serialise. */
FJ_TASK_4(long, count_kids, uint64_t, state, int, depth, long, lo, long, hi)
{
    if (hi - lo == 0) return 0;
    if (hi - lo == 1)
        return count_par(FJ_CTX_ARGS, splitmix(state ^ (uint64_t)(lo + 1)), depth + 1);
    long mid = lo + (hi - lo) / 2;
    FJ_SPAWN_SIZED(count_kids, depth + 1, state, depth, lo, mid);
    long right = FJ_CALL(count_kids, state, depth, mid, hi);
    return FJ_SYNC(count_kids) + right;
}

static long count_par(FJ_CTX_PARAMS, uint64_t state, int depth)
{
    return 1 + FJ_CALL(count_kids, state, depth, 0, children_of(state, depth));
}

static void node_task(void *arg)
{
    struct node *nd = arg;
    fj_ctx *w = fj_ctx_self();
    nd->count = count_par(w, fj_head(w), nd->state, nd->depth);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: fj-uts [-p P] [--variant seq|par] [--b0 N] [--m M] [--q Q] [--seed S]\n"
            "  binomial tree: root has B0 children (default 20000), others M (default 8,\n"
            "  at most %d) with probability Q (default 0.124, Q*M < 1), seed default 7\n"
            "exit: 0 ok, 1 wrong result, 2 bad usage, 3 runtime error\n",
            MAX_M);
}

static int parse(int argc, char **argv, long *p, int *par)
{
    static const struct option opts[] = {
        {"variant", required_argument, 0, 'v'}, {"b0", required_argument, 0, 'b'},
        {"m", required_argument, 0, 'm'},       {"q", required_argument, 0, 'q'},
        {"seed", required_argument, 0, 's'},    {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},       {0, 0, 0, 0}};
    int c, bad = 0;
    while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
        char *end;
        if (c == 'p')
            bad |= sample_parse_long(optarg, 1, 512, p);
        else if (c == 'b')
            bad |= sample_parse_long(optarg, 0, 1L << 30, &b0);
        else if (c == 'm')
            bad |= sample_parse_long(optarg, 1, MAX_M, &m);
        else if (c == 's')
            bad |= sample_parse_long(optarg, 0, 1L << 62, &seed);
        else if (c == 'q') {
            q = strtod(optarg, &end);
            bad |= *end != '\0' || q < 0 || q * (double)m >= 1.0;
        } else if (c == 'v') {
            *par = strcmp(optarg, "par") == 0;
            bad |= !*par && strcmp(optarg, "seq") != 0;
        } else if (c == 'h') {
            usage(stdout);
            exit(SAMPLE_OK);
        } else if (c == 'V') {
            sample_print_version("fj-uts");
            exit(SAMPLE_OK);
        } else
            bad = 1;
    }
    /* Q*M < 1 keeps the expected size finite; checked after all flags. */
    return bad || optind != argc || q * (double)m >= 1.0;
}

int main(int argc, char **argv)
{
    long p = 0;
    int par = 1;
    if (parse(argc, argv, &p, &par)) {
        usage(stderr);
        return SAMPLE_USAGE;
    }
    uint64_t root = splitmix((uint64_t)seed);
    double t0 = sample_now();
    long expect = count_seq(root, 0);
    double seq_time = sample_now() - t0;
    if (!par) {
        printf("%ld nodes\nelapsed %.3f ms\n", expect, seq_time * 1e3);
        printf("summary variant=seq P=0 elapsed_s=%.6f forks=0 steals=0\n", seq_time);
        return SAMPLE_OK;
    }
    fj_pool *pool = sample_pool_create((int)p);
    struct node r = {root, 0, 0};
    fj_task t;
    fj_task_init(&t, node_task, &r);
    t0 = sample_now();
    fj_invoke(pool, &t);
    double elapsed = sample_now() - t0;
    printf("%ld nodes (sequential: %ld)\nelapsed %.3f ms (sequential %.3f ms)\n", r.count, expect,
           elapsed * 1e3, seq_time * 1e3);
    sample_print_stats(stdout, pool);
    sample_print_summary(stdout, "par", pool, elapsed);
    sample_pool_destroy(pool);
    if (r.count != expect) {
        fprintf(stderr, "fj-uts: WRONG node count %ld, expected %ld\n", r.count, expect);
        return SAMPLE_WRONG;
    }
    return SAMPLE_OK;
}
