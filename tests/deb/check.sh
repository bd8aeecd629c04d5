#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs in the scratch root of scratch-root.sh, with the packages in
# /tmp/debs, tests/install in /tmp/check/install and tests/cxx/overloads.cc
# in /tmp/check: installs them with dpkg, builds tests/install/app.c every
# way the packages offer (each wrapper, pkg-config, CMake with each
# compiler) and the C++ program with multiverse-g++, and runs them, then
# removes them and checks that nothing of theirs is left.  Prints what
# failed; exits 1 if anything did.
set -u
pkgs="multiverse multiverse-clang libmultiverse0 libmultiverse-dev"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc-12 -print-multiarch)
app=/tmp/check/install/app.c
w=/tmp/work
mkdir -p $w
failed=0
fail() { echo "FAIL: $*"; failed=1; }
# step: runs a command, its output kept for a failure
step() { # what command...
	what=$1; shift
	if "$@" >$w/out 2>&1; then echo "ok: $what"; return 0; fi
	fail "$what"
	sed 's/^/  | /' $w/out
	return 1
}

step "dpkg -i" dpkg -i /tmp/debs/*.deb
for p in $pkgs; do
	[ "$(dpkg-query -W -f '${db:Status-Status}' $p 2>/dev/null)" = installed ] ||
		fail "$p is not installed"
done
# the ldconfig trigger put the runtime into the loader's cache
ldconfig -p | grep -q "libmultiverse.so.0 .*=> .*/lib/$ma/libmultiverse.so.0\$" ||
	fail "libmultiverse.so.0 is not in the loader's cache"
[ -f /usr/share/man/man1/multiverse-gcc.1.gz ] && [ -f /usr/share/man/man1/multiverse-g++.1.gz ] &&
	[ -f /usr/share/man/man1/multiverse-clang.1.gz ] && [ -f /usr/share/man/man1/multiverse-clang++.1.gz ] ||
	fail "no manual page"

# A program from a system-wide install loads the runtime from the
# loader's own folders: no run path.
runs() { # name program
	step "$1 runs" "$2" || return
	grep -q "app: multiverse" $w/out || fail "$1: $(cat $w/out)"
	if readelf -d "$2" | grep -q 'RPATH\|RUNPATH'; then
		fail "$1 has a run path"; readelf -d "$2" | grep 'RPATH\|RUNPATH'
	fi
}
for cc in gcc clang; do
	step "multiverse-$cc" multiverse-$cc -O2 -o $w/app-$cc $app && runs "multiverse-$cc app" $w/app-$cc
done
multiverse-inspect $w/app-gcc >$w/out 2>&1 && grep -q "mode_cost at" $w/out ||
	{ fail "multiverse-inspect $w/app-gcc"; sed 's/^/  | /' $w/out; }
# multiverse-precommit on a program that links the runtime in
step "MULTIVERSE_STATIC=1 multiverse-gcc" env MULTIVERSE_STATIC=1 multiverse-gcc -O2 \
	-o $w/app-static $app &&
	step "multiverse-precommit" multiverse-precommit $w/app-static &&
	runs "precommitted app" $w/app-static
for cxx in g++ clang++; do
	step "multiverse-$cxx" multiverse-$cxx -O2 -I/tmp/check -o $w/overloads-$cxx /tmp/check/overloads.cc &&
		step "multiverse-$cxx program runs" $w/overloads-$cxx
done
for pc in multiverse:gcc-12 multiverse-clang:clang-19; do
	name=${pc%:*} cc=${pc#*:}
	flags=$(pkg-config --cflags --libs $name) || { fail "pkg-config $name"; continue; }
	step "$cc \$(pkg-config $name)" $cc -O2 -o $w/app-pc-$cc $app $flags &&
		runs "$cc \$(pkg-config $name) app" $w/app-pc-$cc
done
for cc in gcc-12:g++-12 clang-19:clang++-19; do
	cxx=${cc#*:} cc=${cc%:*} b=$w/cmake-$cc
	step "cmake $cc" cmake -S /tmp/check/install/cmake -B $b -DCMAKE_C_COMPILER=$cc \
		-DCMAKE_CXX_COMPILER=$cxx &&
	step "cmake --build $cc" cmake --build $b &&
	runs "cmake $cc app" $b/app && runs "cmake $cc app_static" $b/app_static &&
		runs "cmake $cxx app_cxx" $b/app_cxx
done

# Without multiverse-clang, the CMake package refuses Clang and says why.
step "dpkg -r multiverse-clang" dpkg -r multiverse-clang
if cmake -S /tmp/check/install/cmake -B $w/cmake-noclang -DCMAKE_C_COMPILER=clang-19 >$w/out 2>&1; then
	fail "CMake accepted Clang without the Clang plugin"
elif ! tr -s ' \n' '  ' <$w/out | grep -q "installed without its Clang plugin (the package multiverse-clang)"; then
	fail "CMake refused Clang, not for want of multiverse-clang:"; sed 's/^/  | /' $w/out
fi

# Removed and purged, nothing of theirs is left (folders other packages
# share may stay).
files=$(for p in $pkgs; do dpkg-query -L $p 2>/dev/null; done | sort -u)
step "dpkg -P" dpkg -P $pkgs
for p in $pkgs; do
	dpkg-query -W -f '${db:Status-Status}' $p 2>/dev/null | grep -q . &&
		[ "$(dpkg-query -W -f '${db:Status-Status}' $p)" != not-installed ] &&
		fail "$p is still known to dpkg"
done
for f in $files; do
	[ -d "$f" ] && [ ! -L "$f" ] && continue
	[ -e "$f" ] || [ -L "$f" ] && fail "$f is left after dpkg -P"
done
[ -e /usr/lib/multiverse ] && fail "/usr/lib/multiverse is left after dpkg -P"
ldconfig -p | grep -q libmultiverse && fail "libmultiverse.so.0 is still in the loader's cache"
exit $failed
