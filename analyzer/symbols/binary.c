/* One binary (program or shared library) opened with elfutils' libdwfl, as
 * an offline module: its DWARF is found in the file itself or in a
 * separate debug file (.gnu_debuglink, or /usr/lib/debug/.build-id/xx/...
 * by build id: dwfl_standard_find_debuginfo), and addresses are looked up
 * in the file's own address space. Opened once per path. */
#include "symbols_int.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct fjs_binary {
    struct fjs_binary *next;
    char *path;
    Dwfl *dwfl; /* NULL when the file could not be opened */
    Dwfl_Module *mod;
    GElf_Addr bias; /* module address = file vaddr + bias */
    uint64_t first_vaddr;
    const unsigned char *build_id; /* owned by libdwfl */
    int build_id_len;
};

/* Where separate debug files are looked for: next to the binary, in its
 * .debug/ folder, and under /usr/lib/debug (by path and .build-id). */
static char *debuginfo_path = NULL;

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* Page-aligned address of the first PT_LOAD: the statedump's baddr of a
 * position-independent object is the load bias plus this (0 in practice). */
static uint64_t first_load_vaddr(Elf *elf)
{
    size_t n = 0;
    if (elf_getphdrnum(elf, &n) != 0) return 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
            return ph.p_vaddr & ~(uint64_t)(ph.p_align > 1 ? ph.p_align - 1 : 0);
    }
    return 0;
}

static void binary_open(fjs_binary *b)
{
    /* A load map names any path: a FIFO there would block the open for
     * ever, a device never end. Only regular files are read. */
    struct stat st;
    if (stat(b->path, &st) || !S_ISREG(st.st_mode)) return;
    b->dwfl = dwfl_begin(&offline_callbacks);
    if (!b->dwfl) return;
    b->mod = dwfl_report_offline(b->dwfl, b->path, b->path, -1);
    dwfl_report_end(b->dwfl, NULL, NULL);
    Elf *elf = b->mod ? dwfl_module_getelf(b->mod, &b->bias) : NULL;
    if (!elf) {
        dwfl_end(b->dwfl);
        b->dwfl = NULL;
        b->mod = NULL;
        return;
    }
    b->first_vaddr = first_load_vaddr(elf);
    GElf_Addr id_vaddr;
    b->build_id_len = dwfl_module_build_id(b->mod, &b->build_id, &id_vaddr);
    if (b->build_id_len < 0) b->build_id_len = 0;
}

fjs_binary *binary_get(fjs_binary **list, const char *path)
{
    for (fjs_binary *b = *list; b; b = b->next)
        if (strcmp(b->path, path) == 0) return b;
    fjs_binary *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->path = strdup(path);
    if (!b->path) {
        free(b);
        return NULL;
    }
    binary_open(b);
    b->next = *list;
    *list = b;
    return b;
}

void binary_free_all(fjs_binary *list)
{
    while (list) {
        fjs_binary *next = list->next;
        if (list->dwfl) dwfl_end(list->dwfl);
        free(list->path);
        free(list);
        list = next;
    }
}

fjs_status binary_status(const fjs_binary *b)
{
    return b->dwfl ? FJS_LINE : FJS_NO_FILE;
}

bool binary_build_id_matches(const fjs_binary *b, const uint8_t *id, size_t len)
{
    if (!len || !b->build_id_len) return true;
    return (size_t)b->build_id_len == len && memcmp(b->build_id, id, len) == 0;
}

uint64_t binary_first_vaddr(const fjs_binary *b)
{
    return b->first_vaddr;
}

#define MAX_SCOPES 64

/* The function scopes (subprograms and inlined subroutines) under die that
 * contain pc, outermost first, found depth first through the DIEs whose
 * ranges hold pc (dwarf_haspc). dwarf_getscopes finds nothing in the
 * artificial compile units of an LTO build, which this walk handles.
 * Returns the number of scopes stored in out. */
static int function_scopes(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *out, int n)
{
    Dwarf_Die child;
    if (n >= MAX_SCOPES || dwarf_child(die, &child) != 0) return n;
    do {
        int tag = dwarf_tag(&child);
        bool function = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
        if (!function && tag != DW_TAG_lexical_block) continue;
        if (dwarf_haspc(&child, pc) != 1) continue;
        if (function) out[n++] = child;
        return function_scopes(&child, pc, out, n);
    } while (dwarf_siblingof(&child, &child) == 0);
    return n;
}

/* An inlined copy names its function through DW_AT_abstract_origin. */
static const char *scope_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    return dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
}

/* A typed task's body (FJ_TASK_1(RT, name, ...) { body }) is the program's
 * code in a function libfj names FJ_BODY_PREFIX name, inlined into the task
 * function name (runtime/include/fj_fast.h, FJ__TASK). */
#define FJ_BODY_PREFIX "fj__body_"

static bool task_body(const char *name)
{
    return strncmp(name, FJ_BODY_PREFIX, strlen(FJ_BODY_PREFIX)) == 0;
}

/* libfj's own inline functions (fj_fork, fj_join: runtime/include/fj_fast.h)
 * and any helper of its API prefix: their code inlined into the program is
 * not the program's creation site, the call to them is. A task's body is
 * the program's. */
static bool libfj_inline(Dwarf_Die *die)
{
    const char *name = scope_name(die);
    return dwarf_tag(die) == DW_TAG_inlined_subroutine && name && strncmp(name, "fj_", 3) == 0 &&
           !task_body(name);
}

/* The program's name of a function scope: a task's body is its task's. */
static const char *user_name(Dwarf_Die *die)
{
    const char *name = scope_name(die);
    return name && task_body(name) ? name + strlen(FJ_BODY_PREFIX) : name;
}

/* The declaration a function scope is named by: an inlined copy's
 * abstract origin, then an out-of-class definition's specification (the
 * declaration inside its class or namespace); the scope itself when it
 * has neither. A bounded chain: a damaged one ends the walk. */
static Dwarf_Die *declaration_of(Dwarf_Die *die, Dwarf_Die *mem)
{
    Dwarf_Die *d = die;
    for (int i = 0; i < 4; i++) {
        Dwarf_Attribute attr;
        Dwarf_Die next;
        if (!dwarf_attr(d, DW_AT_abstract_origin, &attr) &&
            !dwarf_attr(d, DW_AT_specification, &attr))
            break;
        if (!dwarf_formref_die(&attr, &next)) break;
        *mem = next;
        d = mem;
    }
    return d;
}

static bool qualifies(int tag)
{
    return tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
           tag == DW_TAG_union_type;
}

/* name qualified by the namespaces and classes its declaration lies in
 * (C++: "work::Sorter<int>::fib", the class's name with its template
 * arguments as the compiler wrote it), in buf; name itself when there are
 * none (C) or the chain of scopes is not found (an LTO unit's, or buf too
 * small). */
static const char *qualified(Dwarf_Die *scope, const char *name, char *buf, size_t n)
{
    Dwarf_Die mem, *chain = NULL;
    int nchain = dwarf_getscopes_die(declaration_of(scope, &mem), &chain);
    size_t len = 0;
    for (int i = nchain - 1; i >= 1; i--) {
        if (!qualifies(dwarf_tag(&chain[i]))) continue;
        const char *q = dwarf_diename(&chain[i]);
        int w = snprintf(buf + len, n - len, "%s::", q ? q : "(anonymous namespace)");
        if (w < 0 || (size_t)w >= n - len) {
            len = 0;
            break;
        }
        len += (size_t)w;
    }
    free(chain);
    if (!len) return name;
    int w = snprintf(buf + len, n - len, "%s", name);
    return w < 0 || (size_t)w >= n - len ? name : buf;
}

/* Where the inlined subroutine die was called from: its DW_AT_call_file
 * (an index in its compile unit's file table) and DW_AT_call_line. */
static const char *call_site(Dwarf_Die *die, Dwarf_Die *cu, int *line)
{
    Dwarf_Attribute attr;
    Dwarf_Word file = 0, l = 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (!dwarf_attr(die, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &file) != 0 ||
        !dwarf_attr(die, DW_AT_call_line, &attr) || dwarf_formudata(&attr, &l) != 0 ||
        dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || file >= nfiles)
        return NULL;
    *line = (int)l;
    return dwarf_filesrc(files, file, NULL, NULL);
}

/* The function around addr, and, when addr lies in libfj code inlined into
 * the program (fj_fork is a public inline function), the program's line
 * that called it: fills *file and *line then. The innermost function names
 * itself: fib_split inlined into fib_naive is fib_split. */
/* The compile unit holding addr. dwfl_module_addrdie finds it through
 * .debug_aranges or the units' ranges; clang 14's DWARF 5 units (no
 * aranges, ranges through DW_FORM_rnglistx) are not found that way with
 * elfutils 0.188, so the units are then scanned for a function containing
 * addr. *bias: module address - DWARF address. */
static Dwarf_Die *cu_of(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die *mem, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);
    if (cu) return cu;
    Dwarf *dw = dwfl_module_getdwarf(mod, bias);
    Dwarf_Off off = 0, next;
    size_t hsize;
    Dwarf_Die scopes[MAX_SCOPES];
    while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        if (dwarf_offdie(dw, off + hsize, mem) && function_scopes(mem, addr - *bias, scopes, 0) > 0)
            return mem;
        off = next;
    }
    return NULL;
}

/* The function around addr in compile unit cu, and, when addr lies in
 * libfj code inlined into the program (fj_fork is a public inline
 * function), the program's line that called it: fills *file and *line then.
 * The innermost function names itself: fib_split inlined into fib_naive is
 * fib_split; a C++ one with its namespaces and classes (qualified, in buf).
 */
static const char *dwarf_function(Dwarf_Die *cu, Dwarf_Addr pc, const char **file, int *line,
                                  char *buf, size_t n)
{
    Dwarf_Die scopes[MAX_SCOPES];
    int nscopes = function_scopes(cu, pc, scopes, 0);
    int k = nscopes - 1;
    while (k > 0 && libfj_inline(&scopes[k]))
        k--;
    if (k < nscopes - 1) *file = call_site(&scopes[k + 1], cu, line);
    const char *name = k >= 0 ? user_name(&scopes[k]) : NULL;
    return name ? qualified(&scopes[k], name, buf, n) : NULL;
}

/* The line of pc: libdwfl's lookup, else the unit's own line table. */
static const char *line_of(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die *cu, Dwarf_Addr pc,
                           int *line)
{
    Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
    if (l) return dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
    Dwarf_Line *dl = cu ? dwarf_getsrc_die(cu, pc) : NULL;
    if (!dl || dwarf_lineno(dl, line) != 0) return NULL;
    return dwarf_linesrc(dl, NULL, NULL);
}

/* C++'s demangler (libstdc++, the C++ ABI's __cxa_demangle), for the names
 * compilers leave mangled: ELF symbols, and gcc's outlined OpenMP task
 * functions (their DWARF name is the mangled one with "._omp_fn.N"). */
// NOLINTNEXTLINE(bugprone-reserved-identifier): the C++ ABI's own name, declared for C
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

/* name readable: a mangled C++ name ("_Z...", up to the suffix a compiler
 * appended: "._omp_fn.0", ".cold", ".isra.0") demangled, the suffix kept,
 * in buf; name itself otherwise (C, or not a name the demangler reads). */
static const char *demangled(const char *name, char *buf, size_t n)
{
    if (strncmp(name, "_Z", 2) != 0) return name;
    const char *suffix = strchr(name, '.');
    size_t len = suffix ? (size_t)(suffix - name) : strlen(name);
    char mangled[1024];
    if (len >= sizeof mangled) return name;
    memcpy(mangled, name, len);
    mangled[len] = '\0';
    int status = -1;
    char *plain = __cxa_demangle(mangled, NULL, NULL, &status);
    int w = plain && status == 0 ? snprintf(buf, n, "%s%s", plain, suffix ? suffix : "") : -1;
    free(plain);
    return w < 0 || (size_t)w >= n ? name : buf;
}

/* The ELF symbol containing addr, only when addr lies inside its size: a
 * stripped binary's nearest exported symbol would name the wrong code. */
static const char *symbol_function(Dwfl_Module *mod, Dwarf_Addr addr)
{
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    if (!name || GELF_ST_TYPE(sym.st_info) != STT_FUNC || off >= sym.st_size) return NULL;
    return name;
}

fjs_status binary_lookup(fjs_binary *b, uint64_t vaddr, const char *(*intern)(void *, const char *),
                         void *ictx, const char **function, const char **file, uint32_t *line)
{
    *function = *file = NULL;
    *line = 0;
    if (!b->mod) return FJS_NO_FILE;
    Dwarf_Addr addr = vaddr + b->bias;
    const char *src = NULL, *fn = NULL;
    int lineno = 0;
    Dwarf_Die mem;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = cu_of(b->mod, addr, &mem, &bias);
    char qname[512];
    if (cu) fn = dwarf_function(cu, addr - bias, &src, &lineno, qname, sizeof qname);
    if (!src) src = line_of(b->mod, addr, cu, addr - bias, &lineno);
    if (!fn) fn = symbol_function(b->mod, addr);
    char plain[1024];
    if (fn) *function = intern(ictx, demangled(fn, plain, sizeof plain));
    if (src && lineno > 0) {
        *file = intern(ictx, src);
        *line = (uint32_t)lineno;
        return FJS_LINE;
    }
    return fn ? FJS_SYMBOL : FJS_OFFSET;
}
