/* The load maps of the recorded processes: a handful of objects each, so
 * plain arrays searched linearly (the per-address cache in symbols.c keeps
 * these searches off the hot path). */
#include "symbols_int.h"

#include <stdlib.h>

void loadmap_free(fjs_loadmap *m)
{
    for (size_t i = 0; i < m->nprocs; i++) {
        free(m->procs[i].objects);
        free(m->procs[i].named);
    }
    free(m->procs);
    *m = (fjs_loadmap){0};
}

fjs_process *loadmap_process(fjs_loadmap *m, int64_t pid, bool create)
{
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].pid == pid) return &m->procs[i];
    if (!create) return NULL;
    if (m->nprocs == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 4;
        fjs_process *p = realloc(m->procs, cap * sizeof *p);
        if (!p) return NULL;
        m->procs = p;
        m->cap = cap;
    }
    m->procs[m->nprocs] = (fjs_process){.pid = pid};
    return &m->procs[m->nprocs++];
}

int loadmap_add(fjs_process *p, const fjs_object *o)
{
    if (p->nobjects == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        fjs_object *a = realloc(p->objects, cap * sizeof *a);
        if (!a) return -1;
        p->objects = a;
        p->cap = cap;
    }
    p->objects[p->nobjects++] = *o;
    return 0;
}

/* The latest object loaded at baddr: build_id events follow their
 * bin_info/dlopen event. */
fjs_object *loadmap_at_base(fjs_process *p, uint64_t baddr)
{
    for (size_t i = p->nobjects; i-- > 0;)
        if (p->objects[i].baddr == baddr) return &p->objects[i];
    return NULL;
}

const fjs_object *loadmap_find(const fjs_process *p, uint64_t addr)
{
    for (size_t i = p->nobjects; i-- > 0;) {
        const fjs_object *o = &p->objects[i];
        if (addr >= o->baddr && addr - o->baddr < o->memsz) return o;
    }
    return NULL;
}

int loadmap_name(fjs_process *p, const fjs_named *n)
{
    if (p->nnamed == p->cap_named) {
        size_t cap = p->cap_named ? 2 * p->cap_named : 16;
        fjs_named *a = realloc(p->named, cap * sizeof *a);
        if (!a) return -1;
        p->named = a;
        p->cap_named = cap;
    }
    p->named[p->nnamed++] = *n;
    return 0;
}

const fjs_named *loadmap_named(const fjs_process *p, uint64_t site)
{
    for (size_t i = p->nnamed; i-- > 0;)
        if (p->named[i].site == site) return &p->named[i];
    return NULL;
}
