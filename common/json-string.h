/* SPDX-License-Identifier: MIT */
/*
 * A string as a JSON string literal, for the compile reports both
 * plugins write (gcc/report.cc, clang/report.cpp).
 */
#ifndef MULTIVERSE_JSON_STRING_H
#define MULTIVERSE_JSON_STRING_H

#include <cstdio>
#include <string>

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

#endif
