# A thin wrapper over CMake: `make`, `make test`, `make leaderboard`.
BUILD ?= build
CMAKE ?= cmake
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all test leaderboard clean

all:
	@$(CMAKE) -S . -B $(BUILD) -DHARNESS_TESTS=OFF >/dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

test:
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
