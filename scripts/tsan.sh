#!/usr/bin/env bash
# The concurrency tests (independent backward passes on 8 threads, grad mode
# per thread, shared leaves), the engine tests and the profiler's (threads
# recording while profilers collect), built and run under ThreadSanitizer.
# Sanitizer builds allocate through malloc (OAR_SYSTEM_MALLOC): TSan does not
# see mimalloc's own synchronisation.
set -euo pipefail
cd "$(dirname "$0")/.."
# -O1, the level TSan is meant for: much quicker to build than the library's -O3.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DOAR_SANITIZE=thread -DOAR_BUILD_PYTHON=OFF >/dev/null
cmake --build build-tsan --target oar_tests -j "$(nproc)"
echo "== Threads, engine and hooks under TSan =="
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  build-tsan/tests/cpp/oar_tests --gtest_brief=1 --gtest_filter='Threads.*:Engine.*:GeneralGrad.*:Hooks.*:Profiler.*'
