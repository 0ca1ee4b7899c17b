/* Recycling task records: the analysis keeps a record only while its task
 * can still be named by an event or still has figures to fold into its
 * parent, so memory follows the tasks under way, not the tasks made.
 *
 * A task's record goes back to its pool's map (taskmap.h) once
 *  - it is finished (its body ran; a counted completer also completed),
 *  - every child of it gave its record back (its subtree's work, span and
 *    counts are folded into it), and
 *  - its parent is finished too: only the parent names a child after the
 *    child is done (join/joined in its body). A counted completer's
 *    completion runs inside the last of its descendants to finish, so it
 *    is over before the second condition holds.
 * Roots and orphans (no parent) keep their records: the result event and
 * the trees name them. A done child whose parent still runs waits in the
 * parent's list of done children until the parent finishes.
 *
 * The model calls these (a child as it links it, a record as the tracker
 * releases it: fja_model_release); they do nothing unless the map
 * recycles. Then
 * the records are no longer all there for --tasks and the subtree
 * pictures, which need every task: their users keep them (the default). */
#ifndef FJA_RECYCLE_H
#define FJA_RECYCLE_H

#include <stdint.h>

#include "model.h"

/* Record parent got a child. */
void fja_recycle_child(fja_pool *p, uint32_t parent);
/* Record n's body or completion ended, and every listener was told: if it
 * is finished, it and its done descendants may give their records back. */
void fja_recycle_settle(fja_pool *p, uint32_t n);

#endif
