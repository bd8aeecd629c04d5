/* SPDX-License-Identifier: MIT */
/* Built as plugin.so with -fPIC and dlopen'ed by main.c after a commit:
 * a multiversed function that reads the library's switch, calls into the
 * library, and a function main hands to the library's pointer switch;
 * and a way to see where its call site of the library calls. */
#include <stdint.h>
#include <string.h>
#include "mvlib.h"
#include "../../../common/descriptor.h"

__attribute__((multiverse)) int plugin_fn(int x)
{
	return lib_mode ? x - 1 : x - 2;
}

int plugin_calls_lib(int x)
{
	return lib_compute(x) + plugin_fn(x);
}

int plugin_hook(int x)
{
	return x * 7;
}

extern const struct mv_desc_site __start___multiverse_site[]
	__attribute__((visibility("hidden")));
extern const struct mv_desc_site __stop___multiverse_site[]
	__attribute__((visibility("hidden")));

/* Where the plugin's first call site of callee calls now (a direct call
 * or bl), PLUGIN_SITE_INLINED if it holds no call, or NULL. */
void *plugin_site_target(void *callee)
{
	for (const struct mv_desc_site *s = __start___multiverse_site;
	     s < __stop___multiverse_site; s++) {
		const unsigned char *p = mv_desc_site_addr(s);

		if (mv_desc_site_callee(s) != callee)
			continue;
#if defined(__x86_64__)
		int32_t rel;

		if (p[0] == 0x2e || p[0] == 0x67)   /* -fno-plt sites, 6 bytes */
			p++;
		if (p[0] != 0xe8)
			return PLUGIN_SITE_INLINED;
		memcpy(&rel, p + 1, 4);
		return (void *)(p + 5 + rel);
#elif defined(__aarch64__)
		uint32_t insn;

		memcpy(&insn, p, 4);
		if (insn >> 26 != 0x25)
			return PLUGIN_SITE_INLINED;
		return (void *)(p + (int64_t)((int32_t)(insn << 6) >> 6) * 4);
#endif
	}
	return NULL;
}
