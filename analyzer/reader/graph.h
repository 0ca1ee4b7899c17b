/* What reader.c and pread.c share to build babeltrace2 graphs. */
#ifndef FJA_GRAPH_H
#define FJA_GRAPH_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const bt_plugin *ctf, *utils;
    const bt_component_class_source *fs;
    const bt_component_class_filter *muxer;
} plugins;

/* Loads the ctf and utils plugins (in a decoding process: pread.h); -1
 * with err set when they are missing. */
int plugins_load(plugins *p, char *err, size_t errlen);

/* One source.ctf.fs per trace directory into srcs[0..ndirs). */
int add_sources(bt_graph *g, const plugins *pl, char *const *dirs, size_t ndirs,
                const bt_component_source **srcs, char *err, size_t errlen);

/* A filter.utils.muxer taking every output port of srcs: its output
 * port, or NULL with err set. */
const bt_port_output *muxer_add(bt_graph *g, const plugins *pl, const bt_component_source **srcs,
                                size_t ndirs, char *err, size_t errlen);

/* A src.ctf.lttng-live following the session at url (wait_for_session:
 * one not there yet is waited for): its output port, or NULL with err
 * set. */
const bt_port_output *live_source_add(bt_graph *g, const plugins *pl, const char *url,
                                      bool wait_for_session, char *err, size_t errlen);

/* babeltrace2's error causes of this thread, innermost first, after what,
 * as one line (and the error is cleared). */
void take_error(char *err, size_t errlen, const char *what);

#endif
