# SPDX-License-Identifier: MIT
# Sourced by the suites that run in a guest (tests/kernel/suite.sh,
# case-studies/linux/guest.sh): each check prints "ok - NAME" or
# "not ok - NAME: why" and is counted in $passed and $failed.
passed=0 failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $1"; failed=$((failed + 1)); }
check() { # name command...
	name=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then ok "$name"; else not_ok "$name: $(head -c 300 /tmp/check.out)"; fi
}
