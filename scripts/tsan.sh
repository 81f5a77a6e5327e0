#!/usr/bin/env bash
# The concurrency tests (independent backward passes on 8 threads, grad mode
# per thread) and the engine tests, built and run under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOAR_SANITIZE=thread \
  -DOAR_BUILD_PYTHON=OFF >/dev/null
cmake --build build-tsan --target oar_tests -j "$(nproc)"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  build-tsan/tests/cpp/oar_tests --gtest_filter='Threads.*:Engine.*:GeneralGrad.*:Hooks.*'
