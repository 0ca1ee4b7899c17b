/* The analysis core's public header: what the reader, the pictures and the
 * command line may use. The core is plain C11; it knows neither
 * babeltrace2 nor Graphviz (docs/architecture.md). */
#ifndef FJA_H
#define FJA_H

#include "analysis.h"
#include "event.h"
#include "json.h"
#include "model.h"
#include "offcpu.h"
#include "outfile.h"
#include "reading.h"
#include "report.h"
#include "tracker.h"

#endif
