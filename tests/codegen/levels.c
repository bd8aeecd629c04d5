/* SPDX-License-Identifier: MIT */
/*
 * An enum switch with three values, read next to two ordinary globals,
 * and a tail call that depends on it.  Each variant must be the #ifdef
 * build's function for that level.
 *
 * codegen: log_event.multiverse.0 log_event -DSTATIC_LEVEL=QUIET
 * codegen: log_event.multiverse.1 log_event -DSTATIC_LEVEL=NORMAL
 * codegen: log_event.multiverse.2 log_event -DSTATIC_LEVEL=VERBOSE
 */
enum level { QUIET, NORMAL, VERBOSE };

#ifdef STATIC_LEVEL
#define MV
#define level STATIC_LEVEL
#else
#define MV __attribute__((multiverse))
MV enum level level;
#endif

long events, verbose_events;
void trace(int code);

MV void log_event(int code)
{
	if (level == QUIET)
		return;
	events++;
	if (level == VERBOSE) {
		verbose_events += code;
		trace(code);
	}
}
