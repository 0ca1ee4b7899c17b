/* Creation sites to source lines: the symbols stage of fjtrace-analyze.
 *
 * A site is a return address recorded in a process (fork/submit `site`).
 * Its meaning comes from that process's load map, which the trace carries
 * (lttng_ust_statedump / lttng_ust_dl events, docs/events.md): fed here
 * with fjs_map_*, then fjs_resolve turns (process, address) into binary,
 * function and file:line with elfutils' libdw, checking the binary's build
 * id against the recorded one so that a rebuilt binary gives a warning and
 * never a wrong line. Results are cached per (process, address).
 *
 * This stage knows neither babeltrace2 nor the analysis core: main.c feeds
 * it from the reader and hands its answers to the core. */
#ifndef FJS_SYMBOLS_H
#define FJS_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fjs_table fjs_table;

/* How far a site was resolved. */
typedef enum {
    FJS_LINE,     /* function and file:line from DWARF */
    FJS_SYMBOL,   /* function from the symbol table only (no DWARF line) */
    FJS_OFFSET,   /* stripped code: binary+0xoffset only */
    FJS_REBUILT,  /* the binary's build id differs from the recorded one */
    FJS_NO_FILE,  /* the binary cannot be opened (deleted, moved, unreadable) */
    FJS_UNMAPPED, /* no recorded object of the process contains the address */
    FJS_NO_SITE,  /* address 0: the producer did not record a site */
    FJS_STATUS_COUNT
} fjs_status;

const char *fjs_status_name(fjs_status s);

/* A resolved site. The strings belong to the table and live as long as it;
 * NULL when unknown. offset: the address of the call (site - 1) in the
 * binary's own address space, as `addr2line -e BINARY 0xOFFSET` takes it. */
typedef struct {
    const char *binary;
    const char *function;
    const char *file;
    uint32_t line;
    uint64_t offset;
    fjs_status status;
} fjs_site;

fjs_table *fjs_new(void);
void fjs_free(fjs_table *t);

/* The load map of process pid (a vpid). An object loaded at baddr (the
 * statedump's baddr: the load bias for position-independent code, the
 * first segment's address otherwise) spanning memsz bytes. Returns 0, or -1
 * when out of memory. Later objects at an overlapping address win (dlopen
 * after dlclose). */
int fjs_map_object(fjs_table *t, int64_t pid, uint64_t baddr, uint64_t memsz, const char *path,
                   bool is_pic);
/* The GNU build id recorded for the object of pid at baddr. */
int fjs_map_build_id(fjs_table *t, int64_t pid, uint64_t baddr, const uint8_t *id, size_t len);

/* A site named by its producer (fjtrace:site_name: the JVM agent's sites
 * are numbers, not addresses): site of process pid is function in file at
 * line (file "" and line 0: unknown). Later names of a site win. */
int fjs_map_site_name(fjs_table *t, int64_t pid, uint64_t site, const char *function,
                      const char *file, uint32_t line);

/* Resolves the return address site of process pid. Returns 0, or -1 when
 * out of memory. Cached: a repeated (pid, site) costs one hash lookup. */
int fjs_resolve(fjs_table *t, int64_t pid, uint64_t site, fjs_site *out);

/* Number of processes with a load map. */
size_t fjs_processes(const fjs_table *t);

/* Problems found while resolving, one line per binary ("a.out: rebuilt
 * after recording (build id differs): its sites are shown as binary+offset"),
 * in the order found. i < fjs_nwarnings. */
size_t fjs_nwarnings(const fjs_table *t);
const char *fjs_warning(const fjs_table *t, size_t i);

#endif
