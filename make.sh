#!/bin/sh
# SPDX-License-Identifier: MIT
# One entry point for a fresh Debian machine: installs what is missing,
# builds, and runs the given make target.
#
#   ./make.sh demo      the spinlock demo
#   ./make.sh test      the test suite (on x86-64 also the AArch64 one,
#                       under qemu: it installs the cross tools first)
#   ./make.sh           just build
#   ./make.sh install   install to PREFIX (default /usr/local)
#   ./make.sh install-aarch64   the AArch64 cross wrapper and runtime, to
#                       the same PREFIX
#   ./make.sh musl      the runtime for musl and build/multiverse-musl-gcc
#   ./make.sh musl-libc the runtime for musl's own libc.a and libc.so
#   ./make.sh deb       Debian packages in build/deb (dist/debian/)
#   ./make.sh kernel    the multiversed Linux kernel in build/kernel
#                       (docs/kernel.md; make test builds and tests the
#                       kernel case study's, which carries its suite)
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
# The Clang front end (clang/): the compiler and the headers and libraries
# of Clang and LLVM 19 that its plugin is built against.
command -v clang-19 >/dev/null 2>&1 || missing="$missing clang-19"
command -v llvm-config-19 >/dev/null 2>&1 || missing="$missing llvm-19-dev"
[ -f /usr/lib/llvm-19/include/clang/Sema/ParsedAttr.h ] || missing="$missing libclang-19-dev"
# The install tests build a CMake project and use pkg-config; the deb
# tests and make deb build Debian packages and check them with lintian.
case " $* " in *" test"*|*" deb "*)
	command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
	command -v pkg-config >/dev/null 2>&1 || missing="$missing pkgconf"
	command -v dpkg-buildpackage >/dev/null 2>&1 || missing="$missing dpkg-dev"
	command -v dh >/dev/null 2>&1 || missing="$missing debhelper"
	command -v lintian >/dev/null 2>&1 || missing="$missing lintian"
	# tests/torture/debug.sh stops in a variant with gdb
	command -v gdb >/dev/null 2>&1 || missing="$missing gdb"
	# bench/smoke builds the latency program's counting mode, which
	# needs valgrind's <valgrind/callgrind.h>
	[ -f /usr/include/valgrind/callgrind.h ] || missing="$missing valgrind" ;;
esac
# A multiversed kernel (make kernel's; on x86-64 `make test` builds and
# tests the kernel case study's): Debian's kernel source, what building
# it needs, and qemu and busybox for its suite.
case " $* " in *" test "*|*" kernel "*|*" test-kernel "*)
	if [ "$(uname -m)" = x86_64 ]; then
		[ -f /usr/src/linux-source-6.1.tar.xz ] || missing="$missing linux-source-6.1"
		for p in flex bison bc libelf-dev libssl-dev cpio xz-utils patch; do
			[ "$(dpkg-query -W -f='${db:Status-Status}' $p 2>/dev/null)" = installed ] ||
				missing="$missing $p"
		done
		case " $* " in *" kernel "*) ;; *)
			command -v qemu-system-x86_64 >/dev/null 2>&1 || missing="$missing qemu-system-x86"
			[ "$(dpkg-query -W -f='${db:Status-Status}' busybox-static 2>/dev/null)" = installed ] ||
				missing="$missing busybox-static" ;;
		esac
	fi ;;
esac
# The musl runtime (make musl), which `make test` builds and tests.
case " $* " in *" test "*|*" musl "*|*" musl-libc "*)
	[ -f /usr/lib/$(uname -m)-linux-musl/musl-gcc.specs ] || missing="$missing musl-tools" ;;
esac
# The AArch64 suite, which `make test` runs on x86-64: the cross compilers
# and its plugin headers, what tests/qemu/setup.sh needs to boot an arm64
# kernel (it downloads the kernel and busybox as arm64 packages), and
# gdb-multiarch, which places gdb's breakpoints in AArch64 programs
# (tests/torture/debug-static.py).
case " $* " in *" test "*|*aarch64*) cross=1 ;; *) cross= ;; esac
if [ -n "$cross" ] && [ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ]; then
	for p in gcc-12-aarch64-linux-gnu g++-12-aarch64-linux-gnu \
		 gcc-12-plugin-dev-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm cpio \
		 gdb-multiarch; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' $p 2>/dev/null)" = installed ] ||
			missing="$missing $p"
	done
	dpkg --print-foreign-architectures | grep -qx arm64 || add_arm64=1
fi
if [ -n "$missing" ] || [ -n "${add_arm64:-}" ]; then
	sudo=""
	if [ "$(id -u)" != 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "make.sh: not root, and there is no sudo to install packages; as root, run" >&2
			[ -z "${add_arm64:-}" ] || echo "  dpkg --add-architecture arm64" >&2
			echo "  apt-get update && apt-get install$missing" >&2
			echo "then ./make.sh $* again" >&2
			exit 1
		fi
		sudo=sudo
	fi
	[ -z "$missing" ] || echo "make.sh: installing$missing"
	if [ -n "${add_arm64:-}" ]; then
		echo "make.sh: dpkg --add-architecture arm64 (for the AArch64 test kernel)"
		$sudo dpkg --add-architecture arm64
	fi
	$sudo apt-get update -qq
	[ -z "$missing" ] ||
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

exec make -j2 --no-print-directory "$@"
