#!/usr/bin/env bash
# The C++ suites, and the Python suites against the extension, under
# AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all: any
# report fails the run; leaks are checked in the C++ run). One build in
# build-asan serves both: the library is the expensive part and is built once.
# Sanitizer builds allocate through malloc instead of mimalloc (OAR_SYSTEM_MALLOC),
# so ASan sees every tensor buffer and grad node.
#   bash scripts/asan.sh          # both;  ASAN_PART=cpp or ASAN_PART=python: one
#   ASAN_PYTHON=all bash scripts/asan.sh   # the whole Python suite (see below)
# The C++ run is the whole of oar_tests, the op registry's every case included.
# The Python run (ASAN_PYTHON=bindings, the default, as in CI) takes the files
# that drive the extension's own code: the bindings (Tensor methods, operators,
# indexing, argument parsing, typed errors, dtypes), the engine from Python
# (hooks, PyLayer, grad nodes, saved tensors, leaks), the C++ that only Python
# reaches (checkpoint files, DataLoader workers, the profiler, autocast state),
# the fuzzer's smoke run and regressions, the bounds checks, and what the op
# registry's Python driver checks beyond the C++ driver (OpenMP paths, methods,
# in-place forms). It leaves out the files that compose ops in Python (nn,
# vision, audio, datasets, optimizers...): under ASan those run kernels the C++
# run already covers, through binding code these files cover. ASAN_PYTHON=all
# runs all of tests/python instead (run it by hand after a change to the
# bindings, the engine or the allocator, and before a release).
# Both leave out the two RSS-growth checks of test_leaks.py: ASan's quarantine
# holds freed blocks, so RSS grows by design; the allocator-statistics checks
# still run. PYTEST_ARGS overrides the choice (pytest's arguments).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# The Python files of ASAN_PYTHON=bindings (tests/python/).
ASAN_PYTHON_FILES=(
  # the Tensor's bindings: creation, methods, operators, indexing, dtypes, printing
  test_creation.py test_tensor.py test_tensor_methods.py test_indexing_scatter.py
  test_dtypes.py test_dtype_promotion.py test_complex.py test_printing.py
  # argument parsing and typed errors of the bindings and the Python layer
  test_errors.py test_python_arg_checks.py test_python_bounds_ops.py test_python_bounds_nn.py
  # the engine from Python: hooks, PyLayer, grad nodes, saved tensors, lifetimes
  test_autograd_py.py test_pylayer_context.py test_graph_access.py test_leaks.py
  # C++ that only Python reaches: checkpoint files, DataLoader workers, profiler, autocast
  test_checkpoint.py test_io.py test_profiler.py test_amp_auto_cast.py
  # the fuzzer's smoke run and the regressions of its and the sanitizers' findings
  test_fuzz_smoke.py test_fuzz_regressions_py.py test_fuzz_regressions_ops.py test_reliability.py
  # the op registry's Python driver but for what the C++ run checks already (below)
  test_ops_vs_torch.py
  # custom operators: user libraries driving the extension layer (registry, runner, grad ops)
  test_custom_op.py
)
# Left out of the Python driver: test_forward, test_grad and test_double_grad.
# Their real cases are the C++ driver's (forward in four float dtypes, gradients
# of orders 1-3), which the C++ run checks through the same kernels; the kernels
# of their integer and complex cases still run here, through test_method (every
# case as a Tensor method, in its dtypes) and test_complex_grad_by_finite_differences.
# The OpenMP paths (*_parallel), the in-place forms and the methods stay.
ASAN_PYTHON_DESELECT=(test_forward test_grad test_double_grad)
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
# two cores): scripts/shards.sh.
source scripts/shards.sh

cpp_shard() {  # gtest's own sharding; TempDir() per shard (test files have fixed names)
  mkdir -p "$SHARD_LOGS/tmp$SHARD"
  GTEST_TOTAL_SHARDS=$SHARDS GTEST_SHARD_INDEX=$SHARD TEST_TMPDIR="$SHARD_LOGS/tmp$SHARD/" \
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
  trap 'rm -rf "$PKG" "$SHARD_LOGS"' EXIT
  cp -r python/oar "$PKG/oar"
  ln -s "$ROOT/$BUILD"/_C.*.so "$ROOT/$BUILD/liboar.so" "$PKG/oar/"
  # The C++ headers custom-op sources include (oar.sysconfig.get_include()).
  mkdir -p "$PKG/oar/include"
  cp -r src/oar src/paddle "$PKG/oar/include/"
  cp -r "$BUILD/generated/oar/." "$PKG/oar/include/oar/"
  # The interpreter is not instrumented: the ASan runtime must be loaded first,
  # and libstdc++ with it (else ASan's __cxa_throw interceptor finds no real
  # __cxa_throw: "CHECK failed ... real___cxa_throw" at the first C++ throw).
  # CPython frees little at exit, so no leak check; PYTHONMALLOC=malloc sends
  # Python objects through ASan's malloc too (catches refcount bugs in the
  # bindings); --capture=sys keeps a sanitizer report on the terminal.
  # allocator_may_return_null: a tensor of many GB (the fuzzer's randperm(2**31),
  # pads of 2**31) is refused with a null, which oar turns into its typed
  # ResourceExhausted as the normal build does, instead of an ASan abort.
  skip="test_forward_backward_loop_keeps_memory_flat or test_grad_create_graph_and_double_backward_loop_flat"
  case "${ASAN_PYTHON:-bindings}" in
    all) args=("$ROOT/tests/python" -k "not ($skip)") ;;
    bindings)
      args=("${ASAN_PYTHON_FILES[@]/#/$ROOT/tests/python/}" -k "not ($skip)")
      for t in "${ASAN_PYTHON_DESELECT[@]}"; do  # node ids from the rootdir, a case's "[" ends the name
        args+=(--deselect "tests/python/test_ops_vs_torch.py::$t[")
      done ;;
    *) echo "asan.sh: ASAN_PYTHON=${ASAN_PYTHON} (want bindings or all)" >&2; exit 2 ;;
  esac
  if [ -n "${PYTEST_ARGS:-}" ]; then
    read -r -a args <<<"$PYTEST_ARGS"
  fi
  py_shard() {  # tests/python/conftest.py deals the collected tests out by OAR_TEST_SHARD
    (cd "$PKG" && env PYTHONPATH="$PKG" PYTHONMALLOC=malloc OAR_TEST_SHARD="$SHARD/$SHARDS" \
       LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)" \
       ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
       "$PY" -m pytest -q -p no:cacheprovider --capture=sys "${args[@]}")
  }
  run_shards python py_shard
fi
