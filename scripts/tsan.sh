#!/usr/bin/env bash
# The concurrency tests (independent backward passes on 8 threads, grad mode
# per thread, shared leaves, the intra-op pool), the engine tests and the
# profiler's (threads recording while profilers collect), built and run under
# ThreadSanitizer: every test of the gtest suites in SUITES.
# Sanitizer builds allocate through malloc (OAR_SYSTEM_MALLOC): TSan does not
# see mimalloc's own synchronisation.
# The build (build-tsan) is the whole library, instrumented, and oar_tests from
# only the files that hold those suites (OAR_TEST_FILES): the other test files
# would be compiled under TSan for tests this script never runs.
set -euo pipefail
cd "$(dirname "$0")/.."
SUITES=(Threads Engine GeneralGrad Hooks Profiler)
pattern="^(TEST|TEST_F|TEST_P|TYPED_TEST)\(($(IFS='|'; echo "${SUITES[*]}")),"
files=$(grep -lE "$pattern" tests/cpp/test_*.cc | xargs -n1 basename | sort | paste -sd';')
# -O0: TSan sees every access at any level, and these suites run in seconds either way;
# the kernel files, whose templates are most of the build, compile about 4x faster
# than at -O1 (math_kernels.cc: 19 s against 72 s), which is what a change to a
# header they all include costs CI here.
# For the baseline x86-64 (OAR_NATIVE=OFF), not the building CPU: these suites do not
# depend on the ISA, and this keeps the configuration of a portable build compiling.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g" -DOAR_SANITIZE=thread -DOAR_BUILD_PYTHON=OFF -DOAR_NATIVE=OFF \
  -DOAR_TEST_FILES="$files" >/dev/null
cmake --build build-tsan --target oar_tests -j "$(nproc)"
echo "== ${SUITES[*]} under TSan (tests/cpp: ${files//;/ }) =="
filter=$(printf '%s.*:' "${SUITES[@]}")
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  build-tsan/tests/cpp/oar_tests --gtest_brief=1 --gtest_filter="${filter%:}"
