/* Temporaries removed on SIGINT/SIGTERM. The analyzer writes outputs to
 * hidden temporaries beside them (outfile.h) and may read a trace from a
 * salvage copy under $TMPDIR (salvage.h); a Ctrl-C or kill in the middle
 * (decoding runs inside libbabeltrace2, which cannot be asked to stop)
 * must leave none of them behind. Each temporary is registered while it
 * exists; the handler removes what is registered, newest first (files
 * before their folder), says so on stderr and dies of the same signal. */
#ifndef FJA_INTERRUPT_H
#define FJA_INTERRUPT_H

#include <sys/types.h>

/* Installs the SIGINT and SIGTERM handlers. Call first thing in main. */
void fja_interrupt_install(void);
/* Registers path (a file, or a folder to rmdir once its registered files
 * are gone) until fja_interrupt_forget(path). -1 when out of memory. */
int fja_interrupt_track(const char *path);
void fja_interrupt_forget(const char *path);
/* Holds SIGINT/SIGTERM back while a temporary is created and registered
 * (they are delivered at fja_interrupt_resume). */
void fja_interrupt_defer(void);
void fja_interrupt_resume(void);
/* A child process doing part of the work (0: none any more): the handler
 * passes the signal on to it and waits for it (it removes its own
 * temporaries) before removing the registered ones. */
void fja_interrupt_child(pid_t pid);
/* In a new child process: forgets the parent's temporaries and child (the
 * parent removes them), so that its handler removes only its own. */
void fja_interrupt_reset(void);

#endif
