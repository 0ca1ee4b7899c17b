/* The last resort against aborts inside libbabeltrace2: packets.h refuses
 * the damage known to make its BT_ASSERTs fire, but a trace can be damaged
 * in other ways it does not check (an event's own 64-bit timestamp, a
 * field length), and the library then calls abort(). abortguard_run runs
 * the decoding with a SIGABRT (and SIGSEGV, SIGBUS: a fault on damaged data
 * in the ctf plugin; SIGTRAP: glib's g_error on an allocation that failed)
 * handler that jumps back out instead, so the
 * analyzer can still say which trace it was reading, report the events it
 * had and exit 3. The library's state is lost at that point: nothing of it
 * may be used or released afterwards (its memory is leaked on purpose). */
#ifndef FJA_ABORTGUARD_H
#define FJA_ABORTGUARD_H

/* Runs fn(arg) and returns its result, or -1 with *aborted set to the
 * signal when it called abort() or faulted (SIGSEGV, SIGBUS, SIGTRAP)
 * inside the library. Threads may each run under their own guard at once (the way
 * back is per thread); a signal in a thread outside any guard kills the
 * process as usual. */
int abortguard_run(int (*fn)(void *), void *arg, int *aborted);
/* In a process forked under a guard (a decoding process, pread.c): the
 * guard's way back is a copy of its parent's stack, so a signal must kill
 * this process as without a guard, for the parent to see it die. */
void abortguard_forget(void);

#endif
