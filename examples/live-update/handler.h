/* SPDX-License-Identifier: MIT */
/*
 * What the server and every version of its request handler share.  A new
 * version is compiled against this header and must keep it: Multiverse
 * moves calls to the new code, never data, so the new code works on the
 * state the old one built up, in the layout the old one used.
 */
#ifndef HANDLER_H
#define HANDLER_H

#include <stddef.h>

/* Kept by the server, passed to each call: it outlives every version. */
struct state {
	_Atomic unsigned long served;   /* requests answered, by any version */
};

/* Answers one request with a line (no newline) in reply.  Each version
 * defines it under this name; the server looks it up with dlsym(). */
void handle_request(struct state *st, const char *request, char *reply, size_t size);

/* A request takes a while, as one that waits for a disk or a database
 * would: calls are in progress whenever the handler is replaced. */
#define REQUEST_MICROSECONDS 100

#endif
