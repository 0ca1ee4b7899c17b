/* Tunables of libfj, in one place (after cheetah's rts-config.h). */
#ifndef FJ_CONFIG_H
#define FJ_CONFIG_H

/* Deque capacity (slots), fixed (at most FJ_DEQUE_MAX_CAPACITY): a fork
 * into a full deque runs the child at once. Depth, not width, fills it. */
#define FJ_DEQUE_INITIAL 1024

/* Frames above the shareable capacity that a worker's deque reserves for
 * spawns nested deeper (address space only until used; never shared). A
 * spawn deeper still aborts the process with a message: with 64-byte
 * frames this is far beyond what a thread's stack holds. */
#define FJ_DEQUE_OVERFLOW (1u << 17)

/* Idle workers try this many steal rounds before parking... */
#define FJ_SPIN_ROUNDS 64
/* ...and the last FJ_YIELD_ROUNDS of them sched_yield() between tries. */
#define FJ_YIELD_ROUNDS 16

/* A joiner whose child was stolen and who finds nothing to help with spins
 * this many times (cpu_relax) before each sched_yield(). */
#define FJ_JOIN_SPINS 64

/* A client waiting in fj_wait spins this many times before the futex. */
#define FJ_WAIT_SPINS 2000

/* Upper bound on workers per pool (stats arrays, victim selection). */
#define FJ_MAX_WORKERS 512

/* The time-stamp counter's rate (stamp.c) is measured between two readings
 * of CLOCK_MONOTONIC at least this many ns apart (until then, exec_joined
 * and join_stolen are not emitted: exec and join say no ahead)... */
#define FJ_STAMP_RATE_MIN_NS 100000
/* ...each bracketed by two stamps at most this many ticks apart (else the
 * thread lost the CPU in between, and the pair is taken again): at most
 * 0.5% off at 2.6 GHz over the 100 us. */
#define FJ_STAMP_PAIR_MAX_TICKS 1024
/* Tries at the first pool's creation to take such a pair. */
#define FJ_STAMP_PAIR_TRIES 16

#endif
