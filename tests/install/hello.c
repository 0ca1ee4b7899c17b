/* An external program built against the installed fj.pc: sums 1..n with a
 * fork/join split and checks the answer. */
#include <fj.h>
#include <stdio.h>

struct range {
    long lo, hi, sum;
};

static void sum_task(void *arg)
{
    struct range *r = arg;
    if (r->hi - r->lo <= 1000) {
        for (long i = r->lo; i < r->hi; i++)
            r->sum += i;
        return;
    }
    long mid = r->lo + (r->hi - r->lo) / 2;
    struct range left = {r->lo, mid, 0}, right = {mid, r->hi, 0};
    fj_task t;
    fj_task_init(&t, sum_task, &left);
    fj_fork(&t);
    sum_task(&right);
    fj_join(&t);
    r->sum = left.sum + right.sum;
}

int main(void)
{
    fj_pool *pool;
    if (fj_pool_create(&pool, NULL) != FJ_OK) return 3;
    struct range all = {0, 1000000, 0};
    fj_task t;
    fj_task_init(&t, sum_task, &all);
    fj_invoke(pool, &t);
    printf("sum = %ld\n", all.sum);
    fj_pool_destroy(pool);
    return all.sum == 1000000L * 999999L / 2 ? 0 : 1;
}
