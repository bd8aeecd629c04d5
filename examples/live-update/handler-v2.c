/* SPDX-License-Identifier: MIT */
/*
 * Version 2 of the server's request handler, built as handler-v2.so and
 * loaded into the running server by its "update ./handler-v2.so" command.
 * It answers differently and uses the state version 1 built up: the
 * visitor count goes on from where version 1 left it.
 */
#include <stdio.h>
#include <time.h>
#include "handler.h"

/* Marked although nothing here is specialized: a module with Multiverse's
 * records is one whose unloading the runtime sees, and it gives the
 * calls back to the program's own version before the code goes. */
__attribute__((multiverse)) void handle_request(struct state *st, const char *request,
						 char *reply, size_t size)
{
	struct timespec work = { 0, REQUEST_MICROSECONDS * 1000 };
	unsigned long visitor = ++st->served;

	nanosleep(&work, NULL);
	snprintf(reply, size, "v2 Hello, %s! You are visitor %lu.", request, visitor);
}
