#!/usr/bin/env bash
# Build the binding candidates and run the benchmark:  benchmarks/bindings/run.sh
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python}
OUT=build
mkdir -p "$OUT"

PYINC=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
SUFFIX=$($PY -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
PB11=$($PY -c 'import pybind11; print(pybind11.get_include())')
NB=$($PY -c 'import nanobind, os; print(os.path.dirname(nanobind.__file__))')
CXX=${CXX:-g++}
FLAGS=(-std=c++20 -O2 -DNDEBUG -fPIC -fvisibility=hidden -I"$PYINC" -I.)

# compile "$@" into $OUT/$1, in the background
build() { echo "  $1"; "$CXX" "${FLAGS[@]}" "${@:2}" -o "$OUT/$1" & pids+=($!); }
join() { for p in "${pids[@]}"; do wait "$p"; done; pids=(); }
pids=()

echo "building (${CXX}, -O2) ..."
# nanobind's runtime library is built separately with -DNB_BUILD, as its CMake helper does
# (which uses -Os by default; we use -O2 to give it the best chance).
NBINC=(-I"$NB/include" -I"$NB/ext/robin_map/include")
build nb_combined.o -c "$NB/src/nb_combined.cpp" -DNB_BUILD -fno-strict-aliasing "${NBINC[@]}"
build bind_raw$SUFFIX -shared raw_mod.cpp
join
build bind_raw_nofreelist$SUFFIX -shared raw_mod.cpp -DMODNAME=bind_raw_nofreelist -DOAR_FREELIST=0
build bind_pybind11$SUFFIX -shared pybind11_mod.cpp -I"$PB11"
join
build bind_nanobind$SUFFIX -shared nanobind_mod.cpp "$OUT/nb_combined.o" "${NBINC[@]}"
join

PYTHONPATH="$OUT${PYTHONPATH:+:$PYTHONPATH}" "$PY" bench.py "$@"
