/* SPDX-License-Identifier: MIT */
/* The function being updated, and the table of the TABLE builds (see
 * redirect.h).  In REDIRECTED builds OLD is a plain multiversed function:
 * the natural mark for one meant to be replaced. */
#include "redirect.h"

MV long N(old)(long x)
{
	return OLD_RESULT(x);
}

/* Not const: the compiler must load the entry on every call. */
long (*N(table)[TABLE_SIZE])(long) = { [HANDLE] = N(old) };
