# tinyrun — build, deps, demo, check, bench.
#   make          build ./tinyrun
#   make deps-build  install the Debian packages the build and the demo need (root)
#   make deps     install every Debian package the build, tests, peers, clients and bench need
#   make demo     deps-build + build + run a busybox container
#   make check    deps + deb-src entries (cri.bats) + build + every test, ending with "N passed,
#                 M failed"; make check TESTS="lifecycle run": only those bats suites
#   DEPS_DRY_RUN=1 (deps, deps-build): list what is missing and fail, install nothing
#   make bench    deps + build + side-by-side benchmark against crun and runc (and the floor)
#   make deb      build/tinyrun_<version>_<arch>.deb, a Debian package (contrib/debian/)
#   make bench-quick  the same in about a minute; make bench-v2  inside the cgroup v2 guest

CC      ?= gcc
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0

PKGS    := yajl libseccomp libcap
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -DTINYRUN_VERSION='"$(VERSION)"' \
           -I. $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -fno-strict-aliasing
# Few shared libraries means a faster start: link what Debian ships as .a statically.
LIBS_A  := -lyajl_s -lseccomp -lcap
LDLIBS  := -Wl,-Bstatic $(LIBS_A) -Wl,-Bdynamic -lm
# The binary itself is a static PIE: no ld.so, no libc.so to map and relocate at each of the
# two execs of a create (the sealed re-exec): 0.4 ms less per exec on the bench machine, and
# 0.5 MiB less RSS. Nothing is dlopen'd (--systemd-cgroup talks D-Bus itself, runtime/cgroup/dbus_*.c).
TINYRUN_LDFLAGS ?= -static-pie

# LIBC=musl (the default when musl-gcc is installed: make deps) or glibc. musl's start-up
# runs no CPUID (glibc's runs dozens, each a trap to the hypervisor on a VM, 4 us here):
# 0.15-0.25 ms less CPU per command here (HACKING.md). yajl, libseccomp and libcap are then
# Debian's sources built with musl into build/musl-libs (contrib/musl/libs.sh: pinned, sha256).
# Nothing is dlopen'd (a static musl binary could not). When LIBC is not given and libs.sh
# fails (offline, a pinned file gone from the pool), `make tinyrun` says so in one line and
# builds with glibc; build/musl-libs/failed keeps the reason, and later builds take glibc
# until it is removed.
MUSL_FAILED := build/musl-libs/failed
ifeq ($(origin LIBC),undefined)
LIBC    := $(if $(shell command -v musl-gcc 2>/dev/null),$(if $(wildcard $(MUSL_FAILED)),glibc,musl),glibc)
LIBC_AUTO := 1
endif
B       := build/$(LIBC)
U       := build/glibc
ifeq ($(LIBC),musl)
MUSL    := build/musl-libs
MUSL_DONE := $(MUSL)/.done
# TCC/T_LDFLAGS: how tinyrun's own objects are compiled and linked (not early_seal's
# and tinyrun-init's: no libc). libc_compat.h: what glibc declares and musl 1.2.3 does not;
# oci/libc_text.c: glibc's strerror and strsignal texts, wrapped in at the link.
# oci/libc_sys.c: open and set*id without musl's extra syscalls, wrapped the same way.
TCC     := $(CC) -specs=$(CURDIR)/$(MUSL)/musl.specs -I$(CURDIR)/$(MUSL)/include -include runtime/linux/libc_compat.h
T_LDFLAGS := -L$(CURDIR)/$(MUSL)/lib -Wl,--wrap=strerror,--wrap=strsignal \
             -Wl,--wrap=open,--wrap=setgroups,--wrap=setresgid,--wrap=setresuid
else ifeq ($(LIBC),glibc)
TCC     := $(CC)
T_LDFLAGS :=
else
$(error LIBC=$(LIBC): expected musl or glibc)
endif

SRCDIRS := oci oci/sandbox runtime runtime/container runtime/sandbox runtime/cgroup runtime/linux runtime/criu rootfs rootfs/sandbox seccomp
SRCS    := $(foreach d,$(SRCDIRS),$(wildcard $(d)/*.c))
OBJS    := $(patsubst %.c,$(B)/%.o,$(SRCS))

# Debian packages: build, tests, comparison peers, bench.
DEB_BUILD := gcc libc6-dev make pkg-config libyajl-dev libseccomp-dev libcap-dev
# the default build, musl's (LIBC=musl): musl-gcc, and what contrib/musl/libs.sh fetches and
# builds with (without them the build is glibc's)
DEB_MUSL  := musl-tools gperf curl patch xz-utils
DEB_BUILD += $(DEB_MUSL)
# make demo: the build, the busybox of its bundle, jq for its config (tests/demo.sh)
DEB_DEMO  := $(DEB_BUILD) busybox-static jq
DEB_TEST  := man-db groff-base bats bats-support bats-assert busybox-static jq util-linux procps iproute2 strace psmisc dbus dbus-user-session systemd python3 python3-dbus python3-gi apparmor criu
DEB_PEERS := crun runc
# real clients driven by tests/clients.bats and tests/docker.bats
DEB_CLIENTS := podman conmon containerd docker.io
# podman run --init (tini-static), podman's bridge network, rootless podman (uidmap) (clients.bats)
DEB_CLIENTS += tini containernetworking-plugins uidmap
# podman pods: the infra container's catatonit (clients.bats); rootless Docker (docker.bats)
DEB_CLIENTS += catatonit rootlesskit
DEB_BENCH := hyperfine time bubblewrap gnuplot-nox linux-perf
DEB_ALL   := $(DEB_BUILD) $(DEB_TEST) $(DEB_PEERS) $(DEB_CLIENTS) $(DEB_BENCH)
# tests/cri.bats: a CRI client in Python (grpcio, protobuf; api.proto from
# `apt-get source containerd`, compiled with protoc) and CNI's loopback
DEB_CRI   := python3-grpcio python3-protobuf protobuf-compiler dpkg-dev containernetworking-plugins
DEB_ALL   += $(DEB_CRI)
# make deb and tests/deb.bats: the package's checker
DEB_DEB   := lintian
DEB_ALL   += $(DEB_DEB)

.PHONY: all deps deps-build deps-src demo check unit bats bench bench-quick bench-v2 install deb clean conformance fuzz man

all: tinyrun

# --version: the commit (git describe, "unknown" outside git; libseccomp says its own
# version); rewritten only when it changes.
build/gen/version.h: FORCE
	@mkdir -p build/gen
	@c=$$(git -C $(CURDIR) describe --always --dirty --tags 2>/dev/null || echo unknown); \
	printf '#define TINYRUN_COMMIT "%s"\n' "$$c" >$@.new; \
	cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@
$(B)/runtime/main.o $(U)/runtime/main.o: build/gen/version.h
FORCE:

# runtime/entry/early_seal.c: the entry point, which re-executes create, run and exec sealed
# before libc starts (0.4-0.8 ms less of each here). It runs before the static PIE is
# relocated: freestanding, no call gcc could turn into memset/memcpy, and no relocation but
# PC-relative ones (checked here). x86_64 and aarch64; EARLY_SEAL=0 leaves it out (main's
# selfseal then does every re-exec, as it does whenever this one is unsure).
comma := ,
EARLY_SEAL ?= $(if $(filter x86_64-% aarch64-%,$(shell $(CC) -dumpmachine)),1,0)
EARLY_OBJ := $(if $(filter 1,$(EARLY_SEAL)),build/runtime/entry/early_seal.o)
$(B)/tinyrun: $(OBJS) $(EARLY_OBJ) $(MUSL_DONE)
	$(TCC) $(LDFLAGS) $(T_LDFLAGS) $(TINYRUN_LDFLAGS) $(if $(EARLY_OBJ),-Wl$(comma)-e$(comma)tinyrun_entry) -o $@ $(filter %.o,$^) $(LIBS_A) -lm
	@if readelf -lW $@ | grep -q INTERP; then echo "$@: not a static PIE (it asks for a dynamic linker)" >&2; rm -f $@; exit 1; fi
	@# oci/libc_sys.c's set*id are the raw, one-thread syscalls: true only while nothing starts a thread
	@if [ "$(LIBC)" = musl ] && nm $@ | grep -qw pthread_create; then echo "$@: links pthread_create: oci/libc_sys.c's set*id would change one thread's ids only" >&2; rm -f $@; exit 1; fi
# ./tinyrun: the build of LIBC. LIBC not given: musl's libraries first, and glibc when they
# cannot be built (one line, the reason in build/musl-libs/failed).
ifeq ($(LIBC_AUTO)$(LIBC),1musl)
tinyrun: FORCE
	@if [ ! -f $(MUSL_DONE) ]; then mkdir -p $(MUSL); echo "building musl's libraries (contrib/musl/libs.sh, log in $(MUSL)/libs.log)"; \
	  if ! $(MAKE) --no-print-directory LIBC=musl $(MUSL_DONE) >$(MUSL)/libs.log 2>&1; then \
	    grep -v '^make' $(MUSL)/libs.log | tail -n 1 >$(MUSL_FAILED); \
	    echo "tinyrun: musl's libraries could not be built ($$(cat $(MUSL_FAILED))): building with glibc (rm $(MUSL_FAILED) to retry)"; \
	    exec $(MAKE) --no-print-directory LIBC=glibc tinyrun; fi; fi; \
	  exec $(MAKE) --no-print-directory LIBC=musl tinyrun
else
tinyrun: $(B)/tinyrun FORCE
	@$(if $(LIBC_AUTO),$(if $(wildcard $(MUSL_FAILED)),echo "tinyrun: glibc build: musl's libraries could not be built ($$(cat $(MUSL_FAILED)); rm $(MUSL_FAILED) to retry)";))cmp -s $< $@ || cp -f $< $@
endif

EARLY_CFLAGS := -O2 -std=gnu11 -Wall -Wextra -Werror -I. -fPIE -ffreestanding -fno-builtin \
                -fno-stack-protector -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables
build/runtime/entry/early_seal.o: runtime/entry/early_seal.c runtime/container/selfseal_scan.h runtime/init/rawsys.h
	@mkdir -p $(dir $@)
	$(CC) $(EARLY_CFLAGS) -c -o $@.tmp $<
	@bad=$$(readelf -rW $@.tmp | awk '$$3 ~ /^R_/ && $$3 !~ /(PC32|PLT32|PREL|CALL26|JUMP26|CONDBR19|ABS_LO12_NC|ADR_PREL)/ { print $$3 }' | sort -u); \
	  if [ -n "$$bad" ]; then echo "$<: relocations that need the static PIE relocated: $$bad" >&2; rm -f $@.tmp; exit 1; fi
	@mv $@.tmp $@
	@if nm -u $@ | grep -vw _start | grep -q .; then echo "$<: calls outside itself: $$(nm -u $@ | grep -vw _start | tr '\n' ' ')" >&2; rm -f $@; exit 1; fi

$(B)/%.o: %.c $(wildcard */*.h */*/*.h) | $(MUSL_DONE)
	@mkdir -p $(dir $@)
	$(TCC) $(CFLAGS) -c -o $@ $<
ifneq ($(B),$(U))
$(U)/%.o: %.c $(wildcard */*.h */*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
endif

# build/musl-libs: musl's specs for gcc, and yajl, libseccomp, libcap built with musl
$(MUSL_DONE): contrib/musl/libs.sh
	+sh contrib/musl/libs.sh $(MUSL) "$(CC)"
	@touch $@

# oci/profiles.c embeds the shipped seccomp profiles byte for byte (.incbin).
$(B)/oci/profiles.o $(U)/oci/profiles.o: $(wildcard seccomp/profiles/*.json)

# tinyrun-init (runtime/init/): freestanding, static, no libc; embedded in
# tinyrun (runtime/container/init-image.c, .incbin) and run as the
# container's PID 1 when the config asks (run.tinyrun.init=true).
INIT_CFLAGS := -Os -static -nostdlib -nostartfiles -ffreestanding -fno-stack-protector \
               -fno-asynchronous-unwind-tables -fno-pie -no-pie -Wall -Wextra -Werror \
               -Wl,--build-id=none -Wl,-z,noexecstack -s
build/init/tinyrun-init: runtime/init/init.c runtime/init/rawsys.h runtime/init/init_args.h
	@mkdir -p $(dir $@)
	$(CC) $(INIT_CFLAGS) -o $@ $<
$(B)/runtime/container/init-image.o $(U)/runtime/container/init-image.o: build/init/tinyrun-init

# install_missing PACKAGES: apt-get install those not installed, saying so first (root).
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ -n "$(DEPS_DRY_RUN)" ]; then echo "make $@: missing$$missing" >&2; exit 1; fi; \
	  echo "make $@: apt-get update, then apt-get install --no-install-recommends$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "make $@: need root to install$$missing" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi
endef

deps-build:
	$(call install_missing,$(DEB_DEMO))

deps:
	$(call install_missing,$(DEB_ALL))

# tests/cri.bats compiles the CRI api.proto of `apt-get source containerd`: deb-src entries
# (a twin of each deb entry) when apt has none; the script says what it adds before it does.
deps-src:
	@if [ "$$(id -u)" = 0 ]; then sh tests/lib/cri/enable-deb-src.sh; fi

demo: deps-build
	@$(MAKE) --no-print-directory tinyrun
	@bash tests/demo.sh

# C unit tests: one binary per tests/unit/test_<module>_*.c, linked against oci/
# plus the objects of the module its name starts with (oci, rootfs, seccomp, cgroup;
# container: runtime/container/ with what it calls, runtime/sandbox, runtime/linux, runtime/cgroup,
# rootfs, seccomp and the log; cli: the command layer, everything but main.o).
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,build/tests/%,$(UNIT_SRCS))
# The unit tests are glibc's whatever LIBC (some include the kernel's headers with libc's
# the way glibc allows and musl does not): objects in build/glibc.
UOBJS     := $(patsubst %.c,$(U)/%.o,$(SRCS))
ULIBOBJS  := $(filter-out $(U)/runtime/main.o,$(UOBJS))
OCI_OBJS  := $(filter $(U)/oci/%,$(UOBJS))
unit_objs = $(OCI_OBJS) $(if $(filter test_rootfs_%,$(1)),$(filter $(U)/rootfs/%,$(UOBJS))) \
            $(if $(filter test_seccomp_%,$(1)),$(filter $(U)/seccomp/%,$(UOBJS))) \
            $(if $(filter test_cgroup_%,$(1)),$(filter $(U)/runtime/cgroup/%,$(UOBJS))) \
            $(if $(filter test_container_%,$(1)),$(filter $(U)/runtime/container/% $(U)/runtime/sandbox/% $(U)/runtime/linux/% \
              $(U)/runtime/cgroup/% $(U)/runtime/criu/% $(U)/rootfs/% $(U)/seccomp/% $(U)/runtime/log.o,$(UOBJS))) \
            $(if $(filter test_criu_%,$(1)),$(filter $(U)/runtime/criu/%,$(UOBJS))) \
            $(if $(filter test_cli_%,$(1)),$(filter-out $(OCI_OBJS),$(ULIBOBJS)))

.SECONDEXPANSION:
build/tests/%: tests/unit/%.c tests/unit/unit.h $$(call unit_objs,$$*)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(call unit_objs,$*) $(LDLIBS)

unit: $(UNIT_BINS)

# Fuzz targets tests/fuzz/fuzz_*.c over oci/ (with its room oci/sandbox/) + seccomp/. make check replays
# tests/fuzz/corpus/<target>/ with gcc + ASan/UBSan (build/fuzz-replay/);
# make fuzz builds libFuzzer binaries with clang (build/fuzz/) and runs each
# for FUZZ_SECONDS on a copy of that corpus. Both with FUZZ_SAN: undefined
# behaviour aborts (-fno-sanitize-recover=all) instead of printing and passing.
DEB_FUZZ     := clang
FUZZ_SRCS    := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_LIB     := $(wildcard oci/*.c oci/sandbox/*.c seccomp/*.c)
FUZZ_SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
REPLAY_BINS  := $(patsubst tests/fuzz/%.c,build/fuzz-replay/%,$(FUZZ_SRCS))
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRCS))
FUZZ_SECONDS ?= 60

build/fuzz-replay/%: tests/fuzz/%.c tests/fuzz/replay.h $(FUZZ_LIB) $(wildcard */*.h */*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FUZZ_SAN) -o $@ $< $(FUZZ_LIB) $(LDLIBS)

build/fuzz/%: tests/fuzz/%.c tests/fuzz/replay.h $(FUZZ_LIB) $(wildcard */*.h */*/*.h)
	@mkdir -p $(dir $@)
	clang $(CFLAGS) -Wno-unused-command-line-argument -DFUZZ_LIBFUZZER -fsanitize=fuzzer $(FUZZ_SAN) \
	  -o $@ $< $(FUZZ_LIB) $(LDLIBS)

fuzz:
	@$(MAKE) --no-print-directory deps DEB_ALL="$(DEB_FUZZ)"
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@for b in $(FUZZ_BINS); do t=$$(basename $$b); mkdir -p build/fuzz/corpus/$$t build/fuzz/crashes; \
	  cp -n tests/fuzz/corpus/$$t/* build/fuzz/corpus/$$t/ 2>/dev/null; \
	  nice -n 19 $$b -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix=build/fuzz/crashes/$$t- build/fuzz/corpus/$$t || exit 1; done

# TESTS="a b": only those bats suites (tests/a.bats ...); unit, fuzz-replay and conformance
# only when named there too
check: deps deps-src
	@$(MAKE) --no-print-directory tinyrun build/tinyrun.8 $(if $(TESTS),$(if $(filter unit,$(TESTS)),$(UNIT_BINS)) \
	  $(if $(filter fuzz-replay,$(TESTS)),$(REPLAY_BINS)),$(UNIT_BINS) $(REPLAY_BINS))
	@TESTS="$(TESTS)" bash tests/run-all.sh

bench: deps
	@$(MAKE) --no-print-directory tinyrun
	@bash tests/bench/bench.sh

# about a minute: fewer iterations, small cost curves, no memory bisection
bench-quick: deps
	@$(MAKE) --no-print-directory tinyrun
	@BENCH_QUICK=1 bash tests/bench/bench.sh

# the same bench in the cgroup v2 guest (the host's binaries; table in build/bench-v2/); the
# guest is emulated (TCG): by default the sequential rows only, 10 iterations (about 10 min);
# the calibration line is the guest's; BENCH_EXTRA="before=/path/to/tinyrun" adds a column
VM_RUN ?= ../shared/tools/vm-run
bench-v2: deps
	@$(MAKE) --no-print-directory tinyrun
	@$(VM_RUN) --cpus 2 --mem 4G --timeout 1800 -e BENCH_N=$${BENCH_N:-10} -e BENCH_EXTRA \
	  -e BENCH_PARTS="$${BENCH_PARTS:-seq}" -e BENCH_OUT=build/bench-v2 \
	  -e BENCH_TIMEOUT=$${BENCH_TIMEOUT:-60} -- bash tests/bench/bench.sh

conformance: deps
	@$(MAKE) --no-print-directory tinyrun
	@bash tests/conformance/run.sh $(RUNTIME)

# tinyrun(8): contrib/man/tinyrun.8.in with the sections the binary's option
# tables make (the same tables as --help and completion).
man: build/tinyrun.8
build/tinyrun.8: contrib/man/tinyrun.8.in tinyrun
	@mkdir -p build
	./tinyrun help --man >$@.sections
	sed -e 's/@VERSION@/$(VERSION)/' -e "s/@DATE@/$$(date -u -r contrib/man/tinyrun.8.in +%Y-%m-%d)/" \
	    -e '/^@SECTIONS@$$/{r $@.sections' -e 'd}' contrib/man/tinyrun.8.in >$@
	rm -f $@.sections

install: tinyrun build/tinyrun.8
	install -D -m 0755 tinyrun $(DESTDIR)$(PREFIX)/bin/tinyrun
	install -D -m 0644 build/tinyrun.8 $(DESTDIR)$(PREFIX)/share/man/man8/tinyrun.8
	install -D -m 0644 contrib/completions/tinyrun.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tinyrun

# build/tinyrun_<version>_<arch>.deb: `make install`'s files under /usr, with
# contrib/debian/ and contrib/'s client snippets as documentation (dpkg-deb, no debhelper)
deb: tinyrun build/tinyrun.8
	rm -rf build/deb
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/build/deb/root PREFIX=/usr
	sh contrib/debian/build-deb.sh build/deb/root $(VERSION) build

clean:
	rm -rf build tinyrun
