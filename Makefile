# The front door. The build itself is meson; see README.md.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_TSAN ?= build-tsan
MESON_TEST  = meson test --print-errorlogs --num-processes 2
# make install: under PREFIX (the build's prefix is set to it), staged under
# DESTDIR when given (packaging); make uninstall removes what it installed.
PREFIX     ?= /usr/local

.PHONY: all deps build demo test test-main test-asan test-tsan bench clean install uninstall

all: build

deps:
	scripts/install-deps

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	scripts/demo $(BUILD)

# The whole suite in the normal build (gcc), again under ASan+UBSan (gcc),
# and the concurrency tests under ThreadSanitizer built with clang, so every
# file also compiles -Werror clean with clang (tracing compiled out there:
# the tracer's own lock-free buffers are not what we test).
# The libFuzzer campaign (suite fuzz) runs once, in the main build: it
# builds its own clang ASan+UBSan binary. So does the lint suite
# (clang-format, shellcheck, clang-tidy: the tree, not a build).
# make test overlaps them (tests/make-test.py, docs/testing.md): the main
# build's tests that may run beside others start at once, while the ASan
# and TSan builds are built and their such tests run; then the tests that
# must run alone, one at a time; scripts/test-summary adds up the logs.
# test-main, test-asan and test-tsan run one build's tests, as before.
ASAN_SUITES = --no-suite record --no-suite install --no-suite fuzz --no-suite lint
TSAN_SUITES = --suite concurrency

test: build $(BUILD_ASAN)/build.ninja $(BUILD_TSAN)/build.ninja
	tests/make-test.py $(BUILD) -- $(BUILD_ASAN) $(ASAN_SUITES) -- $(BUILD_TSAN) $(TSAN_SUITES)

test-main: build
	$(MESON_TEST) -C $(BUILD)

# float-cast-overflow is not in gcc's -fsanitize=undefined set (a double out
# of range converted to an integer is undefined behaviour). Frame pointers:
# LeakSanitizer unwinds allocations' stacks by them (meson.build, test_env).
# -O1, as AddressSanitizer's documentation advises: the build costs 0.58x
# the CPU time of -O3 and its tests the same (docs/testing.md).
$(BUILD_ASAN)/build.ninja:
	meson setup $(BUILD_ASAN) -Db_sanitize=address,undefined -Db_lto=false -Dbench=false \
	  -Doptimization=1 \
	  -Dc_args="-fsanitize=float-cast-overflow -fno-omit-frame-pointer" \
	  -Dc_link_args=-fsanitize=float-cast-overflow

test-asan: deps $(BUILD_ASAN)/build.ninja
	ninja -C $(BUILD_ASAN)
	$(MESON_TEST) -C $(BUILD_ASAN) $(ASAN_SUITES)

$(BUILD_TSAN)/build.ninja:
	CC=clang meson setup $(BUILD_TSAN) -Db_sanitize=thread -Db_lundef=false -Db_lto=false \
	  -Dtracing=disabled -Dbench=false

test-tsan: deps $(BUILD_TSAN)/build.ninja
	ninja -C $(BUILD_TSAN)
	$(MESON_TEST) -C $(BUILD_TSAN) $(TSAN_SUITES)

# The prefix is compiled into nothing but the install paths: a PREFIX
# other than the build's only reconfigures. Installing needs no Debian
# packages beyond the build's (no 'deps': a packager's chroot has its own).
install: $(BUILD)/build.ninja
	@cur=$$(meson introspect $(BUILD) --buildoptions | \
	  python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))'); \
	[ "$$cur" = "$(PREFIX)" ] || meson configure $(BUILD) -Dprefix="$(PREFIX)"
	ninja -C $(BUILD)
	meson install -C $(BUILD) --no-rebuild $(if $(DESTDIR),--destdir "$(DESTDIR)")

# What the last meson install wrote, removed: its log holds the paths,
# DESTDIR included: the files, then (deepest first) the folders it had to
# create, those left empty.
uninstall:
	@log=$(BUILD)/meson-logs/install-log.txt; \
	test -f $$log || { echo "make uninstall: nothing installed from $(BUILD)" >&2; exit 1; }; \
	grep -v '^#' $$log | while IFS= read -r f; do \
	  if [ -L "$$f" ] || [ -f "$$f" ]; then rm -f "$$f" && echo "removed $$f"; fi; \
	done; \
	grep -v '^#' $$log | sort -r | while IFS= read -r d; do \
	  if [ -d "$$d" ]; then rmdir "$$d" 2>/dev/null && echo "removed $$d/" || true; fi; \
	done

bench: build
	ninja -C $(BUILD) bench-all

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN)
