# A thin wrapper over CMake: `make`, `make test`, `make leaderboard`.
BUILD ?= build
CMAKE ?= cmake
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# pipefail: a filtered build still fails with its own status
SHELL := /bin/bash
# quiet: no "Entering/Leaving directory" from CMake's nested makes
MAKEFLAGS += --no-print-directory
# cmake --build without its "Built target" line per target (what was rebuilt, and errors, stay)
BUILD_QUIET = set -o pipefail; $(CMAKE) --build $(BUILD) -j $(JOBS) | \
	{ grep --line-buffered -v '^\[ *[0-9]*%\] Built target ' || true; }

# nvcc where the CUDA toolkit installs it, for shells whose PATH lacks it (CI's): CMake's
# CUDAToolkit and the stage builds of the tests look for it on PATH first
ifeq ($(shell command -v nvcc 2>/dev/null),)
export PATH := $(PATH)$(if $(CUDA_HOME),:$(CUDA_HOME)/bin):/usr/local/cuda/bin
endif

.PHONY: all test test-asan leaderboard clean

all:
	@$(CMAKE) -S . -B $(BUILD) -DHARNESS_TESTS=OFF >/dev/null
	@$(BUILD_QUIET)

# tools/ensure_test_deps.sh finds Criterion (or installs it, as root with apt-get) or says in one
# line how to install it; HARNESS_NO_INSTALL=1 forbids installing
test:
	@bash tools/ensure_test_deps.sh
	@$(CMAKE) -S . -B $(BUILD) -DHARNESS_TESTS=ON >/dev/null
	@$(BUILD_QUIET)
	@# the sandbox-filter tests skip without libseccomp (CMake finds it by pkg-config): say so here
	@pkg-config --exists libseccomp 2>/dev/null || echo "make test: libseccomp not found, so the \
	seccomp filter is off and its tests will skip (Debian: apt-get install libseccomp-dev)"
	@# ctest hides a skipped suite's output: say here why the GPU suites will skip, if they do
	@$(BUILD)/tests/test_gpu_reference --filter 'no-such-suite/*' >/dev/null 2>&1 || \
		$(BUILD)/tests/test_gpu_reference --filter 'no-such-suite/*' || true
	@# a line per suite (Passed / Failed / Skipped) and ctest's summary, without its "Start" lines;
	@# test_stages_build reuses the harness's compile cache (build/cache): only changed stages build
	@cd $(BUILD) && set -o pipefail && ctest --output-on-failure -j $(JOBS) | \
		{ grep --line-buffered -v '^ *Start  *[0-9]*: ' || true; }

# The CPU suites again, built apart ($(ASAN_BUILD)) with AddressSanitizer and
# UndefinedBehaviorSanitizer (any UB stops the test): CI runs it after `make test`, which saw to
# Criterion. Not the GPU suites nor test_stages_build (stage builds: nothing of ours to check).
# ASAN_OPTIONS: no leak check (the suites fork a child per test and the harness forks its
# workers; what a child leaves at _exit is not a leak) and protect_shadow_gap=0, which CUDA's
# runtime needs to map its memory beside ASan's shadow where a device exists. A sanitizer's
# report exits 99, a code the harness never uses, so a test expecting exit 1 (tests failed)
# cannot pass on a harness that died after printing its line. --no-tests=error: a suite renamed
# out of the list fails here rather than vanishing.
ASAN_BUILD ?= build-asan
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ASAN_SUITES = test_problems test_check test_fp16 test_sig test_build test_stats test_cli test_leaderboard test_lb_check \
	test_sweep test_gpus test_inspect test_deps test_family test_fuzz test_protocol test_json_utf8
test-asan:
	@bash tools/ensure_test_deps.sh
	@$(CMAKE) -S . -B $(ASAN_BUILD) -DHARNESS_TESTS=ON "-DCMAKE_C_FLAGS=$(SAN_FLAGS)" \
		"-DCMAKE_EXE_LINKER_FLAGS=$(SAN_FLAGS)" >/dev/null
	@$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS) --target harness $(ASAN_SUITES)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=0:exitcode=99 \
		UBSAN_OPTIONS=print_stacktrace=1:exitcode=99 \
		ctest --output-on-failure --no-tests=error -j $(JOBS) -R '^($(subst $(eval) ,|,$(strip $(ASAN_SUITES))))$$'

leaderboard: all
	./$(BUILD)/harness leaderboard --problem gemm_fp16

clean:
	rm -rf $(BUILD)
