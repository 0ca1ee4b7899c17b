/* A small TAP (Test Anything Protocol) producer for the C tests, in the
 * style of babeltrace2's tests/lib/tap: each check is one `ok` line whose
 * text says what must hold; diagnostics are `#` lines. meson runs the tests
 * with `protocol: 'tap'` and counts every check.
 *
 *     plan_tests(3);                          // or no plan and done_testing()
 *     ok(x > 0, "x is positive");
 *     ok_eq_u64(forks, 88, "fib(10) forks F(11)-1 tasks");
 *     skip(1, "no second pool on one core");
 *     return exit_status();                   // or: return done_testing();
 *
 * Checks run on the main thread only (the counters are plain ints).
 * Descriptions take printf formats. The TAP stream is stdout, line
 * buffered so that a crash loses no check already made. */
#ifndef FJ_TAP_H
#define FJ_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_planned = -1; /* -1: no plan yet */
static int tap_run;
static int tap_failed;

static inline void tap_line_buffered(void)
{
    static bool done;
    if (!done) setvbuf(stdout, NULL, _IOLBF, 0);
    done = true;
}

/* Announces how many checks follow. */
static inline void plan_tests(int n)
{
    tap_line_buffered();
    tap_planned = n;
    printf("1..%d\n", n);
}

/* Nothing to check here (say why); exits 0, meson counts a skip. */
static inline void plan_skip_all(const char *why)
{
    tap_line_buffered();
    printf("1..0 # SKIP %s\n", why);
    exit(0);
}

static inline void tap_vdiag(const char *fmt, va_list ap)
{
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
}

/* A diagnostic line (`# ...`): context for a reader, not a check. */
__attribute__((format(printf, 1, 2))) static inline void diag(const char *fmt, ...)
{
    tap_line_buffered();
    va_list ap;
    va_start(ap, fmt);
    tap_vdiag(fmt, ap);
    va_end(ap);
}

static inline void tap_vresult(bool pass, const char *fmt, va_list ap)
{
    tap_line_buffered();
    tap_run++;
    if (!pass) tap_failed++;
    printf("%sok %d - ", pass ? "" : "not ", tap_run);
    vprintf(fmt, ap);
    printf("\n");
}

__attribute__((format(printf, 5, 6))) static inline bool
tap_ok(bool pass, const char *file, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(pass, fmt, ap);
    va_end(ap);
    if (!pass) diag("  failed at %s:%d: %s", file, line, expr);
    return pass;
}

__attribute__((format(printf, 7, 8))) static inline bool
tap_ok_eq_u64(unsigned long long got, unsigned long long expected, const char *file, int line,
              const char *got_expr, const char *expected_expr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(got == expected, fmt, ap);
    va_end(ap);
    if (got != expected) {
        diag("  failed at %s:%d: %s == %s", file, line, got_expr, expected_expr);
        diag("       got: %llu", got);
        diag("  expected: %llu", expected);
    }
    return got == expected;
}

__attribute__((format(printf, 7, 8))) static inline bool
tap_ok_eq_i64(long long got, long long expected, const char *file, int line, const char *got_expr,
              const char *expected_expr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(got == expected, fmt, ap);
    va_end(ap);
    if (got != expected) {
        diag("  failed at %s:%d: %s == %s", file, line, got_expr, expected_expr);
        diag("       got: %lld", got);
        diag("  expected: %lld", expected);
    }
    return got == expected;
}

__attribute__((format(printf, 8, 9))) static inline bool
tap_ok_near(double got, double expected, double eps, const char *file, int line,
            const char *got_expr, const char *expected_expr, const char *fmt, ...)
{
    bool pass = got - expected <= eps && expected - got <= eps; /* false on NaN */
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(pass, fmt, ap);
    va_end(ap);
    if (!pass) {
        diag("  failed at %s:%d: %s == %s within %g", file, line, got_expr, expected_expr, eps);
        diag("       got: %.9g", got);
        diag("  expected: %.9g", expected);
    }
    return pass;
}

/* One check: COND must hold; the rest is printf arguments saying what. */
#define ok(cond, ...) tap_ok((cond) ? true : false, __FILE__, __LINE__, #cond, __VA_ARGS__)
/* GOT must equal EXPECTED (unsigned); prints both on failure. */
#define ok_eq_u64(got, expected, ...)                                                              \
    tap_ok_eq_u64((unsigned long long)(got), (unsigned long long)(expected), __FILE__, __LINE__,   \
                  #got, #expected, __VA_ARGS__)
/* GOT must equal EXPECTED (signed); prints both on failure. */
#define ok_eq_i64(got, expected, ...)                                                              \
    tap_ok_eq_i64((long long)(got), (long long)(expected), __FILE__, __LINE__, #got, #expected,    \
                  __VA_ARGS__)
/* GOT must be within EPS of EXPECTED; prints both on failure. */
#define ok_near(got, expected, eps, ...)                                                           \
    tap_ok_near((double)(got), (double)(expected), (eps), __FILE__, __LINE__, #got, #expected,     \
                __VA_ARGS__)

/* N checks that cannot run here, each counted as skipped, with the reason. */
static inline void skip(int n, const char *why)
{
    tap_line_buffered();
    for (int i = 0; i < n; i++)
        printf("ok %d # SKIP %s\n", ++tap_run, why);
}

/* Stops the whole test: what follows cannot run (e.g. setup failed). */
__attribute__((format(printf, 1, 2), noreturn)) static inline void bail_out(const char *fmt, ...)
{
    tap_line_buffered();
    va_list ap;
    va_start(ap, fmt);
    printf("Bail out! ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    exit(1);
}

/* The setup step COND must hold, or the test bails out (e.g. an allocation
 * or a pool the checks need). Not a check: it prints nothing when it holds. */
#define require(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) bail_out("%s:%d: setup failed: %s", __FILE__, __LINE__, #cond);               \
    } while (0)

/* 0 when every check passed and the plan (if any) was kept, else 1. */
static inline int exit_status(void)
{
    if (tap_planned >= 0 && tap_run != tap_planned) {
        diag("planned %d checks but ran %d", tap_planned, tap_run);
        return 1;
    }
    if (tap_failed) diag("%d of %d checks failed", tap_failed, tap_run);
    return tap_failed ? 1 : 0;
}

/* Ends a test that had no plan: prints it now (the number of checks run). */
static inline int done_testing(void)
{
    if (tap_planned < 0) {
        tap_line_buffered();
        tap_planned = tap_run;
        printf("1..%d\n", tap_run);
    }
    return exit_status();
}

#endif
