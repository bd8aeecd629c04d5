/* SPDX-License-Identifier: MIT */
/*
 * A string as a JSON string literal, a switch's domain as a JSON array,
 * and a guard as text, for the compile reports both plugins write
 * (gcc/report.cc, clang/report.cpp).
 */
#ifndef MULTIVERSE_JSON_STRING_H
#define MULTIVERSE_JSON_STRING_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

inline std::string mv_json_string(const std::string &s)
{
	std::string out = "\"";
	for (char c : s) {
		if (c == '"' || c == '\\')
			out += '\\';
		if ((unsigned char)c < 0x20) {
			char buf[8];
			snprintf(buf, sizeof buf, "\\u%04x", c);
			out += buf;
			continue;
		}
		out += c;
	}
	return out + "\"";
}

/* Values as the descriptors carry them (sign- or zero-extended), in
 * ascending order of the switch's type. */
inline std::string mv_json_values(std::vector<int64_t> v, bool is_unsigned)
{
	std::string out = "[";
	std::vector<std::string> text;
	if (is_unsigned)
		for (size_t i = 1; i < v.size(); i++)
			for (size_t j = i; j > 0 && (uint64_t)v[j] < (uint64_t)v[j - 1]; j--)
				std::swap(v[j], v[j - 1]);
	for (size_t i = 0; i < v.size(); i++)
		out += (i ? ", " : "") + (is_unsigned ? std::to_string((uint64_t)v[i]) :
					  std::to_string(v[i]));
	return out + "]";
}

/* A probe's domain: a function-pointer switch compared with NULL. */
#define MV_PROBE_DOMAIN_JSON "[\"NULL\", \"not NULL\"]"

/* Why a function compares a probe with NULL but is not specialized on it. */
#define MV_PROBE_UNTRACED_WHY "its value is used otherwise than in NULL tests and " \
	"calls through it"

/* "x in [low, high]", or for a probe "p == NULL", "p != NULL", or both
 * (the two variants merged). */
inline std::string mv_guard_text(const std::string &name, int64_t low, int64_t high,
				 bool probe)
{
	if (probe && low == 0 && high == 0)
		return name + " == NULL";
	if (probe && low == 1 && high == -1)
		return name + " != NULL";
	if (probe && low == 0 && high == -1)
		return name + " == NULL or not";
	return name + " in [" + std::to_string(low) + ", " + std::to_string(high) + "]";
}

#endif
