/* SPDX-License-Identifier: MIT */
/*
 * Variant merging.  Runs after the early optimizations, when constant
 * folding and dead-code elimination have shaped each variant.  Variants of
 * one function whose bodies print the same are merged: one body survives
 * and takes over the others' guards, which are then coalesced into value
 * ranges where the values are adjacent (x=0 and x=1 become x in [0, 1]).
 *
 * Comparing the printed GIMPLE is conservative: bodies that differ only in
 * SSA numbering stay apart, which costs space but never correctness.  At
 * -O0 nothing is optimized, so nothing merges.
 */
#include "multiverse.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace {

/* The body as text, without its name and with anonymous decl numbers
 * (D.1234) renumbered in order of appearance. */
std::string body_text(tree decl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	dump_function_to_file(decl, f, TDF_NONE);
	fclose(f);
	std::string raw(buf, len);
	free(buf);

	size_t start = raw.find("\n{\n");
	if (start != std::string::npos)
		raw.erase(0, start);

	std::string out;
	std::map<std::string, unsigned> ids;
	for (size_t i = 0; i < raw.size(); i++) {
		if (raw.compare(i, 2, "D.") == 0 && i + 2 < raw.size() &&
		    ISDIGIT(raw[i + 2]) && (i == 0 || !ISIDNUM(raw[i - 1]))) {
			size_t j = i + 2;
			while (j < raw.size() && ISDIGIT(raw[j]))
				j++;
			std::string key = raw.substr(i, j - i);
			auto it = ids.emplace(key, ids.size()).first;
			out += "D#" + std::to_string(it->second);
			i = j - 1;
		} else {
			out += raw[i];
		}
	}
	return out;
}

/* Two clauses over the same switches that differ in one switch's range,
 * where the ranges touch, become one. */
bool try_coalesce(mv_clause &a, const mv_clause &b)
{
	if (a.size() != b.size())
		return false;
	int diff = -1;
	for (size_t i = 0; i < a.size(); i++) {
		if (a[i].var != b[i].var)
			return false;
		if (a[i].low == b[i].low && a[i].high == b[i].high)
			continue;
		if (diff >= 0)
			return false;
		diff = i;
	}
	if (diff < 0)
		return true;   /* identical */
	mv_range &r = a[diff];
	const mv_range &s = b[diff];
	tree v = r.var;
	bool uns = TYPE_UNSIGNED(TREE_TYPE(v));
	/* adjacency without wrapping around the type's end */
	auto next = [&](mv_value x, mv_value y) {
		return mv_value_less(v, x, y) &&
		       (uns ? (uint64_t)x + 1 == (uint64_t)y : x + 1 == y);
	};
	if (next(r.high, s.low)) {
		r.high = s.high;
		return true;
	}
	if (next(s.high, r.low)) {
		r.low = s.low;
		return true;
	}
	return false;
}

void coalesce(std::vector<mv_clause> &clauses)
{
	bool changed = true;
	while (changed) {
		changed = false;
		for (size_t i = 0; i < clauses.size() && !changed; i++)
			for (size_t j = i + 1; j < clauses.size() && !changed; j++)
				if (try_coalesce(clauses[i], clauses[j])) {
					clauses.erase(clauses.begin() + j);
					changed = true;
				}
	}
}

void merge(mv_function &f)
{
	std::vector<std::string> texts;
	for (mv_variant &v : f.variants)
		texts.push_back(body_text(v.decl));

	std::vector<mv_variant> kept;
	std::vector<std::string> kept_texts;
	for (size_t i = 0; i < f.variants.size(); i++) {
		size_t k = 0;
		while (k < kept.size() && kept_texts[k] != texts[i])
			k++;
		if (k == kept.size()) {
			kept.push_back(f.variants[i]);
			kept_texts.push_back(texts[i]);
			continue;
		}
		std::vector<mv_clause> &c = kept[k].clauses;
		c.insert(c.end(), f.variants[i].clauses.begin(),
			 f.variants[i].clauses.end());
		cgraph_node *dup = cgraph_node::get(f.variants[i].decl);
		if (dup) {
			dup->force_output = false;
			DECL_PRESERVE_P(f.variants[i].decl) = 0;
			dup->remove();
		}
	}
	for (mv_variant &v : kept)
		coalesce(v.clauses);
	f.variants = kept;
}

const pass_data merge_data = {
	SIMPLE_IPA_PASS, "multiverse_merge", OPTGROUP_NONE, TV_NONE,
	PROP_ssa, 0, 0, 0, 0
};

struct merge_pass : public simple_ipa_opt_pass {
	merge_pass(gcc::context *ctxt) : simple_ipa_opt_pass(merge_data, ctxt) {}

	unsigned int execute(function *) final override
	{
		if (seen_error())
			return 0;
		for (mv_function &f : mv_functions)
			if (f.variants.size() > 1)
				merge(f);
		return 0;
	}
};

} // namespace

opt_pass *mv_make_merge_pass(gcc::context *ctxt)
{
	return new merge_pass(ctxt);
}
