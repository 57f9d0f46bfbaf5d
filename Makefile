# A thin wrapper over CMake: `make`, `make test`, `make leaderboard`.
BUILD ?= build
CMAKE ?= cmake
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# nvcc where the CUDA toolkit installs it, for shells whose PATH lacks it (CI's): CMake's
# CUDAToolkit and the stage builds of the tests look for it on PATH first
ifeq ($(shell command -v nvcc 2>/dev/null),)
export PATH := $(PATH)$(if $(CUDA_HOME),:$(CUDA_HOME)/bin):/usr/local/cuda/bin
endif

.PHONY: all test leaderboard clean

all:
	@$(CMAKE) -S . -B $(BUILD) -DHARNESS_TESTS=OFF >/dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

# tools/ensure_test_deps.sh finds Criterion (or installs it, as root with apt-get) or says in one
# line how to install it; HARNESS_NO_INSTALL=1 forbids installing
test:
	@bash tools/ensure_test_deps.sh
	@$(CMAKE) -S . -B $(BUILD) -DHARNESS_TESTS=ON >/dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS)
	@# ctest hides a skipped suite's output: say here why the GPU suites will skip, if they do
	@$(BUILD)/tests/test_gpu_reference --filter 'no-such-suite/*' >/dev/null 2>&1 || \
		$(BUILD)/tests/test_gpu_reference --filter 'no-such-suite/*' || true
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

leaderboard: all
	./$(BUILD)/harness leaderboard --problem gemm_fp16

clean:
	rm -rf $(BUILD)
