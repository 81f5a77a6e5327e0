#!/usr/bin/env bash
# The C++ suites, and the Python suites against the extension, under
# AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all: any
# report fails the run; leaks are checked in the C++ run). One build in
# build-asan serves both: the library is the expensive part and is built once.
# Sanitizer builds allocate through malloc instead of mimalloc (OAR_SYSTEM_MALLOC),
# so ASan sees every tensor buffer and grad node.
#   bash scripts/asan.sh          # both;  ASAN_PART=cpp or ASAN_PART=python: one
# PYTEST_ARGS overrides which Python tests run (default: all of tests/python but
# the two RSS-growth checks of test_leaks.py: ASan's quarantine holds freed
# blocks, so RSS grows by design; the allocator-statistics checks still run).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${ASAN_BUILD_DIR:-build-asan}
PART=${ASAN_PART:-all}
PY=$(command -v "${PYTHON:-python3}")

# -O0: the kernels' templates under ASan+UBSan compile ~5x faster than at -O1
# (~15x than at -O3), the suites still run in seconds, and nothing is optimised
# away before the sanitizers see it. _GLIBCXX_ASSERTIONS adds libstdc++'s bounds
# checks (operator[] within capacity but past size(), which ASan cannot see).
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g -D_GLIBCXX_ASSERTIONS" -DOAR_SANITIZE=address,undefined \
  -DOAR_BUILD_TESTS=ON -DOAR_BUILD_PYTHON=ON -DPython3_EXECUTABLE="$PY" >/dev/null
targets=()
[ "$PART" != python ] && targets+=(oar_tests)
[ "$PART" != cpp ] && targets+=(_C)
cmake --build "$BUILD" --target "${targets[@]}" -j "$(nproc)"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Each suite runs as one shard per core at once (a sanitized test process keeps
# about one core busy; one process each took 8.5 and 11 of a 33-minute CI run on
# two cores). Every shard logs to its own file, printed when all have ended; the
# run fails if any shard failed.
SHARDS=$(nproc)
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT
run_shards() {  # run_shards NAME COMMAND...: the command once per shard, SHARD=i
  local name=$1 pids=() status=0
  shift
  for ((i = 0; i < SHARDS; i++)); do
    SHARD=$i "$@" >"$LOGS/$name.$i.log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < SHARDS; i++)); do
    wait "${pids[$i]}" || status=1
    echo "-- shard $((i + 1)) of $SHARDS --"
    cat "$LOGS/$name.$i.log"
  done
  return $status
}

cpp_shard() {  # gtest's own sharding; TempDir() per shard (test files have fixed names)
  mkdir -p "$LOGS/tmp$SHARD"
  GTEST_TOTAL_SHARDS=$SHARDS GTEST_SHARD_INDEX=$SHARD TEST_TMPDIR="$LOGS/tmp$SHARD/" \
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:check_initialization_order=1 \
    "$ROOT/$BUILD/tests/cpp/oar_tests" --gtest_brief=1
}

if [ "$PART" != python ]; then
  echo "== C++ suites under ASan+UBSan =="
  run_shards cpp cpp_shard
fi

if [ "$PART" != cpp ]; then
  echo "== Python suites under ASan+UBSan =="
  # The package as pip would lay it out, in a scratch directory outside the
  # tree (tests/python/conftest.py insists), put first on sys.path: the
  # installed oar is left alone. _C finds build-asan/liboar.so by its RPATH.
  PKG=$(mktemp -d)
  trap 'rm -rf "$PKG" "$LOGS"' EXIT
  cp -r python/oar "$PKG/oar"
  ln -s "$ROOT/$BUILD"/_C.*.so "$ROOT/$BUILD/liboar.so" "$PKG/oar/"
  # The interpreter is not instrumented: the ASan runtime must be loaded first,
  # and libstdc++ with it (else ASan's __cxa_throw interceptor finds no real
  # __cxa_throw: "CHECK failed ... real___cxa_throw" at the first C++ throw).
  # CPython frees little at exit, so no leak check; PYTHONMALLOC=malloc sends
  # Python objects through ASan's malloc too (catches refcount bugs in the
  # bindings); --capture=sys keeps a sanitizer report on the terminal.
  # allocator_may_return_null: a tensor of many GB (the fuzzer's randperm(2**31),
  # pads of 2**31) is refused with a null, which oar turns into its typed
  # ResourceExhausted as the normal build does, instead of an ASan abort.
  if [ -n "${PYTEST_ARGS:-}" ]; then
    read -r -a args <<<"$PYTEST_ARGS"
  else
    skip="test_forward_backward_loop_keeps_memory_flat or test_grad_create_graph_and_double_backward_loop_flat"
    args=("$ROOT/tests/python" -k "not ($skip)")
  fi
  py_shard() {  # tests/python/conftest.py deals the collected tests out by OAR_TEST_SHARD
    (cd "$PKG" && env PYTHONPATH="$PKG" PYTHONMALLOC=malloc OAR_TEST_SHARD="$SHARD/$SHARDS" \
       LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)" \
       ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
       "$PY" -m pytest -q -p no:cacheprovider --capture=sys "${args[@]}")
  }
  run_shards python py_shard
fi
