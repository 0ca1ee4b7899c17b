/* The load map of the calling process fed to a symbols table, the way
 * LTTng-UST's statedump records it (dl_iterate_phdr: base = dlpi_addr +
 * first PT_LOAD, memsz = the span of the PT_LOADs, the build id from the
 * PT_NOTE): for the symbols test and bench, without LTTng. */
#ifndef FJS_SELFMAP_H
#define FJS_SELFMAP_H

#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

typedef struct {
    fjs_table *table;
    int64_t pid;
} selfmap_ctx;

/* The build id in one object's PT_NOTE segments (0 when it has none). */
static size_t selfmap_build_id(const struct dl_phdr_info *info, uint8_t *out, size_t cap)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *n, *desc = name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                n->n_descsz <= cap) {
                memcpy(out, desc, n->n_descsz);
                return n->n_descsz;
            }
            p = desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 0;
}

static int selfmap_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const selfmap_ctx *c = arg;
    const char *path = info->dlpi_name;
    char exe[4096];
    if (!path || !path[0]) { /* the program itself */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0) return 0;
        exe[n] = '\0';
        path = exe;
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        if (ph->p_vaddr < lo) lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > hi) hi = ph->p_vaddr + ph->p_memsz;
    }
    if (hi <= lo) return 0;
    uint64_t base = info->dlpi_addr + lo;
    fjs_map_object(c->table, c->pid, base, hi - lo, path, info->dlpi_addr != 0);
    uint8_t id[64];
    size_t len = selfmap_build_id(info, id, sizeof id);
    if (len) fjs_map_build_id(c->table, c->pid, base, id, len);
    return 0;
}

/* Maps every object of this process into t as process pid. */
static inline void selfmap(fjs_table *t, int64_t pid)
{
    selfmap_ctx c = {t, pid};
    dl_iterate_phdr(selfmap_one, &c);
}

#endif
