#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the packages `make deb` built into a scratch root, and runs
# check.sh there: tests/run's deb/install.
#
#   tests/deb/scratch-root.sh DEBDIR
#
# The scratch root is this machine's own /usr, /etc and /var, each under
# an overlay whose upper layer is on a tmpfs, in a mount namespace of its
# own: dpkg, its database, the loader's cache and the packages' files
# change there and vanish with the namespace, and the packages'
# dependencies (gcc-12, clang-19, cmake) are this machine's.  It needs
# root, and a kernel with overlayfs.
set -eu
debs=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "scratch-root.sh: needs root (mounts, chroot)" >&2; exit 2; }
# In a chroot, / is no mount point and its propagation cannot change: the
# namespace keeps it, the scratch tmpfs is made private as soon as it is
# mounted, and everything is unmounted at the end, in case the mount it
# sits on was shared with the namespace outside.
propagation=private
unshare --mount --propagation private true 2>/dev/null || propagation=unchanged
exec unshare --mount --propagation $propagation sh -eu -c '
debs=$1 here=$2
top=$(mktemp -d)
mount -t tmpfs scratch "$top"
mount --make-rprivate "$top"
trap "umount -R \"\$top\" 2>/dev/null; rmdir \"\$top\"" EXIT
r=$top/root
for d in usr etc var; do
	mkdir -p "$top/upper/$d" "$top/work/$d" "$r/$d"
	mount -t overlay overlay -o "lowerdir=/$d,upperdir=$top/upper/$d,workdir=$top/work/$d" "$r/$d"
done
for l in bin sbin lib lib32 lib64 libx32; do
	if [ -L "/$l" ]; then
		ln -s "$(readlink "/$l")" "$r/$l"
	elif [ -e "/$l" ]; then
		echo "scratch-root.sh: /$l is not a link into /usr (a merged /usr is needed)" >&2
		exit 2
	fi
done
mkdir -p "$r/proc" "$r/dev" "$r/tmp" "$r/root"
mount -t proc proc "$r/proc"
mount --rbind /dev "$r/dev"
mkdir -p "$r/tmp/debs" "$r/tmp/check"
cp "$debs"/*.deb "$r/tmp/debs/"
rm -f "$r"/tmp/debs/*-dbgsym_*.deb
cp -R "$here/check.sh" "$here/../install" "$here/../cxx/overloads.cc" \
	"$here/../e2e/check.h" "$here/../e2e/clang_stub.h" "$r/tmp/check/"
rc=0
chroot "$r" /usr/bin/env -i PATH=/usr/bin:/usr/sbin HOME=/root LC_ALL=C \
	/bin/sh /tmp/check/check.sh || rc=$?
exit $rc
' sh "$debs" "$here"
