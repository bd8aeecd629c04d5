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
			mv_report("switch %s: width %u is not supported; ignored", d->name, w);
			continue;
		}
		tmp.order[n++] = (struct order){ { (uintptr_t)d->addr }, d - m->var };
	}
	sort_orders(&tmp, n, 1);
	for (size_t i = 0; i < n; i++) {
		const struct mv_desc_var *d = &m->var[tmp.order[i].at];

		*(struct mv_var *)new_record(mv.vars, used, sizeof *mv.vars, &tmp, i) = (struct mv_var){
			.addr = d->addr, .name = d->name, .width = d->width, .flags = d->flags,
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

/* The entry must hold the compiler's NOP before we ever write it. */
static void capture_entry(struct mv_fn *f)
{
	char hex[3 * MV_AREA_MAX];

	if (mv_area_capture(&f->entry, f->desc->entry, MV_ARCH_ENTRY_LEN)) {
		mv_report("function %s: entry %" MV_PRIaddr " is not readable; it will not be committed",
			  f->desc->name, f->desc->entry);
	} else if (memcmp(mv_orig(&f->entry), mv_arch_entry_nop, MV_ARCH_ENTRY_LEN) ||
		   !mv_poke_writable(mv_orig(&f->entry), MV_ARCH_ENTRY_LEN)) {
		f->entry.state = MV_AREA_INVALID;
		mv_report("function %s: entry %" MV_PRIaddr " holds %s, not the patch area; it will not be committed",
			  f->desc->name, f->desc->entry,
			  mv_hex(hex, mv_orig(&f->entry), MV_ARCH_ENTRY_LEN));
	}
}

/* How much a record says of its function: a declaration (no variants),
 * a plain function's own code, or variants. */
static int says(const struct mv_desc_fn *d)
{
	return !d->n_variants ? 0 : d->flags & MV_FN_PLAIN ? 1 : 2;
}

static int merge_fns(const struct mv_module *m)
{
	size_t k = 0, n = m->fn_end - m->fn, used = mv.n_fns;
	struct scratch tmp;

	if (reserve(&mv.fns, used, n, sizeof *mv.fns, &tmp) || reserve_orders(&tmp, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		tmp.order[i] = (struct order){ { (uintptr_t)m->fn[i].generic }, i };
	sort_orders(&tmp, n, 1);
	for (size_t i = 0; i < n; i++) {
		const struct mv_desc_fn *d = &m->fn[tmp.order[i].at];

		*(struct mv_fn *)new_record(mv.fns, used, sizeof *mv.fns, &tmp, i) = (struct mv_fn){
			.generic = d->generic, .desc = d, .active = d->generic,
		};
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
				mv.fns[k - 1].desc = f->desc;
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
			capture_entry(&mv.fns[i]);
			mv_region_capture(&mv.fns[i]);
		}
	return 0;
}

static void set_site(struct mv_site *r, const struct mv_desc_site *d)
{
	*r = (struct mv_site){
		.area = { .addr = d->site, .state = MV_AREA_UNRESOLVED },
		.callee = d->callee,
		.pad = d->pad <= MV_INLINE_MAX ? d->pad : 0xff,
		.in_probe_variant = !!(d->flags & MV_SITE_IN_PROBE_VARIANT),
	};
}

/*
 * Each callee's rank by address among the functions and switches
 * together, looked up by address in an open-addressed hash table: a
 * binary search per site cost more than building the records.
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

/* Sorts the n records at r, of one callee, by address (*tmp, grown to
 * hold them, is the scratch).  mv_sort() picks the sort by cost: the
 * sites of a callee may come in many runs. */
static int sort_group(struct mv_site *r, size_t n, struct mv_site **tmp, size_t *cap)
{
	if (n > *cap) {
		free(*tmp);
		if (!(*tmp = malloc(n * sizeof **tmp)))
			return -ENOMEM;
		*cap = n;
	}
	mv_sort(r, *tmp, n, sizeof *r, 2);
	return 0;
}

/* Modules with fewer sites take the general sort (place_sites). */
#define PLACE_MIN_SITES 1024

/*
 * Builds a module's site records in their sorted places, at base,
 * without sorting keys.  Its functions and switches are merged already,
 * so each site's callee has a place in their tables, which orders the
 * callees as their addresses do: counting the sites of each place puts
 * every record where it belongs, in two passes over the descriptors.
 * Within a callee the records keep the descriptors' order, which is the
 * code's; a callee whose sites are not in strictly increasing order (a
 * caller the linker moved ahead, to .text.unlikely or .text.startup, or
 * a site listed twice) has them sorted, and sets *unsorted.
 *
 * Returns 1 when the records are built; 0, having built nothing, when
 * the general sort is to take the module: it has too few sites for the
 * table of callees to pay (a C library's 115 calls to two functions),
 * or some callee is in neither table (its module is not registered
 * yet); or -ENOMEM.
 */
static int place_sites(const struct mv_module *m, struct mv_site *restrict base, int *unsorted)
{
	size_t n = m->site_end - m->site, callees = mv.n_fns + mv.n_vars, cap = 0;
	struct callees table = { 0 };
	/* separate allocations (restrict: then a record's stores need not
	 * reload them, 4 instructions a site fewer): */
	size_t *restrict at = 0;        /* each callee's count, then where its sites start, then end */
	uintptr_t *restrict last = 0;   /* its last site's address, UINTPTR_MAX once out of order */
	uint32_t *restrict group = 0;   /* each site's callee */
	struct mv_site *sorted = 0;
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
		const struct callee *c = &table.slot[callee_slot(&table, (uintptr_t)m->site[i].callee)];

		if (!c->addr) {
			ret = 0;
			goto out;
		}
		group[i] = (uint32_t)c->rank;
		at[group[i] + 1]++;
	}
	for (size_t g = 0; g < callees; g++)
		at[g + 1] += at[g];
	for (size_t i = 0; i < n; i++) {
		uint32_t g = group[i];
		uintptr_t addr = (uintptr_t)m->site[i].site;

		set_site(&base[at[g]++], &m->site[i]);
		last[g] = addr > last[g] ? addr : UINTPTR_MAX;
	}
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

static int merge_sites(const struct mv_module *m)
{
	size_t k = 0, n = m->site_end - m->site, used = mv.n_sites;
	struct scratch tmp;
	int placed, unsorted;

	if (reserve(&mv.sites, used, n, sizeof *mv.sites, &tmp))
		return -ENOMEM;
	placed = place_sites(m, new_record(mv.sites, used, sizeof *mv.sites, &tmp, 0), &unsorted);
	if (placed < 0) {
		free_scratch(&tmp);
		return -ENOMEM;
	}
	if (!placed && reserve_orders(&tmp, n))
		return -ENOMEM;
	if (!placed) {
		for (size_t i = 0; i < n; i++)
			tmp.order[i] = (struct order){
				{ (uintptr_t)m->site[i].callee, (uintptr_t)m->site[i].site }, i };
		sort_orders(&tmp, n, 2);
		for (size_t i = 0; i < n; i++)
			set_site(new_record(mv.sites, used, sizeof *mv.sites, &tmp, i),
				 &m->site[tmp.order[i].at]);
	}
	join_sorted(mv.sites, used, n, sizeof *mv.sites, 2, &tmp);
	mv.n_sites = used + n;
	/* Keeps the first record of each site: a module merged again, or a
	 * site listed twice.  Sites placed into empty tables in strictly
	 * increasing order per callee are unique. */
	if (!used && placed && !unsorted)
		return 0;
	for (size_t i = 0; i < mv.n_sites; i++) {
		struct mv_site *s = &mv.sites[i];

		if (k && mv.sites[k - 1].callee == s->callee && mv.sites[k - 1].area.addr == s->area.addr)
			continue;
		if (k != i)
			mv.sites[k] = *s;
		k++;
	}
	mv.n_sites = k;
	return 0;
}

/*
 * Hands each run of sites to its function or function-pointer switch.  A
 * run whose callee is not registered waits for the module that defines
 * it.  A site is checked only when its run is first pointed anywhere, or
 * asked about (mv_check_sites): start-up reads no code, and a module
 * whose functions are never committed costs its records only.
 */
void mv_link(void)
{
	for (size_t i = 0; i < mv.n_fns; i++)
		mv.fns[i].n_sites = 0;
	for (size_t i = 0; i < mv.n_vars; i++)
		mv.vars[i].n_sites = 0;
	for (size_t i = 0, j; i < mv.n_sites; i = j) {
		void *callee = mv.sites[i].callee;
		struct mv_fn *f = mv_find_fn(callee);
		struct mv_var *v = f ? 0 : mv_find_var(callee);
		size_t *site0, *n;

		for (j = i; j < mv.n_sites && mv.sites[j].callee == callee; j++)
			;
		if (f) {
			site0 = &f->site0, n = &f->n_sites;
		} else if (v && v->flags & MV_VAR_FNPTR) {
			site0 = &v->site0, n = &v->n_sites;
		} else {
			continue;
		}
		*site0 = i;
		*n = j - i;
		/* a new site, not bound yet (the module's binding batch
		 * failed, or is to come): the switch's probe guards hold no
		 * more until a batch binds it */
		for (size_t k = i; v && v->active && k < j; k++)
			if (mv_site_state(&mv.sites[k]) <= MV_AREA_ORIG)
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

		for (size_t k = f->site0; k < f->site0 + f->n_sites; k++)
			if ((all || mv.sites[k].pad) && mv.sites[k].area.state == MV_AREA_UNRESOLVED)
				mv_site_resolve(&mv.sites[k], f, f->desc->name);
	}
	for (size_t i = 0; i < mv.n_vars; i++) {
		struct mv_var *v = &mv.vars[i];

		for (size_t k = v->site0; v->flags & MV_VAR_FNPTR && k < v->site0 + v->n_sites; k++)
			if (mv.sites[k].pad && mv.sites[k].area.state == MV_AREA_UNRESOLVED)
				mv_site_resolve(&mv.sites[k], 0, v->name);
	}
}

/* Checks the sites of every run: for the dump and debugfs, which tell
 * every site's state. */
void mv_check_all_sites(void)
{
	for (size_t i = 0; i < mv.n_fns; i++)
		mv_check_sites(mv.fns[i].site0, mv.fns[i].n_sites, &mv.fns[i], mv.fns[i].desc->name);
	for (size_t i = 0; i < mv.n_vars; i++)
		if (mv.vars[i].flags & MV_VAR_FNPTR)
			mv_check_sites(mv.vars[i].site0, mv.vars[i].n_sites, 0, mv.vars[i].name);
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

uintptr_t mv_fn_code(const struct mv_desc_fn *d)
{
	return (uintptr_t)d->entry - (d->flags & MV_FN_ENTRY_AFTER_PAD ? MV_ARCH_PAD_LEN : 0) -
	       (d->flags & MV_FN_ENTRY_AFTER_PAD_NOP ? MV_ARCH_PAD_LEN : 0);
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
 * the switches that live in it, and every site in it or calling into it.
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
		if (!mv_in_spans(spans, n, mv.sites[i].area.addr) &&
		    !mv_in_spans(spans, n, mv.sites[i].callee)) {
			mv.sites[k++] = mv.sites[i];
			continue;
		}
		mv_region_free(&mv.sites[i]);
	}
	mv.n_sites = k;
	mv_poke_forget(spans, n);
}
