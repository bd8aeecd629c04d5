/* SPDX-License-Identifier: MIT */
/* What commit made of the call sites of the C library's multiversed
 * functions: one line per function, "name sites pad-bytes call inlined
 * copied skipped" (multiverse_info_site(): a call to a variant, its body
 * in the call itself, a copy in the site's padding).  Linked dynamically,
 * so that the whole libc.so is there, committed before main. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <multiverse.h>

int main(void)
{
	char *text = NULL, *line, *save = NULL, name[64];
	size_t len = 0;
	void *fn;
	FILE *f = open_memstream(&text, &len);

	multiverse_dump_info(f);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned n[5] = { 0 }, i, pad = 0;
		const struct mv_info_site *s;

		if (sscanf(line, "function %63s at %p", name, &fn) != 2)
			continue;
		for (i = 0; (s = multiverse_info_site(fn, i)); i++) {
			n[s->holds]++;
			pad += s->pad;
		}
		printf("%s %u %u %u %u %u %u\n", name, i, pad, n[MULTIVERSE_SITE_CALL],
			n[MULTIVERSE_SITE_INLINED], n[MULTIVERSE_SITE_COPIED], n[MULTIVERSE_SITE_SKIPPED]);
	}
	free(text);
	return 0;
}
