/* Internals of the symbols stage: the load maps (loadmap.c), the binaries
 * opened with libdw (binary.c) and the table tying them together with the
 * per-address cache (symbols.c). */
#ifndef FJS_SYMBOLS_INT_H
#define FJS_SYMBOLS_INT_H

#include "symbols.h"

#define FJS_BUILD_ID_MAX 64

/* One object in a process's load map. */
typedef struct {
    uint64_t baddr, memsz;
    const char *path; /* interned */
    bool is_pic;
    uint8_t build_id[FJS_BUILD_ID_MAX];
    size_t build_id_len; /* 0: none recorded */
} fjs_object;

/* A site named by its producer (fjs_map_site_name). */
typedef struct {
    uint64_t site;
    const char *function, *file; /* interned; file NULL when unknown */
    uint32_t line;
} fjs_named;

typedef struct {
    int64_t pid;
    fjs_object *objects;
    size_t nobjects, cap;
    fjs_named *named;
    size_t nnamed, cap_named;
} fjs_process;

typedef struct {
    fjs_process *procs;
    size_t nprocs, cap;
} fjs_loadmap;

void loadmap_free(fjs_loadmap *m);
fjs_process *loadmap_process(fjs_loadmap *m, int64_t pid, bool create);
int loadmap_add(fjs_process *p, const fjs_object *o);
fjs_object *loadmap_at_base(fjs_process *p, uint64_t baddr);
int loadmap_name(fjs_process *p, const fjs_named *n);
/* The name of site, the latest given first; NULL if none. */
const fjs_named *loadmap_named(const fjs_process *p, uint64_t site);
/* The object containing addr, the latest added first; NULL if none. */
const fjs_object *loadmap_find(const fjs_process *p, uint64_t addr);

/* A binary opened with libdw, shared by every process that maps it. */
typedef struct fjs_binary fjs_binary;

/* The binary at path (opened once, then cached in *list). NULL when out of
 * memory; a binary that cannot be opened is still returned (status). */
fjs_binary *binary_get(fjs_binary **list, const char *path);
void binary_free_all(fjs_binary *list);
/* FJS_NO_FILE when it could not be opened, else FJS_LINE. */
fjs_status binary_status(const fjs_binary *b);
/* Compares the file's build id with a recorded one: true when they match,
 * or when either is unknown (nothing to compare). */
bool binary_build_id_matches(const fjs_binary *b, const uint8_t *id, size_t len);
/* The ELF virtual address of the object's first loadable segment (page
 * aligned): what a position-independent object's baddr corresponds to. */
uint64_t binary_first_vaddr(const fjs_binary *b);
/* Looks vaddr (an address in the file's own address space) up. Fills
 * function, file and line (copies owned by the caller's interner through
 * intern()), and returns FJS_LINE, FJS_SYMBOL or FJS_OFFSET. */
fjs_status binary_lookup(fjs_binary *b, uint64_t vaddr, const char *(*intern)(void *, const char *),
                         void *ictx, const char **function, const char **file, uint32_t *line);

#endif
