/* pf-write: drives the Perfetto writer (viz/perfetto.c) directly with
 * synthetic calls that a recorded fib does not make, for test_perfetto.sh
 * to read back with pf-read: a lock wait inside a task, off-CPU slices on
 * their own track (one begun twice: the second is ignored), two steals' flows
 * (the second forked before the first),
 * a timestamp that goes back (written at the track's last time, with a
 * warning), and more distinct slice names than are interned (the rest are
 * written in full).
 *
 *   pf-write FILE NAMES     writes FILE with NAMES distinct "nK" slices */
#include <stdio.h>
#include <stdlib.h>

#include "perfetto.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: pf-write FILE NAMES\n");
        return 2;
    }
    long names = strtol(argv[2], NULL, 10);
    char err[4200];
    fjv_pf *w = fjv_pf_open(argv[1], err, sizeof err);
    if (!w) {
        fprintf(stderr, "pf-write: %s\n", err);
        return 1;
    }
    fjv_xpool p = {.source = 0, .id = 1, .started = true};
    fjv_xlane l0 = {0}, l1 = {0};
    fja_task_facts task = {.id = 0x7f0012345678, .tree = 0};

    fjv_pf_lane(w, &p, &l0, 0);
    fjv_pf_begin(w, &p, &l0, 0, 1000, &(fjv_pf_slice){.name = "fib", .task = &task, .lock = -1});
    fjv_pf_counter(w, &p, &l0, 0, 1100, 3);
    fjv_pf_begin(w, &p, &l0, 0, 1500, &(fjv_pf_slice){.name = "lock wait", .lock = 7});
    fjv_pf_end(w, &p, &l0, 0, 1600);
    fjv_pf_end(w, &p, &l0, 0, 2000);

    uint64_t flow = fjv_pf_steal(w, &p, &l0, 0, 1200); /* forked at 1200 */
    fjv_pf_begin(w, &p, &l1, 1, 3000,
                 &(fjv_pf_slice){.name = "fib", .task = &task, .flow = flow, .lock = -1});
    fjv_pf_offcpu(w, &p, &l1, 1, 3100, "off-CPU: blocked");
    fjv_pf_offcpu(w, &p, &l1, 1, 3150, "off-CPU: blocked"); /* already off: ignored */
    fjv_pf_oncpu(w, &p, &l1, 1, 3500);
    fjv_pf_oncpu(w, &p, &l1, 1, 3600); /* already on: ignored */
    fjv_pf_offcpu(w, &p, &l1, 1, 3700, "off-CPU: preempted");
    fjv_pf_oncpu(w, &p, &l1, 1, 3800);
    fjv_pf_end(w, &p, &l1, 1, 4000);

    /* a second steal forked earlier than the first: its fork end goes back
     * in time on the flows' sequence (absolute timestamps) */
    flow = fjv_pf_steal(w, &p, &l0, 0, 1050);
    fjv_pf_begin(w, &p, &l1, 1, 4100,
                 &(fjv_pf_slice){.name = "fib", .task = &task, .flow = flow, .lock = -1});
    fjv_pf_end(w, &p, &l1, 1, 4200);

    fjv_pf_begin(w, &p, &l0, 0, 5000, &(fjv_pf_slice){.name = "late", .lock = -1});
    fjv_pf_end(w, &p, &l0, 0, 4900); /* back in time: clamped to 5000 */

    uint64_t ts = 6000;
    for (long i = 0; i < names; i++) {
        char name[32];
        snprintf(name, sizeof name, "n%ld", i);
        fjv_pf_begin(w, &p, &l0, 0, ts++, &(fjv_pf_slice){.name = name, .lock = -1});
        fjv_pf_end(w, &p, &l0, 0, ts++);
    }
    return fjv_pf_close(w, stderr) ? 1 : 0;
}
