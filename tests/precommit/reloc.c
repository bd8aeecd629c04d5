/* SPDX-License-Identifier: MIT */
/* A switch whose initial value is another module's function: a PIE gets
 * it from a relocation when it is loaded, so multiverse-precommit must
 * refuse it (tests/precommit/check.sh). */
#include <multiverse.h>
#include <stdio.h>

MULTIVERSE int (*out)(const char *) = puts;

MULTIVERSE __attribute__((noinline)) int say(const char *s)
{
	return out ? out(s) : 0;
}

int main(void)
{
	return say("reloc") < 0;
}
