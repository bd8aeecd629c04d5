/* SPDX-License-Identifier: MIT */
/* The new version (see redirect.h): the same body as OLD's but for the
 * result.  Plain C in every build: the update needs no attribute.  In
 * FAR builds this goes into a shared object. */
#include "redirect.h"

long N(new)(long x)
{
	return NEW_RESULT(x);
}
