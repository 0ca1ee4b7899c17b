/* Giving finished tasks' records back (recycle.h). */
#include "recycle.h"

static fja_task_link *link_of(fja_pool *p, uint32_t n)
{
    return fja_taskmap_link(&p->tasks, n);
}

void fja_recycle_child(fja_pool *p, uint32_t parent)
{
    if (p->tasks.recycle) link_of(p, parent)->live_kids++;
}

/* Record c goes; nothing may hold its number any more. */
static void release(fja_pool *p, uint32_t c)
{
    const fja_task *t = fja_taskmap_get(&p->tasks, c);
    /* A steal whose exec was never seen (an inconsistent trace) would
     * still point at the record. */
    if (t->flags & FJA_TF_STOLEN)
        for (uint32_t i = 0; i < p->nworkers; i++)
            if (p->workers[i].stolen_task == c) p->workers[i].stolen_task = FJA_TASK_NONE;
    if (t->parent != FJA_TASK_NONE) link_of(p, t->parent)->live_kids--;
    fja_taskmap_remove(&p->tasks, c);
}

/* n is finished: its done children go. */
static void release_done_children(fja_pool *p, uint32_t n)
{
    fja_task_link *l = link_of(p, n);
    for (uint32_t c = l->done_head; c != FJA_TASK_NONE;) {
        uint32_t next = link_of(p, c)->done_next;
        release(p, c);
        c = next;
    }
    l->done_head = FJA_TASK_NONE;
}

void fja_recycle_settle(fja_pool *p, uint32_t n)
{
    if (!p->tasks.recycle) return;
    /* Each pass: n is finished; if its subtree is complete it goes (its
     * parent finished) or waits in its parent's list, and a parent it
     * leaves without records below may go in turn. */
    while (n != FJA_TASK_NONE) {
        fja_task *t = fja_taskmap_get(&p->tasks, n);
        if (!fja_task_finished(t) || (t->flags & FJA_TF_LISTED)) return;
        release_done_children(p, n);
        if (link_of(p, n)->live_kids || t->parent == FJA_TASK_NONE) return;
        uint32_t par = t->parent;
        if (!fja_task_finished(fja_taskmap_get(&p->tasks, par))) {
            t->flags |= FJA_TF_LISTED;
            link_of(p, n)->done_next = link_of(p, par)->done_head;
            link_of(p, par)->done_head = n;
            return;
        }
        release(p, n);
        n = par;
    }
}
