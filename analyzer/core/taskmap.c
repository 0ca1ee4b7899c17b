#include "taskmap.h"

#include <stdlib.h>

#define CHUNK (1u << FJA_TASK_CHUNK_BITS)

void fja_taskmap_init(fja_taskmap *m)
{
    *m = (fja_taskmap){.free_head = FJA_TASK_NONE};
}

void fja_taskmap_recycle(fja_taskmap *m)
{
    m->recycle = true;
}

void fja_taskmap_keep_wall(fja_taskmap *m)
{
    m->wall = true;
}

void fja_taskmap_free(fja_taskmap *m)
{
    for (uint32_t i = 0; i < m->nchunks; i++) {
        free(m->chunks[i]);
        if (m->links) free(m->links[i]);
        if (m->walls) free(m->walls[i]);
    }
    free(m->chunks);
    free(m->links);
    free(m->walls);
    free(m->slots);
    free(m->tags);
    *m = (fja_taskmap){0};
}

static uint64_t hash_id(uint64_t x)
{
    /* splitmix64 finalizer: runtime ids are sequential per worker with the
     * worker in the high bits, which a plain mask would cluster. */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint16_t tag_of(uint64_t h)
{
    return (uint16_t)(h >> 48);
}

uint32_t fja_taskmap_find(const fja_taskmap *m, uint64_t id)
{
    if (!m->slots) return FJA_TASK_NONE;
    uint64_t h = hash_id(id);
    uint16_t tag = tag_of(h);
    for (uint64_t i = h & m->mask;; i = (i + 1) & m->mask) {
        uint32_t s = m->slots[i];
        if (!s) return FJA_TASK_NONE;
        /* Only a matching tag costs a (likely cache-missing) record read. */
        if (m->tags[i] == tag && fja_taskmap_get(m, s - 1)->id == id) return s - 1;
    }
}

static void slot_insert(uint32_t *slots, uint16_t *tags, uint64_t mask, uint64_t id, uint32_t n)
{
    uint64_t h = hash_id(id), i = h & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = n + 1;
    tags[i] = tag_of(h);
}

static int index_grow(fja_taskmap *m)
{
    uint64_t len = m->slots ? (m->mask + 1) * 2 : 1024;
    uint32_t *s = calloc(len, sizeof *s);
    uint16_t *t = malloc(len * sizeof *t);
    if (!s || !t) {
        free(s);
        free(t);
        return -1;
    }
    for (uint32_t n = 0; n < m->count; n++)
        if (!fja_taskmap_is_free(m, n)) slot_insert(s, t, len - 1, fja_taskmap_get(m, n)->id, n);
    free(m->slots);
    free(m->tags);
    m->slots = s;
    m->tags = t;
    m->mask = len - 1;
    return 0;
}

static int chunk_add(fja_taskmap *m)
{
    if (m->nchunks == m->cap_chunks) {
        uint32_t cap = m->cap_chunks ? m->cap_chunks * 2 : 16;
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, as meant
        fja_task **c = realloc(m->chunks, cap * sizeof *c);
        if (!c) return -1;
        m->chunks = c;
        if (m->recycle) {
            // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, as meant
            fja_task_link **l = realloc(m->links, cap * sizeof *l);
            if (!l) return -1;
            m->links = l;
        }
        if (m->wall) {
            // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, as meant
            fja_task_clock **w = realloc(m->walls, cap * sizeof *w);
            if (!w) return -1;
            m->walls = w;
        }
        m->cap_chunks = cap;
    }
    fja_task *c = malloc(CHUNK * sizeof *c);
    fja_task_link *l = m->recycle ? malloc(CHUNK * sizeof *l) : NULL;
    fja_task_clock *w = m->wall ? malloc(CHUNK * sizeof *w) : NULL;
    if (!c || (m->recycle && !l) || (m->wall && !w)) {
        free(c);
        free(l);
        free(w);
        return -1;
    }
    m->chunks[m->nchunks] = c;
    if (m->recycle) m->links[m->nchunks] = l;
    if (m->wall) m->walls[m->nchunks] = w;
    m->nchunks++;
    return 0;
}

/* A record number for a new task: a free one first. */
static uint32_t record_take(fja_taskmap *m)
{
    uint32_t n = m->free_head;
    if (n != FJA_TASK_NONE) {
        m->free_head = fja_taskmap_get(m, n)->parent;
        return n;
    }
    if (m->count == UINT32_MAX - 1) return FJA_TASK_NONE;
    if (m->count == m->nchunks * CHUNK && chunk_add(m)) return FJA_TASK_NONE;
    return m->count++;
}

uint32_t fja_taskmap_add(fja_taskmap *m, uint64_t id)
{
    /* Keep the index at most 2/3 full so probes stay short. */
    if ((!m->slots || (uint64_t)(m->live + 1) * 3 > (m->mask + 1) * 2) && index_grow(m))
        return FJA_TASK_NONE;
    uint32_t n = record_take(m);
    if (n == FJA_TASK_NONE) return n;
    m->live++;
    m->made++;
    fja_task *t = fja_taskmap_get(m, n);
    *t = (fja_task){.id = id, .parent = FJA_TASK_NONE, .tree = FJA_TASK_NONE, .worker = -1};
    if (m->recycle)
        *fja_taskmap_link(m, n) =
            (fja_task_link){.done_head = FJA_TASK_NONE, .done_next = FJA_TASK_NONE};
    if (m->wall) *fja_taskmap_wall(m, n) = (fja_task_clock){0};
    slot_insert(m->slots, m->tags, m->mask, id, n);
    return n;
}

/* Whether slot k's entry, whose probe starts at home, may stay where it is
 * once slot hole is emptied: hole is not on its way from home to k. */
static bool probe_keeps(uint64_t hole, uint64_t home, uint64_t k)
{
    return hole <= k ? hole < home && home <= k : hole < home || home <= k;
}

void fja_taskmap_remove(fja_taskmap *m, uint32_t n)
{
    fja_task *t = fja_taskmap_get(m, n);
    uint64_t i = hash_id(t->id) & m->mask;
    while (m->slots[i] != n + 1)
        i = (i + 1) & m->mask;
    /* Linear probing without tombstones: the entries after the hole that
     * probed past it move back into it (Knuth's algorithm R). */
    for (uint64_t k = (i + 1) & m->mask; m->slots[k]; k = (k + 1) & m->mask) {
        uint64_t home = hash_id(fja_taskmap_get(m, m->slots[k] - 1)->id) & m->mask;
        if (probe_keeps(i, home, k)) continue;
        m->slots[i] = m->slots[k];
        m->tags[i] = m->tags[k];
        i = k;
    }
    m->slots[i] = 0;
    *t = (fja_task){.flags = FJA_TF_FREE, .parent = m->free_head, .tree = FJA_TASK_NONE};
    m->free_head = n;
    m->live--;
}

size_t fja_taskmap_bytes(const fja_taskmap *m)
{
    /* Not the wall-clock twins: they stand for the second model the
     * figure never counted either (report-schema.md, model_bytes). */
    size_t per = sizeof(fja_task) + (m->recycle ? sizeof(fja_task_link) : 0);
    return (size_t)m->nchunks * CHUNK * per +
           (m->slots ? (m->mask + 1) * (sizeof(uint32_t) + sizeof(uint16_t)) : 0);
}
