/* Thin wrappers over the Linux futex syscall (private futexes). */
#ifndef FJ_FUTEX_H
#define FJ_FUTEX_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Sleeps while *word == expected; returns on wake-up, signal or mismatch
 * (callers always re-check their condition). */
static inline void futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

/* Wakes up to n threads sleeping on word. Touches only the address, never
 * the memory, so it is safe on a frame the waiter may already have left. */
static inline void futex_wake(_Atomic uint32_t *word, int n)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
