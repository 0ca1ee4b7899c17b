/* The symbols stage on real binaries, without LTTng: this test builds its
 * own process's load map the way LTTng-UST's statedump does
 * (dl_iterate_phdr: base = dlpi_addr + first PT_LOAD, build id from the
 * PT_NOTE), then resolves return addresses taken in itself and in libc
 * with libdw, and checks the build-id guard, the fallbacks and the cache. */
#include "selfmap.h"
#include "symbols.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static fjs_table *table;
static int64_t self_pid;

__attribute__((noinline)) static uint64_t return_address(void)
{
    return (uint64_t)(uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
}

int main(void)
{
    plan_tests(15);
    table = fjs_new();
    require(table);
    self_pid = getpid();
    selfmap(table, self_pid);
    ok(fjs_processes(table) == 1, "one process mapped");

    /* A site in this program, resolved to the line of the call. */
    uint64_t here = return_address();
    const uint32_t here_line = __LINE__ - 1;
    fjs_site s;
    require(fjs_resolve(table, self_pid, here, &s) == 0);
    ok(s.status == FJS_LINE, "own call site resolved to a line (status %s)",
       fjs_status_name(s.status));
    ok(s.file && strstr(s.file, "test_symbols.c"), "file is this source (%s)",
       s.file ? s.file : "NULL");
    ok_eq_u64(s.line, here_line, "line of the call");
    ok(s.function && strcmp(s.function, "main") == 0, "function main (%s)",
       s.function ? s.function : "NULL");
    ok(s.binary && strstr(s.binary, "test-symbols"), "binary is the test program (%s)",
       s.binary ? s.binary : "NULL");

    /* Cached: the same answer, the same strings. */
    fjs_site again;
    fjs_resolve(table, self_pid, here, &again);
    ok(again.file == s.file && again.line == s.line, "cached answer identical");

    /* A shared library: libc's symbol table names the function (Debian's
     * libc has no DWARF unless libc6-dbg is installed). getpid, not an I/O
     * function: ASan interposes those (&fputs is then in libasan). */
    uint64_t in_libc = (uint64_t)(uintptr_t)&getpid + 4;
    fjs_resolve(table, self_pid, in_libc, &s);
    ok(s.binary && strstr(s.binary, "libc.so"), "getpid lies in libc (%s)",
       s.binary ? s.binary : "NULL");
    ok(s.function && strstr(s.function, "getpid"), "and is named by its symbol (%s)",
       s.function ? s.function : "NULL");
    ok(s.status == FJS_LINE || s.status == FJS_SYMBOL, "status line or symbol (%s)",
       fjs_status_name(s.status));

    /* Unknown addresses and a missing site. */
    fjs_resolve(table, self_pid, 0x10, &s);
    ok(s.status == FJS_UNMAPPED && !s.binary, "an address outside every object is unmapped");
    fjs_resolve(table, self_pid, 0, &s);
    ok(s.status == FJS_NO_SITE, "site 0 means no site recorded");

    /* A process whose recorded build id differs: the binary was rebuilt
     * after the recording. Never a line then, and a warning. */
    fjs_table *saved = table;
    table = fjs_new();
    require(table);
    selfmap(table, self_pid);
    for (size_t i = 0; i < 1; i++) {
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        require(n > 0);
        exe[n] = '\0';
        /* re-map the program with a wrong build id, at a new pid */
        uint8_t wrong[20] = {1, 2, 3};
        fjs_site good;
        fjs_resolve(saved, self_pid, here, &good);
        uint64_t base = here - 1 - good.offset; /* PIE: base + vaddr = address */
        fjs_map_object(table, 4242, base, 1u << 30, exe, true);
        fjs_map_build_id(table, 4242, base, wrong, sizeof wrong);
    }
    fjs_resolve(table, 4242, here, &s);
    ok(s.status == FJS_REBUILT && !s.file && s.line == 0, "rebuilt binary: no line (%s)",
       fjs_status_name(s.status));
    ok(fjs_nwarnings(table) == 1 && strstr(fjs_warning(table, 0), "rebuilt"),
       "one warning says it was rebuilt: %s", fjs_nwarnings(table) ? fjs_warning(table, 0) : "");
    ok(s.offset != 0, "the fallback offset is kept (0x%llx)", (unsigned long long)s.offset);
    fjs_free(table);
    fjs_free(saved);
    return exit_status();
}
