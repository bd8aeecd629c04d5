/* SPDX-License-Identifier: MIT */
/*
 * The run-time tables: merging descriptors into them, finding records.
 */
#include "internal.h"
#include "sort.h"

struct mv_tables mv;

/* debug.c's record for tools outside the process describes these tables;
 * a static link takes it only if something here refers to it. */
extern const char __multiverse_debug[];
__attribute__((used)) static const void *const keep_debug_record = __multiverse_debug;

/* A new record's key words and its descriptor's index: a module's
 * descriptors are sorted as these, small, and each record is built once,
 * in its sorted place.  (A module's sites come in many short runs: calls
 * to two callees, interleaved.) */
struct order {
	uintptr_t key[2];
	size_t at;
};

/* Where a merge builds a module's records, sorted, before they join the
 * table's: the table's own free end when it is empty. */
struct scratch {
	struct order *order;      /* two halves: the orders and mv_sort's */
	void *records;            /* NULL: the table's end */
};

static void free_scratch(struct scratch *s)
{
	free(s->order);
	free(s->records);
	*s = (struct scratch){ 0 };
}

/*
 * Makes room for n more records in *table, which is never left NULL, and,
 * when it holds records already, the scratch to build them in.  Returns
 * nonzero when out of memory: then nothing may be added.
 */
static int reserve(void *table, size_t used, size_t n, size_t size, struct scratch *s)
{
	void *p;

	*s = (struct scratch){ 0 };
	if (used + n >= SIZE_MAX / 2 / size)
		return -ENOMEM;
	p = realloc(*(void **)table, (used + n + 1) * size);
	if (!p)
		return -ENOMEM;
	*(void **)table = p;
	if (used && !(s->records = malloc((n + 1) * size)))
		return -ENOMEM;
	return 0;
}

/* The orders for sorting n new records, and mv_sort's scratch for them.
 * Frees the scratch when out of memory. */
static int reserve_orders(struct scratch *s, size_t n)
{
	if (n < SIZE_MAX / 4 / sizeof *s->order &&
	    (s->order = malloc(2 * (n + 1) * sizeof *s->order)))
		return 0;
	free_scratch(s);
	return -ENOMEM;
}

/* Sorts the n orders by key, stably (mv_sort's scratch is their second
 * half). */
static void sort_orders(struct scratch *s, size_t n, unsigned words)
{
	if (words == 1)
		mv_sort(s->order, s->order + n, n, sizeof *s->order, 1);
	else
		mv_sort(s->order, s->order + n, n, sizeof *s->order, 2);
}

/* Where the k-th new record is built. */
static void *new_record(void *table, size_t used, size_t size, struct scratch *s, size_t k)
{
	return (char *)(s->records ? s->records : (char *)table + used * size) + k * size;
}

/*
 * The n new records, sorted, join table's used ones, sorted: merged from
 * the back, in place, so that an old record moves at most once, and
 * stably, old records first among equal keys.  Frees the scratch.
 */
static void join_sorted(void *table, size_t used, size_t n, size_t size, unsigned words,
			struct scratch *s)
{
	char *t = table, *add = s->records;
	size_t i = used, j = n, out = used + n;

	while (add && j > 0) {
		if (i > 0 && mv_sort_before(add + (j - 1) * size, t + (i - 1) * size, words))
			memcpy(t + --out * size, t + --i * size, size);
		else
			memcpy(t + --out * size, add + --j * size, size);
	}
	free_scratch(s);
}

/* Each table sorts by the words its records start with (mv_sort). */
_Static_assert(offsetof(struct mv_var, addr) == 0, "vars sort by address");
_Static_assert(offsetof(struct mv_fn, generic) == 0, "functions sort by generic");
_Static_assert(offsetof(struct mv_site, callee) == 0 &&
	       offsetof(struct mv_site, area.addr) == sizeof(uintptr_t),
	       "sites sort by callee, then address");

/*
 * Merging adds a module's records in sorted order and keeps the first
 * record of every address, so that the state of records merged before
 * survives and repeating a merge is harmless.
 */
static int merge_vars(const struct mv_module *m)
{
	size_t k = 0, n = 0, used = mv.n_vars;
	struct scratch tmp;

	if (reserve(&mv.vars, used, m->var_end - m->var, sizeof *mv.vars, &tmp) ||
	    reserve_orders(&tmp, m->var_end - m->var))
		return -ENOMEM;
	for (const struct mv_desc_var *d = m->var; d < m->var_end; d++) {
		unsigned w = d->width;

		if ((w != 1 && w != 2 && w != 4 && w != 8) ||
		    (d->flags & MV_VAR_FNPTR && w != sizeof(void *))) {
			mv_report("switch %s: width %u is not supported; ignored",
				  mv_desc_var_name(d), w);
			continue;
		}
		tmp.order[n++] = (struct order){ { (uintptr_t)mv_desc_var_addr(d) }, d - m->var };
	}
	sort_orders(&tmp, n, 1);
	for (size_t i = 0; i < n; i++) {
		const struct mv_desc_var *d = &m->var[tmp.order[i].at];

		*(struct mv_var *)new_record(mv.vars, used, sizeof *mv.vars, &tmp, i) = (struct mv_var){
			.addr = mv_desc_var_addr(d), .name = mv_desc_var_name(d),
			.width = d->width, .flags = d->flags & MV_VAR_KIND,
			.bound = !(d->flags & MV_VAR_TRACKED),
		};
	}
	join_sorted(mv.vars, used, n, sizeof *mv.vars, 1, &tmp);
	mv.n_vars = used + n;
	for (size_t i = 0; i < mv.n_vars; i++) {
		struct mv_var *v = &mv.vars[i];

		if (k && mv.vars[k - 1].addr == v->addr) {
			if (mv.vars[k - 1].width != v->width || mv.vars[k - 1].flags != v->flags)
				mv_report("switch %s is declared differently in two units; the first declaration wins",
					  v->name);
			if (v->owned_name)
				free((char *)v->name);
			continue;
		}
		mv.vars[k++] = *v;
	}
	mv.n_vars = k;
	/* A switch may outlive the module whose record named it first. */
	for (size_t i = 0; i < mv.n_vars; i++)
		if (!mv.vars[i].owned_name) {
			char *name = strdup(mv.vars[i].name);
			if (!name)
				return -ENOMEM;
			mv.vars[i].name = name;
			mv.vars[i].owned_name = 1;
		}
	return 0;
}

/* A precommitted function's entry (MV_FN_PRECOMMITTED) must hold the
 * jump to its variant: it then counts as written by a commit to that
 * variant, over the compiler's NOP.  The function runs that variant as
 * far as anyone can tell, whatever its entry holds. */
static int capture_precommitted(struct mv_fn *f)
{
	void *body = mv_desc_fn_precommitted_body(f->desc);
	uint8_t jmp[MV_ARCH_ENTRY_LEN];

	if (body)
		f->active = body;
	if (!body || mv_arch_entry_jump(jmp, (uintptr_t)f->entry.addr, (uintptr_t)body) ||
	    memcmp(mv_orig(&f->entry), jmp, MV_ARCH_ENTRY_LEN))
		return -1;
	memcpy(mv_orig(&f->entry), mv_arch_entry_nop, MV_ARCH_ENTRY_LEN);
	f->entry.state = MV_AREA_BRANCH;
	return 0;
}

/* The entry must hold the compiler's NOP before we ever write it (or,
 * precommitted, the jump to its variant).  Again for a precommitted
 * function found stale (commit.c). */
void mv_capture_entry(struct mv_fn *f)
{
	char hex[3 * MV_AREA_MAX];
	void *entry = mv_desc_fn_entry(f->desc);

	if (mv_area_capture(&f->entry, entry, MV_ARCH_ENTRY_LEN)) {
		mv_report("function %s: entry %" MV_PRIaddr " is not readable; it will not be committed",
			  f->name, entry);
	} else if (f->desc->flags & MV_FN_PRECOMMITTED) {
		if (capture_precommitted(f)) {
			f->entry.state = MV_AREA_INVALID;
			f->stale = 1;
			mv_report("function %s: precommitted, but its entry %" MV_PRIaddr " holds %s, "
				  "not the jump to the variant it was precommitted to; it is not changed "
				  "while it does", f->name, entry,
				  mv_hex(hex, mv_orig(&f->entry), MV_ARCH_ENTRY_LEN));
		}
	} else if (memcmp(mv_orig(&f->entry), mv_arch_entry_nop, MV_ARCH_ENTRY_LEN) ||
		   !mv_poke_writable(mv_orig(&f->entry), MV_ARCH_ENTRY_LEN)) {
		f->entry.state = MV_AREA_INVALID;
		mv_report("function %s: entry %" MV_PRIaddr " holds %s, not the patch area; it will not be committed",
			  f->name, entry,
			  mv_hex(hex, mv_orig(&f->entry), MV_ARCH_ENTRY_LEN));
	}
}

/* How much a record says of its function: a declaration (no variants),
 * a plain function's own code, or variants. */
static int says(const struct mv_desc_fn *d)
{
	return !d->n_variants ? 0 : d->flags & MV_FN_PLAIN ? 1 : 2;
}

/* f's record, and what the runtime reads of it often, decoded once */
static void describe(struct mv_fn *f, const struct mv_desc_fn *d)
{
	f->desc = d;
	f->name = mv_desc_fn_name(d);
	f->variants = mv_desc_fn_variants(d);
	f->code = (uintptr_t)mv_desc_fn_entry(d) -
		  (d->flags & MV_FN_ENTRY_AFTER_PAD ? MV_ARCH_PAD_LEN : 0) -
		  (d->flags & MV_FN_ENTRY_AFTER_PAD_NOP ? MV_ARCH_PAD_LEN : 0);
}

static int merge_fns(const struct mv_module *m)
{
	size_t k = 0, n = m->fn_end - m->fn, used = mv.n_fns;
	struct scratch tmp;

	if (reserve(&mv.fns, used, n, sizeof *mv.fns, &tmp) || reserve_orders(&tmp, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		tmp.order[i] = (struct order){ { (uintptr_t)mv_desc_fn_generic(&m->fn[i]) }, i };
	sort_orders(&tmp, n, 1);
	for (size_t i = 0; i < n; i++) {
		const struct mv_desc_fn *d = &m->fn[tmp.order[i].at];

		struct mv_fn *f = new_record(mv.fns, used, sizeof *mv.fns, &tmp, i);
		void *generic = mv_desc_fn_generic(d);

		*f = (struct mv_fn){ .generic = generic, .active = generic };
		describe(f, d);
	}
	join_sorted(mv.fns, used, n, sizeof *mv.fns, 1, &tmp);
	mv.n_fns = used + n;
	for (size_t i = 0; i < mv.n_fns; i++) {
		struct mv_fn *f = &mv.fns[i];

		if (k && mv.fns[k - 1].generic == f->generic) {
			/* A record without variants only declares the function,
			 * and a plain one (MV_FN_PLAIN) says less than one with
			 * variants; nothing was written through either, so the
			 * entry is captured afresh from the better record,
			 * unless a redirect wrote it (the records stay as they
			 * are, stably sorted: the first is the one in use). */
			if (says(mv.fns[k - 1].desc) < says(f->desc) &&
			    !mv.fns[k - 1].redirect && mv.fns[k - 1].entry.state <= MV_AREA_ORIG) {
				describe(&mv.fns[k - 1], f->desc);
				mv.fns[k - 1].entry = (struct mv_area){ 0 };
			}
			continue;
		}
		if (k != i)
			mv.fns[k] = *f;
		k++;
	}
	mv.n_fns = k;
	for (size_t i = 0; i < mv.n_fns; i++)
		if (!mv.fns[i].entry.len) {
			mv_capture_entry(&mv.fns[i]);
			mv_region_capture(&mv.fns[i]);
		}
	return 0;
}

/* Padded sites may have merged that were never read: their regions are
 * made at the next sync (mv_check_region_sites), and a sync after which
 * none is left skips them.  Sites whose callee is not registered keep it
 * set: their run is yet to come. */
static int padded_unread, orphan_sites;

static void set_site(struct mv_site *r, const struct mv_desc_site *d)
{
	*r = (struct mv_site){
		.area = { .addr = mv_desc_site_addr(d), .state = MV_AREA_UNRESOLVED },
		.callee = mv_desc_site_callee(d),
		.pad = d->pad <= MV_INLINE_MAX ? d->pad : 0xff,
		.in_probe_variant = !!(d->flags & MV_SITE_IN_PROBE_VARIANT),
		.precommitted = d->flags & MV_SITE_PRECOMMITTED ?
				1 + !!(d->flags & MV_SITE_PRECOMMITTED_JMP) : 0,
	};
}

struct mv_site *mv_site_make(size_t i)
{
	set_site(&mv.sites[i], mv_site_desc(i));
	mv.index[i] |= MV_SITE_BUILT;
	return &mv.sites[i];
}

/* Whether index entry a sorts before b: by callee, then address. */
static int site_before(uintptr_t a, uintptr_t b)
{
	const struct mv_desc_site *x = mv_entry_desc(a), *y = mv_entry_desc(b);
	uintptr_t xc = (uintptr_t)mv_desc_site_callee(x), yc = (uintptr_t)mv_desc_site_callee(y);

	if (xc != yc)
		return xc < yc;
	return (uintptr_t)mv_desc_site_addr(x) < (uintptr_t)mv_desc_site_addr(y);
}

static int same_site(uintptr_t a, uintptr_t b)
{
	const struct mv_desc_site *x = mv_entry_desc(a), *y = mv_entry_desc(b);

	/* the address first: it differs between neighbours of one callee */
	return mv_desc_site_addr(x) == mv_desc_site_addr(y) &&
	       mv_desc_site_callee(x) == mv_desc_site_callee(y);
}

/* A site's index entry moves, and its record with it if it has one. */
static void move_site(size_t to, size_t from)
{
	mv.index[to] = mv.index[from];
	if (mv.index[from] & MV_SITE_BUILT)
		mv.sites[to] = mv.sites[from];
}

/*
 * Room for n more sites: their index entries, the records they may get,
 * which stay unwritten until built (a large array is mapped, not touched,
 * by malloc), and, when the index holds entries already, the scratch to
 * place the new entries in.  Returns nonzero when out of memory: then
 * nothing may be added.
 */
static int reserve_sites(size_t n, struct scratch *s)
{
	size_t used = mv.n_sites;
	void *p;

	*s = (struct scratch){ 0 };
	if (used + n >= SIZE_MAX / 2 / sizeof *mv.sites)
		return -ENOMEM;
	if (!(p = realloc(mv.sites, (used + n + 1) * sizeof *mv.sites)))
		return -ENOMEM;
	mv.sites = p;
	if (!(p = realloc(mv.index, (used + n + 1) * sizeof *mv.index)))
		return -ENOMEM;
	mv.index = p;
	if (used && !(s->records = malloc((n + 1) * sizeof *mv.index)))
		return -ENOMEM;
	return 0;
}

/*
 * Each callee's rank by address among the functions and switches
 * together, looked up by address in an open-addressed hash table: a
 * binary search per site cost more than placing the entries.
 */
struct callees {
	struct callee { uintptr_t addr; size_t rank; } *slot;
	size_t mask;
};

static size_t callee_slot(const struct callees *c, uintptr_t addr)
{
	size_t i = (size_t)(addr * 0x9e3779b97f4a7c15ull >> 32) & c->mask;

	while (c->slot[i].addr && c->slot[i].addr != addr)
		i = (i + 1) & c->mask;
	return i;
}

static void add_callee(struct callees *c, const void *addr, size_t rank)
{
	size_t i = callee_slot(c, (uintptr_t)addr);

	c->slot[i] = (struct callee){ (uintptr_t)addr, rank };
}

/* Both tables are sorted by address, so the ranks come from one merge.
 * Returns nonzero when out of memory. */
static int rank_callees(struct callees *c)
{
	size_t i = 0, j = 0, n = mv.n_fns + mv.n_vars, size = 16;

	if (n > SIZE_MAX / 4 / sizeof *c->slot)
		return -ENOMEM;
	while (size < 2 * n)
		size *= 2;
	c->mask = size - 1;
	if (!(c->slot = calloc(size, sizeof *c->slot)))
		return -ENOMEM;
	while (i < mv.n_fns || j < mv.n_vars) {
		size_t rank = i + j;

		if (j == mv.n_vars ||
		    (i < mv.n_fns && (uintptr_t)mv.fns[i].generic < (uintptr_t)mv.vars[j].addr))
			add_callee(c, mv.fns[i++].generic, rank);
		else
			add_callee(c, mv.vars[j++].addr, rank);
	}
	return 0;
}

/* Sorts the n entries at r, of one callee, by address (*tmp, grown to
 * hold twice n orders, is the scratch).  mv_sort() picks the sort by
 * cost: the sites of a callee may come in many runs. */
static int sort_group(uintptr_t *r, size_t n, struct order **tmp, size_t *cap)
{
	if (n > *cap) {
		free(*tmp);
		if (n > SIZE_MAX / 4 / sizeof **tmp || !(*tmp = malloc(2 * n * sizeof **tmp)))
			return -ENOMEM;
		*cap = n;
	}
	for (size_t i = 0; i < n; i++)
		(*tmp)[i] = (struct order){ { (uintptr_t)mv_desc_site_addr(mv_entry_desc(r[i])) }, r[i] };
	mv_sort(*tmp, *tmp + n, n, sizeof **tmp, 1);
	for (size_t i = 0; i < n; i++)
		r[i] = (*tmp)[i].at;
	return 0;
}

/* Modules with fewer sites take the general sort (place_sites). */
#define PLACE_MIN_SITES 1024

/*
 * Places a module's site descriptors in their sorted places in the
 * index, at base, without sorting keys.  Its functions and switches are
 * merged already, so each site's callee has a place in their tables,
 * which orders the callees as their addresses do: counting the sites of
 * each place puts every entry where it belongs, in two passes over the
 * descriptors.  Within a callee the entries keep the descriptors' order,
 * which is the code's; a callee whose sites are not in strictly
 * increasing order (a caller the linker moved ahead, to .text.unlikely
 * or .text.startup, or a site listed twice) has them sorted, and sets
 * *unsorted.
 *
 * Returns 1 when the entries are placed; 0, having placed nothing, when
 * the general sort is to take the module: it has too few sites for the
 * table of callees to pay (a C library's 115 calls to two functions),
 * or some callee is in neither table (its module is not registered
 * yet); or -ENOMEM.  *pads is nonzero if any site is padded.
 */
static int place_sites(const struct mv_module *m, uintptr_t *restrict base, int *unsorted,
		       uint32_t *pads)
{
	size_t n = m->site_end - m->site, callees = mv.n_fns + mv.n_vars, cap = 0;
	struct callees table = { 0 };
	/* separate allocations (restrict: then an entry's store need not
	 * reload them): */
	size_t *restrict at = 0;        /* each callee's count, then where its sites start, then end */
	uintptr_t *restrict last = 0;   /* its last site's address, UINTPTR_MAX once out of order */
	uint32_t *restrict group = 0;   /* each site's callee */
	struct order *sorted = 0;
	uint32_t pad = 0;
	int ret = 1;

	*unsorted = 0;
	/* Counting costs a table of every callee, where the sort costs
	 * a few passes over the module's sites. */
	if (n < PLACE_MIN_SITES || n < 4 * callees || !callees || callees >= UINT32_MAX)
		return 0;
	if (rank_callees(&table) || !(at = calloc(callees + 1, sizeof *at)) ||
	    !(last = calloc(callees, sizeof *last)) || !(group = malloc(n * sizeof *group))) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct callee *c = &table.slot[callee_slot(&table, (uintptr_t)mv_desc_site_callee(&m->site[i]))];

		if (!c->addr) {
			ret = 0;
			goto out;
		}
		group[i] = (uint32_t)c->rank;
		at[c->rank + 1]++;
	}
	for (size_t g = 0; g < callees; g++)
		at[g + 1] += at[g];
	for (size_t i = 0; i < n; i++) {
		uint32_t g = group[i];
		uintptr_t addr = (uintptr_t)mv_desc_site_addr(&m->site[i]);

		base[at[g]++] = (uintptr_t)&m->site[i];
		last[g] = addr > last[g] ? addr : UINTPTR_MAX;
		pad |= m->site[i].pad;
	}
	*pads = pad;
	/* at[g] is now where callee g's sites end */
	for (size_t g = 0, from = 0; g < callees; from = at[g++])
		if (last[g] == UINTPTR_MAX) {
			*unsorted = 1;
			if (sort_group(base + from, at[g] - from, &sorted, &cap)) {
				ret = -ENOMEM;
				break;
			}
		}
out:
	free(sorted);
	free(group);
	free(last);
	free(at);
	free(table.slot);
	return ret;
}

/*
 * The n new entries, sorted, join the index's used ones, sorted: merged
 * from the back, in place, so that an old entry (and its record) moves
 * at most once, and stably, old entries first among equal keys.  Frees
 * the scratch.
 */
static void join_sites(size_t used, size_t n, struct scratch *s)
{
	const uintptr_t *add = s->records;
	size_t i = used, j = n, out = used + n;

	while (add && j > 0) {
		if (i > 0 && site_before(add[j - 1], mv.index[i - 1]))
			move_site(--out, --i);
		else
			mv.index[--out] = add[--j];
	}
	free_scratch(s);
}

static int merge_sites(const struct mv_module *m)
{
	size_t k = 0, n = m->site_end - m->site, used = mv.n_sites;
	struct scratch tmp;
	uintptr_t *fresh;
	uint32_t pads = 0;
	int placed, unsorted, twice = 0;

	if (reserve_sites(n, &tmp))
		return -ENOMEM;
	fresh = new_record(mv.index, used, sizeof *mv.index, &tmp, 0);
	placed = place_sites(m, fresh, &unsorted, &pads);
	if (placed < 0) {
		free_scratch(&tmp);
		return -ENOMEM;
	}
	if (!placed) {
		if (reserve_orders(&tmp, n))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			tmp.order[i] = (struct order){
				{ (uintptr_t)mv_desc_site_callee(&m->site[i]),
				  (uintptr_t)mv_desc_site_addr(&m->site[i]) }, i };
		sort_orders(&tmp, n, 2);
		for (size_t i = 0; i < n; i++) {
			fresh[i] = (uintptr_t)&m->site[tmp.order[i].at];
			pads |= m->site[i].pad;
			twice |= i && tmp.order[i].key[1] == tmp.order[i - 1].key[1] &&
				 tmp.order[i].key[0] == tmp.order[i - 1].key[0];
		}
	}
	padded_unread |= !!pads;
	join_sites(used, n, &tmp);
	mv.n_sites = used + n;
	/* Keeps the first entry of each site: a module merged again, or a
	 * site listed twice.  Only an old entry has a record, and it comes
	 * first.  Sites placed into an empty index in strictly increasing
	 * order per callee are unique, and sorted ones that no two keys
	 * share. */
	if (!used && (placed ? !unsorted : !twice))
		return 0;
	for (size_t i = 0; i < mv.n_sites; i++) {
		if (k && same_site(mv.index[k - 1], mv.index[i]))
			continue;
		if (k != i)
			move_site(k, i);
		k++;
	}
	mv.n_sites = k;
	return 0;
}

/* Where the run of sites calling site i's callee ends: the index is
 * sorted by callee, so an exponential search finds it in the log of the
 * run's length, not reading the run's descriptors. */
static size_t run_end(size_t i)
{
	const void *callee = mv_desc_site_callee(mv_site_desc(i));
	size_t in = i, out = mv.n_sites, step = 1;

	while (step < out - in) {
		if (mv_desc_site_callee(mv_site_desc(in + step)) != callee) {
			out = in + step;
			break;
		}
		in += step;
		step *= 2;
	}
	while (out - in > 1) {
		size_t mid = in + (out - in) / 2;

		if (mv_desc_site_callee(mv_site_desc(mid)) == callee)
			in = mid;
		else
			out = mid;
	}
	return out;
}

/*
 * Hands each run of sites to its function or function-pointer switch.  A
 * run whose callee is not registered waits for the module that defines
 * it.  A site is built and checked only when its run is first pointed
 * anywhere, or asked about (mv_check_sites): start-up reads no code, and
 * a module whose functions are never committed costs its index entries
 * only.
 */
void mv_link(void)
{
	for (size_t i = 0; i < mv.n_fns; i++)
		mv.fns[i].n_sites = 0;
	for (size_t i = 0; i < mv.n_vars; i++)
		mv.vars[i].n_sites = 0;
	orphan_sites = 0;
	for (size_t i = 0, j; i < mv.n_sites; i = j) {
		void *callee = mv_desc_site_callee(mv_site_desc(i));
		struct mv_fn *f = mv_find_fn(callee);
		struct mv_var *v = f ? 0 : mv_find_var(callee);
		size_t *site0, *n;

		j = run_end(i);
		if (f) {
			site0 = &f->site0, n = &f->n_sites;
		} else if (v && v->flags & MV_VAR_FNPTR) {
			site0 = &v->site0, n = &v->n_sites;
		} else {
			orphan_sites = 1;
			continue;
		}
		*site0 = i;
		*n = j - i;
		/* a new site, not bound yet (the module's binding batch
		 * failed, or is to come): the switch's probe guards hold no
		 * more until a batch binds it */
		for (size_t k = i; v && v->active && k < j; k++)
			if (mv_site_state_at(k) <= MV_AREA_ORIG)
				v->committed = 0;
	}
	mv_poke_areas_changed();
}

/* Reads, right after a merge, the sites that may get a region (region.c):
 * padded ones, and those of a function with a variant that may fit the
 * call.  Their regions are allocated now, not in a batch. */
void mv_check_region_sites(void)
{
	for (size_t i = 0; i < mv.n_fns; i++) {
		struct mv_fn *f = &mv.fns[i];
		int all = mv_region_may_fit_call(f);

		for (size_t k = f->site0; (all || padded_unread) && k < f->site0 + f->n_sites; k++)
			if ((all || mv_site_desc(k)->pad) &&
			    mv_site_build(k)->area.state == MV_AREA_UNRESOLVED)
				mv_site_resolve(&mv.sites[k], f, f->name);
	}
	for (size_t i = 0; i < mv.n_vars; i++) {
		struct mv_var *v = &mv.vars[i];

		for (size_t k = v->site0; padded_unread && v->flags & MV_VAR_FNPTR &&
					  k < v->site0 + v->n_sites; k++)
			if (mv_site_desc(k)->pad && mv_site_build(k)->area.state == MV_AREA_UNRESOLVED)
				mv_site_resolve(&mv.sites[k], 0, v->name);
	}
	padded_unread = padded_unread && orphan_sites;
}

/* Checks the sites of every run: for the dump and debugfs, which tell
 * every site's state. */
void mv_check_all_sites(void)
{
	for (size_t i = 0; i < mv.n_fns; i++)
		mv_check_sites(mv.fns[i].site0, mv.fns[i].n_sites, &mv.fns[i], mv.fns[i].name,
			       &mv.fns[i].checked);
	for (size_t i = 0; i < mv.n_vars; i++)
		if (mv.vars[i].flags & MV_VAR_FNPTR)
			mv_check_sites(mv.vars[i].site0, mv.vars[i].n_sites, 0, mv.vars[i].name,
				       &mv.vars[i].checked);
}

/* Room, in everything a batch uses, for the tables with m merged, so
 * that no batch needs to allocate (mv_poke_reserve). */
int mv_reserve(const struct mv_module *m)
{
	size_t fns = mv.n_fns + (size_t)(m->fn_end - m->fn);
	size_t vars = mv.n_vars + (size_t)(m->var_end - m->var);
	size_t sites = mv.n_sites + (size_t)(m->site_end - m->site);

	/* every site may get a region (region.c), which is an area too */
	if (mv_poke_reserve(fns + sites * (MV_PLATFORM_REGIONS ? 2 : 1)) ||
	    mv_batch_reserve(fns, vars))
		return -ENOMEM;
	return 0;
}

/* Each kind in turn; a retry after failure merges again harmlessly. */
int mv_merge(const struct mv_module *m)
{
	mv.generation++;
	if (merge_vars(m) || merge_fns(m) || merge_sites(m))
		return -ENOMEM;
	return 0;
}

struct mv_var *mv_find_var(const void *addr)
{
	size_t lo = 0, hi = mv.n_vars;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mv.vars[mid].addr == addr)
			return &mv.vars[mid];
		if ((uintptr_t)mv.vars[mid].addr < (uintptr_t)addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The function a caller of the API names: by its address, or by its
 * code's where the two differ.  A library built by Clang with
 * -fno-semantic-interposition takes its own functions' addresses at
 * their code, where a non-PIE program's PLT entry may be their address
 * (AArch64).  Not a switch's address, which is never a function's. */
struct mv_fn *mv_find_fn_named(const void *p)
{
	struct mv_fn *f = mv_find_fn(p);

	if (f || !p || mv_find_var(p))
		return f;
	for (size_t i = 0; !f && i < mv.n_fns; i++)
		if (mv.fns[i].code == (uintptr_t)p)
			f = &mv.fns[i];
	return f;
}

struct mv_fn *mv_find_fn(const void *generic)
{
	size_t lo = 0, hi = mv.n_fns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mv.fns[mid].generic == generic)
			return &mv.fns[mid];
		if ((uintptr_t)mv.fns[mid].generic < (uintptr_t)generic)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int mv_in_spans(const struct mv_span *spans, size_t n, const void *p)
{
	for (size_t i = 0; i < n; i++)
		if ((uintptr_t)p >= spans[i].lo && (uintptr_t)p < spans[i].hi)
			return 1;
	return 0;
}

/* Drops the records of module m, which is being unloaded: its functions,
 * the switches that live in it, and every site in it, calling into it,
 * or described by it (its index entry points into the module).
 * With m NULL, of memory that is freed while its module stays (the
 * kernel's init sections): the functions whose generic lies in spans.
 * Order is kept, so the tables stay sorted. */
void mv_forget(const struct mv_module *m, const struct mv_span *spans, size_t n)
{
	size_t k = 0;

	mv.generation++;
	for (size_t i = 0; i < mv.n_vars; i++) {
		if (mv_in_spans(spans, n, mv.vars[i].addr)) {
			free((char *)mv.vars[i].name);
			continue;
		}
		mv.vars[k++] = mv.vars[i];
	}
	mv.n_vars = k;
	k = 0;
	for (size_t i = 0; i < mv.n_fns; i++) {
		if (!(m && mv.fns[i].desc >= m->fn && mv.fns[i].desc < m->fn_end) &&
		    !mv_in_spans(spans, n, mv.fns[i].generic)) {
			mv.fns[k++] = mv.fns[i];
			continue;
		}
		free(mv.fns[i].pristine);
	}
	mv.n_fns = k;
	k = 0;
	for (size_t i = 0; i < mv.n_sites; i++) {
		const struct mv_desc_site *d = mv_site_desc(i);
		struct mv_site *s = mv_site_if_built(i);

		if (!(m && d >= m->site && d < m->site_end) &&
		    !mv_in_spans(spans, n, mv_desc_site_addr(d)) &&
		    !mv_in_spans(spans, n, mv_desc_site_callee(d))) {
			move_site(k++, i);
			continue;
		}
		if (s)
			mv_region_free(s);
	}
	mv.n_sites = k;
	mv_poke_forget(spans, n);
}
