/* SPDX-License-Identifier: MIT */
/* The original implementation's API (include/multiverse-luhsra.h), as a
 * program written for it uses it: through <multiverse.h>, with the macro
 * that selects it.  Its records, the calls that take them, the dump
 * without an argument, and -1 for every error. */
// mvflags: -DMULTIVERSE_LUHSRA_API
#include <unistd.h>
#include "check.h"

__attribute__((multiverse)) unsigned char a;
__attribute__((multiverse)) unsigned char b;
__attribute__((multiverse)) signed char level;
__attribute__((multiverse("tracked"))) int tracked;
__attribute__((multiverse)) int (*hook)(int);
int not_a_switch;

/* Two bodies when optimized (a && b is 1 for one of four), in records
 * whose guards cover the four. */
__attribute__((multiverse)) int both(void)
{
	return a && b;
}

__attribute__((multiverse)) int below(void)
{
	return level < -1 ? 7 : 8;
}

__attribute__((multiverse)) int uses_tracked(void)
{
	return tracked ? 5 : 6;
}

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
__attribute__((multiverse)) int call_hook(int x) { return hook(x); }
int plain(void) { return 3; }

static unsigned distinct_bodies(const struct mv_info_fn *fn)
{
	unsigned n = 0;

	for (int i = 0; i < fn->n_mv_functions; i++) {
		int j = 0;

		while (j < i && fn->mv_functions[j].function_body != fn->mv_functions[i].function_body)
			j++;
		n += j == i;
	}
	return n;
}

/* The record whose guards hold for the switches' current values. */
static const struct mv_info_mvfn *matching(const struct mv_info_fn *fn)
{
	for (int i = 0; i < fn->n_mv_functions; i++) {
		const struct mv_info_mvfn *m = &fn->mv_functions[i];
		unsigned j = 0;

		for (; j < m->n_assignments; j++) {
			const struct mv_info_assignment *g = &m->assignments[j];
			unsigned char v = *(unsigned char *)g->variable.info->variable_location;

			if (v < g->lower_bound || v > g->upper_bound)
				break;
		}
		if (j == m->n_assignments)
			return m;
	}
	return NULL;
}

static int reads(const struct mv_info_var *var, const char *fn)
{
	for (const struct mv_info_fn_ref *r = var->functions_head; r; r = r->next)
		if (!strcmp(r->fn->name, fn))
			return 1;
	return 0;
}

/* What multiverse_dump_info() with no argument writes to stderr. */
static void dump_to(char *buf, size_t size)
{
	int fds[2], saved = dup(2);
	ssize_t n;

	CHECK(pipe(fds) == 0);
	fflush(stderr);
	dup2(fds[1], 2);
	close(fds[1]);
	multiverse_dump_info();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = read(fds[0], buf, size - 1);
	buf[n > 0 ? n : 0] = 0;
	close(fds[0]);
}

int main(void)
{
	static char text[1 << 16];

	CHECK_EQ(multiverse_init(), 0);

	struct mv_info_var *va = multiverse_info_var(&a);
	CHECK(va != NULL);
	CHECK(!strcmp(va->name, "a"));
	CHECK(va->variable_location == &a);
	CHECK_EQ(va->variable_width, 1);
	CHECK_EQ(va->flag_signed, 0);
	CHECK_EQ(va->flag_tracked, 0);
	CHECK_EQ(va->flag_bound, 1);
	CHECK(reads(va, "both"));
	CHECK(!reads(va, "below"));
	struct mv_info_var *vt = multiverse_info_var(&tracked);
	CHECK(vt && vt->flag_tracked && !vt->flag_bound && vt->variable_width == 4);
	CHECK(multiverse_info_var(&not_a_switch) == NULL);
	CHECK(multiverse_info_var(both) == NULL);

	struct mv_info_fn *fb = multiverse_info_fn(both);
	CHECK(fb != NULL);
	CHECK(!strcmp(fb->name, "both"));
	CHECK(fb->function_body == (void *)both);
	CHECK(fb->n_mv_functions >= 3 && fb->n_mv_functions <= 4);
#ifdef __OPTIMIZE__
	CHECK_EQ(distinct_bodies(fb), 2);
#endif
	CHECK(fb->active_mvfn == NULL);
	CHECK(fb->patchpoints_head == NULL);
	for (int i = 0; i < fb->n_mv_functions; i++) {
		CHECK_EQ(fb->mv_functions[i].n_assignments, 2);
		for (unsigned j = 0; j < fb->mv_functions[i].n_assignments; j++) {
			const struct mv_info_assignment *g = &fb->mv_functions[i].assignments[j];

			CHECK(g->variable.info == va || g->variable.info == multiverse_info_var(&b));
			CHECK(g->lower_bound <= g->upper_bound && g->upper_bound <= 1);
		}
	}
	for (a = 0; a < 2; a++)
		for (b = 0; b < 2; b++)
			CHECK(matching(fb) != NULL);
	CHECK(multiverse_info_fn(plain) == NULL);
	CHECK(multiverse_info_fn(&not_a_switch) == NULL);
	/* the same record every time, refreshed */
	CHECK(multiverse_info_fn(both) == fb);

	/* Commit through the records. */
	a = 1, b = 1;
	CHECK_EQ(multiverse_commit_info_fn(fb), 1);
	CHECK_EQ(multiverse_is_committed(both), 1);
	CHECK(fb->active_mvfn != NULL && fb->active_mvfn->function_body == matching(fb)->function_body);
	CHECK(fb->active_mvfn->function_body != (void *)both);
	a = 0;
	CHECK_EQ(both(), 1);      /* bound until the next commit */
	CHECK_EQ(multiverse_commit_info_refs(va), 1);
	CHECK_EQ(both(), 0);
	CHECK(fb->active_mvfn && fb->active_mvfn->function_body == matching(fb)->function_body);
	CHECK_EQ(multiverse_revert_info_fn(fb), 1);
	CHECK_EQ(multiverse_is_committed(both), 0);
	CHECK(fb->active_mvfn == NULL);
	CHECK(multiverse_info_fn(both) == fb);  /* the same record every time */
	CHECK_EQ(multiverse_commit_refs(&b), 1);
	CHECK_EQ(multiverse_revert_info_refs(multiverse_info_var(&b)), 1);

	/* A signed switch's bounds, as 32-bit values. */
	struct mv_info_fn *fl = multiverse_info_fn(below);
	int saw_minus_two = 0;
	CHECK(fl != NULL && fl->n_mv_functions > 0);
	for (int i = 0; fl && i < fl->n_mv_functions; i++)
		for (unsigned j = 0; j < fl->mv_functions[i].n_assignments; j++)
			saw_minus_two |= (int32_t)fl->mv_functions[i].assignments[j].lower_bound == -2 ||
				(int32_t)fl->mv_functions[i].assignments[j].upper_bound == -2;
	CHECK(saw_minus_two);
	CHECK(multiverse_info_var(&level)->flag_signed);

	/* A function-pointer switch: n_mv_functions -1, bound to its value. */
	hook = twice;
	struct mv_info_fn *fh = multiverse_info_fn(&hook);
	CHECK(fh != NULL && fh->n_mv_functions == -1 && fh->active_mvfn == NULL);
	CHECK_EQ(multiverse_commit_info_fn(fh), 1);
	CHECK(fh->active_mvfn && fh->active_mvfn->function_body == (void *)twice);
	hook = thrice;
	CHECK_EQ(call_hook(4), 8);              /* bound until the next commit */
	CHECK_EQ(multiverse_revert_info_fn(fh), 1);
	CHECK(fh->active_mvfn == NULL);
	CHECK_EQ(call_hook(4), 12);

	/* Binding a tracked switch (any state above 0 binds, as there), and
	 * the commit all. */
	CHECK_EQ(multiverse_bind(&tracked, 2), 1);
	CHECK_EQ(vt->flag_bound, 1);            /* the record follows at once */
	tracked = 1;
	CHECK(multiverse_commit() >= 1);
	tracked = 0;
	CHECK_EQ(uses_tracked(), 5);            /* bound */
	CHECK(multiverse_revert() >= 1);
	CHECK_EQ(uses_tracked(), 6);
	CHECK_EQ(multiverse_bind(&tracked, 0), 0);
	CHECK_EQ(vt->flag_bound, 0);

	/* Errors are -1, with a message. */
	CHECK_EQ(multiverse_commit_refs(&not_a_switch), -1);
	CHECK(strlen(multiverse_last_error()) > 0);
	CHECK_EQ(multiverse_revert_refs(&not_a_switch), -1);
	CHECK_EQ(multiverse_commit_fn(plain), -1);
	CHECK_EQ(multiverse_revert_fn(NULL), -1);
	CHECK_EQ(multiverse_is_committed(plain), -1);
	CHECK_EQ(multiverse_bind(&not_a_switch, 1), -1);
	CHECK_EQ(multiverse_bind(&tracked, -2), -1);
	CHECK_EQ(multiverse_commit_info_fn(NULL), -1);
	CHECK_EQ(multiverse_commit_info_refs(NULL), -1);

	/* The dump with no argument goes to stderr. */
	dump_to(text, sizeof text);
	CHECK(strstr(text, "function both") != NULL);
	CHECK(strstr(text, "switch a ") != NULL);
	CHECK_DONE();
}
