/* --tasks FILE: one CSV line per task record, for people (and scripts) who
 * want the decomposition trees themselves rather than their summaries. */
#include <inttypes.h>

#include "report.h"

int fja_report_tasks_csv(FILE *o, const fja_report *r)
{
    fputs("source,pool,root,task,parent,depth,size_hint,children,worker,stolen,completer,"
          "finished,self_ns,subtree_ns\n",
          o);
    for (uint32_t i = 0; i < r->npools; i++) {
        const fja_pool *p = r->pools[i].pool;
        for (uint32_t n = 0; n < p->tasks.count; n++) {
            const fja_task *t = fja_taskmap_get(&p->tasks, n);
            if (t->flags & FJA_TF_FREE) continue; /* a recycling model lists what is left */
            uint64_t root = t->tree != FJA_TASK_NONE ? p->trees[t->tree].root_id : 0;
            uint64_t parent =
                t->parent != FJA_TASK_NONE ? fja_taskmap_get(&p->tasks, t->parent)->id : 0;
            bool finished = fja_task_finished(t);
            fprintf(o,
                    "%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u,%u,%d,%d,%d,%d,%" PRIu64
                    ",%" PRIu64 "\n",
                    p->source, p->id, root, t->id, parent, t->depth, t->size_hint, t->nchildren,
                    t->worker, !!(t->flags & FJA_TF_STOLEN), !!(t->flags & FJA_TF_COMPLETER),
                    finished, t->self_ns, t->subtree_ns);
        }
    }
    return ferror(o) ? -1 : 0;
}
