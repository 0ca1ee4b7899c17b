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
        const fja_pool_totals *p = &r->pools[i].totals;
        fja_task_iter it = fja_task_iter_begin(&r->pools[i]);
        for (fja_task_row t; fja_task_iter_next(&it, &t);)
            fprintf(o,
                    "%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u,%u,%d,%d,%d,%d,%" PRIu64
                    ",%" PRIu64 "\n",
                    p->source, p->id, t.root, t.id, t.parent, t.depth, t.size_hint, t.children,
                    t.worker, t.stolen, t.completer, t.finished, t.self_ns, t.subtree_ns);
    }
    return ferror(o) ? -1 : 0;
}
