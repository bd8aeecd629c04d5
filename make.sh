#!/bin/sh
# One entry point for a fresh Debian machine: installs what is missing,
# builds, and runs the given make target.
#
#   ./make.sh demo      the spinlock demo
#   ./make.sh test      the test suite
#   ./make.sh           just build
#   ./make.sh install   install to PREFIX (default /usr/local)
set -e
cd "$(dirname "$0")"

missing=""
command -v make >/dev/null 2>&1 || missing="$missing make"
command -v gcc-12 >/dev/null 2>&1 || missing="$missing gcc-12"
command -v g++-12 >/dev/null 2>&1 || missing="$missing g++-12"
command -v timeout >/dev/null 2>&1 || missing="$missing coreutils"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
# tests/fuzz: the generator, and the header its programs include
command -v csmith >/dev/null 2>&1 || missing="$missing csmith"
[ -f /usr/include/csmith/csmith.h ] || missing="$missing libcsmith-dev"
if ! command -v gcc-12 >/dev/null 2>&1 ||
   [ ! -f "$(gcc-12 -print-file-name=plugin)/include/gcc-plugin.h" ]; then
	missing="$missing gcc-12-plugin-dev"
fi
if [ -n "$missing" ]; then
	echo "make.sh: installing$missing"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

exec make -j2 --no-print-directory "$@"
