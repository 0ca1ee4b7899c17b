#include "taskmap.h"

#include <stdlib.h>

#define CHUNK (1u << 16)

void fja_taskmap_init(fja_taskmap *m)
{
    *m = (fja_taskmap){0};
}

void fja_taskmap_free(fja_taskmap *m)
{
    for (uint32_t i = 0; i < m->nchunks; i++)
        free(m->chunks[i]);
    free(m->chunks);
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
        slot_insert(s, t, len - 1, fja_taskmap_get(m, n)->id, n);
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
        m->cap_chunks = cap;
    }
    m->chunks[m->nchunks] = malloc(CHUNK * sizeof(fja_task));
    if (!m->chunks[m->nchunks]) return -1;
    m->nchunks++;
    return 0;
}

uint32_t fja_taskmap_add(fja_taskmap *m, uint64_t id)
{
    if (m->count == UINT32_MAX - 1) return FJA_TASK_NONE;
    /* Keep the index at most 2/3 full so probes stay short. */
    if ((!m->slots || (uint64_t)(m->count + 1) * 3 > (m->mask + 1) * 2) && index_grow(m))
        return FJA_TASK_NONE;
    if (m->count == m->nchunks * CHUNK && chunk_add(m)) return FJA_TASK_NONE;
    uint32_t n = m->count++;
    fja_task *t = fja_taskmap_get(m, n);
    *t = (fja_task){.id = id, .parent = FJA_TASK_NONE, .tree = FJA_TASK_NONE, .worker = -1};
    slot_insert(m->slots, m->tags, m->mask, id, n);
    return n;
}

size_t fja_taskmap_bytes(const fja_taskmap *m)
{
    return (size_t)m->nchunks * CHUNK * sizeof(fja_task) +
           (m->slots ? (m->mask + 1) * (sizeof(uint32_t) + sizeof(uint16_t)) : 0);
}
