/* The OMPT tool's own time (ompt/tool.h: fjomp_enter, fjomp_leave) with
 * the thread's real off-CPU ring (perf_event_open on this thread, as the
 * tool opens it): a callback's ticks are wall time, so one during which
 * the thread left the CPU is not counted (under load one such callback
 * held a second, taken out of the tasks' on-CPU work); one that stays on
 * the CPU is. No session is needed: nothing here is recorded. TAP. */
#include <time.h>

#include "../tap.h"
#include "tool.h"

static fjomp_thread me = {.worker = 0};

/* The tool's per-thread state is thread.c's; this test has its own. */
fjomp_thread *fjomp_self(void)
{
    return &me;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000000};
    nanosleep(&ts, NULL);
}

/* A callback that sleeps: switched out and in. */
static void callback_sleeping(void)
{
    fjomp_thread *th = fjomp_enter();
    sleep_ms(20);
    fjomp_leave(th);
}

/* A callback of a few thousand ticks on the CPU; true if counted. A
 * preemption can land in any, so one of many tries must count. */
static bool callback_counted(void)
{
    for (int i = 0; i < 100; i++) {
        uint64_t before = me.tool_ticks;
        fjomp_thread *th = fjomp_enter();
        for (uint64_t until = fj_switches_ticks() + 5000; fj_switches_ticks() < until;)
            ;
        fjomp_leave(th);
        if (me.tool_ticks > before) return true;
    }
    return false;
}

int main(void)
{
    plan_tests(6);
    ok(fj_switches_head(NULL) == 0, "without a ring the head reads 0");
    fj_switches_open((fj_switches_for){.pool = FJOMP_POOL, .worker = 0});
    if (!fj_switches_is_open()) {
        skip(5, "perf_event_open refused here: no ring");
        return exit_status();
    }
    me.ring_head = fj_switches_ring_head();
    ok(me.ring_head != NULL, "an open recording has a ring head");
    uint64_t head = fj_switches_head(me.ring_head);
    sleep_ms(20);
    ok(fj_switches_head(me.ring_head) != head, "a sleep (a switch out, then in) moves the head");
    callback_sleeping();
    ok(me.tool_ticks == 0, "a callback during which the thread slept is not the tool's time (%llu)",
       (unsigned long long)me.tool_ticks);
    ok(callback_counted(), "a callback that stays on the CPU is counted");
    fj_switches_close();
    ok(fj_switches_ring_head() == NULL, "a closed recording has no ring head");
    return exit_status();
}
