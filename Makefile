# SPDX-License-Identifier: MIT
# Multiverse build.  `make` builds the plugin, the runtime and the compiler
# wrapper into build/; `make test` runs the test suite; `make demo` runs the
# spinlock demo; `make install PREFIX=...` installs (`make install-aarch64`
# adds the AArch64 cross pieces) and `make uninstall` removes.  ./make.sh wraps these
# and installs missing system packages first.

CC       ?= gcc
CC       := $(if $(shell command -v gcc-12 2>/dev/null),gcc-12,$(CC))
CXX      := $(if $(shell command -v g++-12 2>/dev/null),g++-12,g++)
# The C++ compiler multiverse-g++ drives: CXX (which also builds the
# plugin, for the build machine), or the cross g++ (make aarch64).
TARGET_CXX ?= $(CXX)
PREFIX   ?= /usr/local
B        := build
PLUGIN_INC := $(shell $(CC) -print-file-name=plugin)/include
# The target's architecture picks runtime/arch/ and gcc/arch/ files.
ARCH     := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine)))
# C++ (multiverse-g++): g++ runs the same plugin, when it is the same
# GCC as the C compiler, for the same target.
CC_ID    := $(shell $(CC) -dumpmachine 2>/dev/null)-$(shell $(CC) -dumpfullversion 2>/dev/null)
CXX_ID   := $(shell $(TARGET_CXX) -dumpmachine 2>/dev/null)-$(shell $(TARGET_CXX) -dumpfullversion 2>/dev/null)
WITH_CXX := $(if $(CC_ID),$(if $(subst $(CC_ID),,$(CXX_ID))$(subst $(CXX_ID),,$(CC_ID)),,yes))

# musl (`make musl`, further down): its gcc specs file, the kernel headers
# the runtime needs beside musl's.
MUSL_SPECS ?= /usr/lib/$(ARCH)-linux-musl/musl-gcc.specs
MULTIARCH  := $(shell $(CC) -print-multiarch 2>/dev/null)
KERNEL_HEADERS ?=
MUSL_KERNEL := $(abspath $(B))/musl/kernel
KERNEL_INC  := $(or $(KERNEL_HEADERS),/usr/include)
# `make test` builds and tests it when musl-tools is there (./make.sh
# test installs it).
WITH_MUSL   := $(wildcard $(MUSL_SPECS))

# The runtime is built without the plugin: MULTIVERSE_LINK_RUNTIME gives it
# the API's declarations rather than the header's no-op fallbacks.
# CPPFLAGS, CFLAGS, CXXFLAGS and LDFLAGS, when given (a distribution's
# hardening flags), come after ours.
# The portable core (runtime/*.c), this architecture's encoder
# (runtime/arch/) and the platform's files (runtime/platform/linux-user/;
# the kernel's are built by Kbuild, kernel/).
PLATFORM   := runtime/platform/linux-user
CFLAGS_RT  := -std=gnu11 -O2 -g -Wall -Wextra -fPIC -fvisibility=hidden \
              -Iinclude -Iruntime -I$(PLATFORM) -Icommon -DMULTIVERSE_LINK_RUNTIME
CXXFLAGS_P := -std=gnu++17 -O2 -g -Wall -fPIC -fno-rtti -fno-exceptions \
              -I$(PLUGIN_INC) -Icommon -Wno-unused-parameter

PLUGIN_SRC  := $(wildcard gcc/*.cc) gcc/arch/$(ARCH).cc
PLUGIN_HDR  := $(wildcard gcc/*.h)
RUNTIME_SRC := $(wildcard runtime/*.c $(PLATFORM)/*.c) runtime/arch/$(ARCH).c
RUNTIME_HDR := $(wildcard runtime/*.h runtime/arch/$(ARCH)*.h $(PLATFORM)/*.h) include/multiverse.h include/multiverse-luhsra.h \
               common/descriptor.h common/multiverse-version.h
RUNTIME_OBJ := $(patsubst runtime/%.c,$(B)/runtime/%.o,$(RUNTIME_SRC))
FAULTS_OBJ  := $(patsubst runtime/%.c,$(B)/faults/%.o,$(RUNTIME_SRC))

# The version and the runtime's ABI number (common/multiverse-version.h):
# 0.9.0, as __MULTIVERSE_VERSION__ has it (900), and the soname.
mv_define = $(shell awk '/define MV_$(1) / { print $$3 }' common/multiverse-version.h)
MV_VERSION := $(call mv_define,VERSION_MAJOR).$(call mv_define,VERSION_MINOR).$(call mv_define,VERSION_PATCH)
MV_VERSION_NUMBER := $(shell echo $(MV_VERSION) | awk -F. '{ print $$1 * 10000 + $$2 * 100 + $$3 }')
SONAME := libmultiverse.so.$(call mv_define,ABI)
# Clang runs no plugin when it only preprocesses (-E): its wrappers define
# the plugin's macros themselves.
CLANG_MACROS := -D__MULTIVERSE__=1 -D__MULTIVERSE_VERSION__=$(MV_VERSION_NUMBER)

# The Clang front end (clang/), built when clang-19 and its development
# files are there (./make.sh installs them), for the build machine only.
CLANG       := $(shell command -v clang-19 2>/dev/null)
LLVM_CONFIG := $(shell command -v llvm-config-19 2>/dev/null)
WITH_CLANG  := $(if $(and $(CLANG),$(LLVM_CONFIG),$(wildcard /usr/lib/llvm-19/include/clang/Sema/ParsedAttr.h)),$(if $(filter x86_64,$(ARCH)),yes))
CLANG_SRC   := $(wildcard clang/*.cpp clang/arch/*.cpp)
CLANG_HDR   := $(wildcard clang/*.h)
CLANG_OBJ   := $(patsubst clang/%.cpp,$(B)/clang/%.o,$(CLANG_SRC))
CLANGXX     := $(CLANG:clang-19=clang++-19)
# NDEBUG as LLVM's release build: some LLVM classes change layout without it.
# (llvm-config asked once, and only when there is one.)
CXXFLAGS_CL := -DNDEBUG -std=c++17 -O2 -g -Wall -fPIC -fno-rtti -Icommon \
               $(if $(WITH_CLANG),$(shell $(LLVM_CONFIG) --cxxflags))

all: $(B)/multiverse.so $(B)/libmultiverse.a $(B)/libmultiverse.so $(B)/multiverse-gcc \
     $(B)/multiverse-precommit \
     $(if $(WITH_CXX),$(B)/multiverse-g++) \
     $(if $(WITH_CLANG),$(B)/multiverse-clang.so $(B)/multiverse-clang $(B)/multiverse-clang++)

# A plugin runs only in the compiler it was built for, down to the build: a
# Debian point release of gcc-12 keeps the version number and changes the
# date stamp the plugin checks.  Each plugin depends on a stamp of its
# compiler and plugin headers, rewritten only when they change.
$(B)/gcc.stamp: FORCE
	@mkdir -p $(B)
	@v="$$($(CC) -v 2>&1 | tail -n 1) $$(stat -c %Y $(PLUGIN_INC)/plugin-version.h 2>/dev/null)"; \
	 [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@
$(B)/clang.stamp: FORCE
	@mkdir -p $(B)
	@v="$$($(LLVM_CONFIG) --version) $$(stat -c %Y /usr/lib/llvm-19/include/clang/Basic/Version.inc 2>/dev/null)"; \
	 [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@
FORCE:
.PHONY: FORCE

$(B)/clang/%.o: clang/%.cpp $(CLANG_HDR) common/descriptor.h common/multiverse-version.h common/json-string.h common/inline-why.h common/stub-x86_64.h $(B)/clang.stamp
	@mkdir -p $(dir $@)
	$(CLANGXX) $(CXXFLAGS_CL) $(CPPFLAGS) $(CXXFLAGS) -c -o $@ $<

$(B)/multiverse-clang.so: $(CLANG_OBJ)
	$(CLANGXX) -shared $(LDFLAGS) -Wl,--as-needed -o $@ $^

$(B)/multiverse-clang: common/multiverse-cc.in common/multiverse-version.h
	@mkdir -p $(B)
	$(call wrapper,multiverse-clang,$(notdir $(CLANG)),$(abspath $(B))/multiverse-clang.so,$(abspath include),$(abspath $(B)),$@,$(CLANG_MACROS))

# The same plugin serves C++: clang++-19 runs it in its own cc1.
$(B)/multiverse-clang++: common/multiverse-cc.in common/multiverse-version.h
	@mkdir -p $(B)
	$(call wrapper,multiverse-clang++,$(notdir $(CLANGXX)),$(abspath $(B))/multiverse-clang.so,$(abspath include),$(abspath $(B)),$@,$(CLANG_MACROS))

$(B)/multiverse.so: $(PLUGIN_SRC) $(PLUGIN_HDR) common/descriptor.h common/multiverse-version.h common/json-string.h common/inline-why.h common/stub-x86_64.h $(B)/gcc.stamp
	@mkdir -p $(B)
	$(CXX) $(CXXFLAGS_P) $(CPPFLAGS) $(CXXFLAGS) -shared $(LDFLAGS) -o $@ $(PLUGIN_SRC)

$(B)/runtime/%.o: runtime/%.c $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_RT) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The runtime with fault injection (runtime/fault.h), for tests/faults only.
$(B)/faults/%.o: runtime/%.c $(RUNTIME_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_RT) $(CPPFLAGS) $(CFLAGS) -DMV_FAULTS -c -o $@ $<

$(B)/libmultiverse-faults.a: $(FAULTS_OBJ)
	rm -f $@
	ar rcs $@ $^

# The same as the shared runtime, under its soname, so that modules that
# need libmultiverse.so share it.
$(B)/faults/lib/$(SONAME): $(FAULTS_OBJ)
	@mkdir -p $(B)/faults/lib
	$(CC) -shared $(LDFLAGS) -Wl,-soname,$(SONAME) -o $@ $^

$(B)/libmultiverse.a: $(RUNTIME_OBJ)
	rm -f $@
	ar rcs $@ $^

# multiverse-precommit (tools/precommit/): the runtime, run at build time
# on a linked file of this architecture (docs/precommit.md).
$(B)/multiverse-precommit: $(wildcard tools/precommit/*.[ch]) $(RUNTIME_HDR) $(B)/libmultiverse.a
	$(CC) $(filter-out -fPIC -fvisibility=hidden,$(CFLAGS_RT)) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) \
	    -o $@ $(wildcard tools/precommit/*.c) $(B)/libmultiverse.a -lpthread

# One runtime per process: every module (executable, shared objects,
# dlopen'ed plugins) links this one, so they share one set of tables.  It
# runs under its soname, libmultiverse.so.ABI; links find it as
# libmultiverse.so.
$(B)/$(SONAME): $(RUNTIME_OBJ)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,$(SONAME) -o $@ $^

%/libmultiverse.so: %/$(SONAME)
	ln -sf $(SONAME) $@

# A wrapper from the template: $(call wrapper,NAME,CC,PLUGIN,INCLUDE,LIBDIR,OUT[,FLAGS]),
# FLAGS being options the compiler always gets (a cross target).  The
# build-tree wrappers point at build/; the installed ones at PREFIX.  A
# runtime in a folder the loader searches anyway gets no run path.
wrapper = sed -e 's|@NAME@|$(1)|g' -e 's|@CC@|$(2)|g' -e 's|@PLUGIN@|$(3)|g' \
	      -e 's|@VERSION@|$(MV_VERSION)|g' -e 's|@SONAME@|$(SONAME)|g' \
	      -e 's|@INCLUDE@|$(4)|g' -e 's|@LIBDIR@|$(5)|g' -e 's| @FLAGS@|$(if $(7), $(7))|g' \
	      -e 's|@RUNPATH@|$(if $(filter $(SYSTEM_LIBDIRS),$(5)),no,yes)|g' \
	      common/multiverse-cc.in >"$(6)" && \
	  chmod 755 "$(6)"

$(B)/multiverse-gcc: common/multiverse-cc.in common/multiverse-version.h
	@mkdir -p $(B)
	$(call wrapper,multiverse-gcc,$(CC),$(abspath $(B))/multiverse.so,$(abspath include),$(abspath $(B)),$@)

$(B)/multiverse-g++: common/multiverse-cc.in common/multiverse-version.h
	@mkdir -p $(B)
	$(call wrapper,$(CXX_WRAPPER),$(TARGET_CXX),$(abspath $(B))/multiverse.so,$(abspath include),$(abspath $(B)),$@)

# install: the standard layout.
#   BINDIR      PREFIX/bin: the wrappers (multiverse-gcc, multiverse-g++,
#               multiverse-clang, multiverse-clang++) and multiverse-inspect
#   INCLUDEDIR  PREFIX/include: multiverse.h, multiverse-luhsra.h
#   LIBDIR      PREFIX/lib (a Debian package: /usr/lib/<multiarch>): the
#               runtime, libmultiverse.so.VERSION with its soname and the
#               linkers' name, and libmultiverse.a; pkgconfig/multiverse.pc
#               (and multiverse-clang.pc); cmake/Multiverse/
#   PLUGINDIR   PREFIX/lib/multiverse: the compiler plugins
#   MANDIR      PREFIX/share/man: the manual pages
# DESTDIR stages it all under another root (packages); paths may hold
# spaces.  `make uninstall` with the same variables removes what install
# put there.  The cross pieces go beside them (install-aarch64).
BINDIR     ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR     ?= $(PREFIX)/lib
PLUGINDIR  ?= $(PREFIX)/lib/multiverse
MANDIR     ?= $(PREFIX)/share/man
WRAPPER    ?= multiverse-gcc
CXX_WRAPPER ?= multiverse-g++

# pkg-config reads a space in a path as a separator unless escaped; a
# library in a directory the loader searches anyway needs no run path.
empty :=
space := $(empty) $(empty)
pc_path = $(subst $(space),\\$(space),$(1))
SYSTEM_LIBDIRS := /lib /usr/lib /lib/$(MULTIARCH) /usr/lib/$(MULTIARCH) \
		  /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu
pc_rpath = $(if $(filter $(SYSTEM_LIBDIRS),$(LIBDIR)),, -Wl,-rpath,$${libdir})
GCC_VERSION := $(shell $(CC) -dumpfullversion)

# $(call pc_file,PLUGIN-FILE,COMPILER,OUT)
pc_file = sed -e 's|@PREFIX@|$(call pc_path,$(PREFIX))|' -e 's|@LIBDIR@|$(call pc_path,$(LIBDIR))|' \
	      -e 's|@INCLUDEDIR@|$(call pc_path,$(INCLUDEDIR))|' -e 's|@PLUGINDIR@|$(call pc_path,$(PLUGINDIR))|' \
	      -e 's|@PLUGIN@|$(1)|' -e 's|@COMPILER@|$(2)|' -e 's|@VERSION@|$(MV_VERSION)|' \
	      -e 's|@RPATH@|$(pc_rpath)|' dist/multiverse.pc.in >"$(3)"

# $(call cmake_file,IN,OUT)
cmake_file = sed -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	      -e 's|@PLUGINDIR@|$(PLUGINDIR)|g' -e 's|@SONAME@|$(SONAME)|g' \
	      -e 's|@CLANG_PLUGIN@|$(if $(WITH_CLANG),$(PLUGINDIR)/multiverse-clang.so)|g' \
	      -e 's|@GCC_VERSION@|$(GCC_VERSION)|g' -e 's|@VERSION@|$(MV_VERSION)|g' \
	      -e 's|@VERSION_MAJOR@|$(word 1,$(subst ., ,$(MV_VERSION)))|g' \
	      -e 's|@VERSION_MINOR@|$(word 2,$(subst ., ,$(MV_VERSION)))|g' $(1) >"$(2)"

D_BIN     = $(DESTDIR)$(BINDIR)
D_LIB     = $(DESTDIR)$(LIBDIR)
D_PLUGIN  = $(DESTDIR)$(PLUGINDIR)
D_CMAKE   = $(DESTDIR)$(LIBDIR)/cmake/Multiverse
D_MAN     = $(DESTDIR)$(MANDIR)/man1
# One manual page for both wrappers, installed under each name; the
# native install's alone (a cross install shares it).
NATIVE    = $(filter multiverse-gcc,$(WRAPPER))

install: all $(if $(WITH_CLANG),install-clang)
	install -d "$(D_BIN)" "$(DESTDIR)$(INCLUDEDIR)" "$(D_LIB)/pkgconfig" "$(D_CMAKE)" "$(D_PLUGIN)"
	install -m 644 include/multiverse.h include/multiverse-luhsra.h "$(DESTDIR)$(INCLUDEDIR)/"
	install -m 644 $(B)/libmultiverse.a "$(D_LIB)/"
	install -m 755 $(B)/$(SONAME) "$(D_LIB)/libmultiverse.so.$(MV_VERSION)"
	ln -sf libmultiverse.so.$(MV_VERSION) "$(D_LIB)/$(SONAME)"
	ln -sf $(SONAME) "$(D_LIB)/libmultiverse.so"
	install -m 755 $(B)/multiverse.so "$(D_PLUGIN)/"
	$(call pc_file,multiverse.so,GCC $(GCC_VERSION),$(D_LIB)/pkgconfig/multiverse.pc)
	$(call cmake_file,dist/MultiverseConfig.cmake.in,$(D_CMAKE)/MultiverseConfig.cmake)
	$(call cmake_file,dist/MultiverseConfigVersion.cmake.in,$(D_CMAKE)/MultiverseConfigVersion.cmake)
	$(call wrapper,$(WRAPPER),$(CC),$(PLUGINDIR)/multiverse.so,$(INCLUDEDIR),$(LIBDIR),$(D_BIN)/$(WRAPPER))
	$(if $(NATIVE),install -d "$(D_MAN)" && install -m 644 docs/man/multiverse-gcc.1 "$(D_MAN)/")
	$(if $(NATIVE),install -m 755 tools/multiverse-inspect "$(D_BIN)/" && \
	    install -m 644 docs/man/multiverse-inspect.1 "$(D_MAN)/")
	$(if $(NATIVE),install -m 755 $(B)/multiverse-precommit "$(D_BIN)/" && \
	    install -m 644 docs/man/multiverse-precommit.1 "$(D_MAN)/")
	$(if $(WITH_CXX),$(call wrapper,$(CXX_WRAPPER),$(TARGET_CXX),$(PLUGINDIR)/multiverse.so,$(INCLUDEDIR),$(LIBDIR),$(D_BIN)/$(CXX_WRAPPER)))
	$(if $(and $(NATIVE),$(WITH_CXX)),install -m 644 docs/man/multiverse-gcc.1 "$(D_MAN)/multiverse-g++.1")

# The Clang plugin, wrapper and pkg-config file beside GCC's, when built.
install-clang: $(B)/multiverse-clang.so
	install -d "$(D_BIN)" "$(D_PLUGIN)" "$(D_LIB)/pkgconfig"
	install -m 755 $(B)/multiverse-clang.so "$(D_PLUGIN)/"
	$(call pc_file,multiverse-clang.so,Clang 19,$(D_LIB)/pkgconfig/multiverse-clang.pc)
	$(call wrapper,multiverse-clang,$(notdir $(CLANG)),$(PLUGINDIR)/multiverse-clang.so,$(INCLUDEDIR),$(LIBDIR),$(D_BIN)/multiverse-clang,$(CLANG_MACROS))
	$(call wrapper,multiverse-clang++,$(notdir $(CLANGXX)),$(PLUGINDIR)/multiverse-clang.so,$(INCLUDEDIR),$(LIBDIR),$(D_BIN)/multiverse-clang++,$(CLANG_MACROS))
	install -d "$(D_MAN)" && install -m 644 docs/man/multiverse-gcc.1 "$(D_MAN)/multiverse-clang.1"
	install -m 644 docs/man/multiverse-gcc.1 "$(D_MAN)/multiverse-clang++.1"

# Exactly what install and install-clang put there; folders only if empty.
# The Clang pieces are the build machine's (x86-64) alone, and go whether
# or not Clang is still there.
uninstall: $(if $(filter x86_64,$(ARCH)),uninstall-clang)
	rm -f "$(D_BIN)/$(WRAPPER)" "$(D_BIN)/$(CXX_WRAPPER)" "$(DESTDIR)$(INCLUDEDIR)/multiverse.h" \
	    "$(DESTDIR)$(INCLUDEDIR)/multiverse-luhsra.h" \
	    "$(D_LIB)/libmultiverse.a" "$(D_LIB)/libmultiverse.so.$(MV_VERSION)" \
	    "$(D_LIB)/$(SONAME)" "$(D_LIB)/libmultiverse.so" "$(D_LIB)/pkgconfig/multiverse.pc" \
	    "$(D_CMAKE)/MultiverseConfig.cmake" "$(D_CMAKE)/MultiverseConfigVersion.cmake" \
	    "$(D_PLUGIN)/multiverse.so" $(if $(NATIVE),"$(D_MAN)/multiverse-gcc.1" \
	    "$(D_MAN)/multiverse-g++.1" \
	    "$(D_BIN)/multiverse-inspect" "$(D_MAN)/multiverse-inspect.1" \
	    "$(D_BIN)/multiverse-precommit" "$(D_MAN)/multiverse-precommit.1")
	-rmdir "$(D_CMAKE)" "$(D_LIB)/cmake" "$(D_LIB)/pkgconfig" "$(D_PLUGIN)" \
	    $(if $(NATIVE),"$(D_MAN)") 2>/dev/null

uninstall-clang:
	rm -f "$(D_BIN)/multiverse-clang" "$(D_BIN)/multiverse-clang++" "$(D_PLUGIN)/multiverse-clang.so" \
	    "$(D_LIB)/pkgconfig/multiverse-clang.pc" "$(D_MAN)/multiverse-clang.1" \
	    "$(D_MAN)/multiverse-clang++.1"

faults: $(B)/libmultiverse-faults.a $(B)/faults/lib/libmultiverse.so

# The whole suite (tests/all.sh): this machine's architecture with GCC (and
# musl) and, side by side, with Clang (when clang-19 is there), then on
# x86-64 the kernel case studies' checks, the AArch64 build under qemu with
# each compiler (test-aarch64) and the kernel's suite, one after another.  All run
# even if one fails; `make test-host` runs only the GCC one (tests/run).
# The kernel suite runs in the case studies' multiversed kernel, which
# carries its functions in --quick mode: one kernel build, not two.
test: all faults $(if $(WITH_MUSL),musl) $(if $(filter x86_64,$(ARCH)),aarch64)
	@tests/all.sh $(if $(WITH_CLANG),--clang) $(if $(filter x86_64,$(ARCH)),--cross)

test-host: all faults $(if $(WITH_MUSL),musl)
	tests/run

demo: all
	$(MAKE) -C examples/spinlock run

clean:
	rm -rf $(B)
	$(MAKE) -C examples/spinlock clean
	$(MAKE) -C examples/live-update clean

.PHONY: all faults install install-clang uninstall uninstall-clang test test-host demo clean

# Debian packages (dist/debian/): multiverse, multiverse-clang,
# libmultiverse0 and libmultiverse-dev, built by dpkg-buildpackage from a
# copy of this tree in DEBDIR, which gets the .deb files; then lintian,
# which must report no error and no warning.  ./make.sh deb installs the tools.
DEBDIR ?= $(B)/deb
DEBSRC  = $(DEBDIR)/multiverse-$(MV_VERSION)
deb:
	@for t in dpkg-buildpackage dh lintian; do command -v $$t >/dev/null || \
	    { echo "make deb: no $$t: install dpkg-dev, debhelper and lintian (./make.sh deb does)" >&2; exit 1; }; done
	@v=$$(dpkg-parsechangelog -l dist/debian/changelog -S Version); [ "$$v" = $(MV_VERSION) ] || \
	    { echo "make deb: dist/debian/changelog is at $$v, Multiverse at $(MV_VERSION): add an entry for $(MV_VERSION)" >&2; exit 1; }
	rm -rf "$(DEBDIR)" && mkdir -p "$(DEBSRC)"
	tar -cf - --exclude=./$(B) --exclude=./.git . | tar -xf - -C "$(DEBSRC)"
	cp -R dist/debian "$(DEBSRC)/debian"
	cd "$(DEBSRC)" && dpkg-buildpackage -b -us -uc -jauto
	lintian --fail-on error,warning "$(DEBDIR)"/multiverse_$(MV_VERSION)_*.changes

.PHONY: deb

# The AArch64 cross build: the same plugin sources built for the cross
# compiler's target (it still runs on this machine), the runtime built by
# the cross compiler, and the wrappers aarch64-linux-gnu-multiverse-gcc
# and, with the cross g++, aarch64-linux-gnu-multiverse-g++.
CROSS_AARCH64 ?= aarch64-linux-gnu-gcc-12
CROSS_AARCH64_CXX ?= aarch64-linux-gnu-g++-12

# With Clang, also aarch64-linux-gnu-multiverse-clang (and -clang++): the build machine's
# Clang plugin (it serves every target), clang-19 targeting AArch64, and
# the arm64 runtime.
CLANG_AARCH64 := --target=aarch64-linux-gnu

aarch64: $(if $(WITH_CLANG),$(B)/multiverse-clang.so)
	$(MAKE) CC=$(CROSS_AARCH64) TARGET_CXX=$(CROSS_AARCH64_CXX) B=$(B)/aarch64 all faults
	ln -sf aarch64/multiverse-gcc $(B)/aarch64-linux-gnu-multiverse-gcc
	if [ -e $(B)/aarch64/multiverse-g++ ]; then \
	    ln -sf aarch64/multiverse-g++ $(B)/aarch64-linux-gnu-multiverse-g++; fi
	$(if $(WITH_CLANG),$(call wrapper,aarch64-linux-gnu-multiverse-clang,$(notdir $(CLANG)),$(abspath $(B))/multiverse-clang.so,$(abspath include),$(abspath $(B))/aarch64,$(B)/aarch64/multiverse-clang,$(CLANG_AARCH64) $(CLANG_MACROS)) && \
	    ln -sf aarch64/multiverse-clang $(B)/aarch64-linux-gnu-multiverse-clang)
	$(if $(WITH_CLANG),$(call wrapper,aarch64-linux-gnu-multiverse-clang++,$(notdir $(CLANGXX)),$(abspath $(B))/multiverse-clang.so,$(abspath include),$(abspath $(B))/aarch64,$(B)/aarch64/multiverse-clang++,$(CLANG_AARCH64) $(CLANG_MACROS)) && \
	    ln -sf aarch64/multiverse-clang++ $(B)/aarch64-linux-gnu-multiverse-clang++)

# The cross pieces beside the native ones: PREFIX/bin/aarch64-linux-gnu-
# multiverse-gcc (and -g++, -clang), the arm64 runtime in
# PREFIX/lib/aarch64-linux-gnu/ and the GCC plugin for the cross compiler
# in PREFIX/lib/multiverse/aarch64-linux-gnu/.
CROSS_INSTALL = $(MAKE) CC=$(CROSS_AARCH64) TARGET_CXX=$(CROSS_AARCH64_CXX) \
	    B=$(B)/aarch64 PREFIX="$(PREFIX)" \
	    BINDIR="$(BINDIR)" INCLUDEDIR="$(INCLUDEDIR)" \
	    LIBDIR="$(PREFIX)/lib/aarch64-linux-gnu" \
	    PLUGINDIR="$(PLUGINDIR)/aarch64-linux-gnu" \
	    WRAPPER=aarch64-linux-gnu-multiverse-gcc \
	    CXX_WRAPPER=aarch64-linux-gnu-multiverse-g++
install-aarch64: aarch64 $(if $(WITH_CLANG),install-clang)
	$(CROSS_INSTALL) install
	$(if $(WITH_CLANG),$(call wrapper,aarch64-linux-gnu-multiverse-clang,$(notdir $(CLANG)),$(PLUGINDIR)/multiverse-clang.so,$(INCLUDEDIR),$(PREFIX)/lib/aarch64-linux-gnu,$(D_BIN)/aarch64-linux-gnu-multiverse-clang,$(CLANG_AARCH64) $(CLANG_MACROS)))
	$(if $(WITH_CLANG),$(call wrapper,aarch64-linux-gnu-multiverse-clang++,$(notdir $(CLANGXX)),$(PLUGINDIR)/multiverse-clang.so,$(INCLUDEDIR),$(PREFIX)/lib/aarch64-linux-gnu,$(D_BIN)/aarch64-linux-gnu-multiverse-clang++,$(CLANG_AARCH64) $(CLANG_MACROS)))

# (install-aarch64 installs the native Clang pieces, which the cross
# Clang wrapper uses: `make uninstall` removes them.)
uninstall-aarch64:
	$(CROSS_INSTALL) uninstall
	rm -f "$(D_BIN)/aarch64-linux-gnu-multiverse-clang" "$(D_BIN)/aarch64-linux-gnu-multiverse-clang++"
	-rmdir "$(D_LIB)/pkgconfig" "$(D_PLUGIN)" 2>/dev/null

# The AArch64 suite, on an arm64 kernel under qemu-system-aarch64
# (tests/qemu/setup.sh installs and downloads what it needs).
test-aarch64: aarch64
	tests/qemu/setup.sh
	tests/run --arch=aarch64

.PHONY: aarch64 install-aarch64 uninstall-aarch64 test-aarch64

# The multiversed Linux kernel (docs/kernel.md): Debian's linux-source-6.1
# with linux/patches/, the runtime and the plugin, configured for qemu,
# in build/kernel/ (linux/build.sh); `make test-kernel` runs its suite
# under qemu-system-x86_64 (tests/kernel/), and the checks of the kernel
# case studies' multiversed kernel (the SMP switch under CPU hotplug, the
# PV-ops switches), which it builds in build/case-studies/linux/.
kernel:
	linux/build.sh

test-kernel: kernel
	tests/kernel/check.sh
	case-studies/linux/run.sh --quick

.PHONY: kernel test-kernel

# The runtime for musl (Debian's musl-tools): build/musl/libmultiverse.a
# and .so, compiled against musl's headers through its gcc specs file, and
# the wrapper build/multiverse-musl-gcc, which is multiverse-gcc with that
# specs file and this runtime.  musl ships no kernel headers, and the
# runtime needs a few (linux/membarrier.h, linux/futex.h and the asm/ they
# include): KERNEL_HEADERS names a folder with linux/, asm/ and
# asm-generic/; by default the system's (linux-libc-dev).  Either is
# linked into build/musl/kernel, without the C library's headers beside.

musl: $(B)/multiverse.so musl-kernel-headers
	$(MAKE) CC="$(CC) -specs=$(MUSL_SPECS) -isystem $(MUSL_KERNEL)" B=$(B)/musl \
	    $(B)/musl/libmultiverse.a $(B)/musl/libmultiverse.so
	$(call wrapper,multiverse-musl-gcc,$(CC),$(abspath $(B))/multiverse.so,$(abspath include),$(abspath $(B))/musl,$(B)/multiverse-musl-gcc,-specs=$(MUSL_SPECS))

# The runtime for putting into a C library's own libc.a and libc.so
# (docs/libc.md): build/musl-libc/runtime/*.o, built as for musl but
# without thread-local storage, which musl's libc.so cannot have itself.
musl-libc: musl-kernel-headers
	rm -rf $(B)/musl-libc/runtime   # no object of an older layout stays beside them
	$(MAKE) CC="$(CC) -specs=$(MUSL_SPECS) -isystem $(MUSL_KERNEL)" B=$(B)/musl-libc \
	    CFLAGS_RT="$(CFLAGS_RT) -DMV_IN_LIBC" $(B)/musl-libc/libmultiverse.a

# build/musl/kernel: links to the kernel header folders, checked each time.
musl-kernel-headers:
	@test -f $(MUSL_SPECS) || { echo "make musl: no $(MUSL_SPECS); install musl-tools (Debian), or set MUSL_SPECS to musl's gcc specs file" >&2; exit 1; }
	@rm -rf $(MUSL_KERNEL) && mkdir -p $(MUSL_KERNEL)
	@ln -s $(KERNEL_INC)/linux $(KERNEL_INC)/asm-generic $(MUSL_KERNEL)/
	@ln -s $(or $(KERNEL_HEADERS),/usr/include/$(MULTIARCH))/asm $(MUSL_KERNEL)/asm
	@for h in linux/membarrier.h linux/futex.h asm/unistd.h asm-generic/errno-base.h; do \
	    test -f $(MUSL_KERNEL)/$$h || { echo "make musl: the runtime needs the Linux kernel's headers, and $(KERNEL_INC)/$$h is missing; install linux-libc-dev (Debian), or set KERNEL_HEADERS to a folder with linux/, asm/ and asm-generic/" >&2; exit 1; }; \
	done

.PHONY: musl musl-libc musl-kernel-headers

# Benchmark suite (bench/README.md): `make bench` runs all of it, `make
# bench QUICK=1` a shorter run.  Tables, CSV and plots go to bench/results/.
bench: all
	bench/run.sh $(if $(filter-out 0,$(QUICK)),--quick)

.PHONY: bench

# Soak test, not part of `make test`: tests/live/stress.c built with -DSOAK
# (8 worker threads for 300 s) while commit and revert rewrite the code
# under them.  MV_STRESS_WORKERS and MV_STRESS_SECONDS override, e.g.
# `MV_STRESS_SECONDS=3600 make soak`.
soak: all
	$(B)/multiverse-gcc -std=gnu11 -O2 -g -Wall -pthread -DSOAK \
	    -o $(B)/soak tests/live/stress.c
	$(B)/soak

.PHONY: soak

# Differential fuzzing with csmith, not part of `make test` beyond a small
# fixed batch: N programs from seed SEED, each checked in every mode against
# plain gcc (tests/fuzz/csmith.py).  Failures are kept in build/fuzz/.
N    ?= 100
SEED ?= 1
fuzz: all
	tests/fuzz/csmith.py $(N) --seed $(SEED)

.PHONY: fuzz
