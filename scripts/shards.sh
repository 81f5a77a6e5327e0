# Sourced by the test scripts: run_shards runs a command once per core at once.
#   run_shards NAME COMMAND...   # COMMAND sees SHARD=i and SHARDS=n in its environment
# Every shard logs to its own file, printed when all have ended (a failing
# shard's output is not interleaved with the others'); the call fails if any
# shard failed. SHARDS defaults to the number of cores.
# tests/python/conftest.py deals the collected tests out by OAR_TEST_SHARD=i/n
# (round-robin, so that slow files are spread over all shards); gtest shards by
# GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX.
SHARDS=${SHARDS:-$(nproc)}
SHARD_LOGS=$(mktemp -d)
trap 'rm -rf "$SHARD_LOGS"' EXIT
run_shards() {
  local name=$1 pids=() status=0 i
  shift
  for ((i = 0; i < SHARDS; i++)); do
    SHARD=$i SHARDS=$SHARDS "$@" >"$SHARD_LOGS/$name.$i.log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < SHARDS; i++)); do
    wait "${pids[$i]}" || status=1
    echo "-- $name: shard $((i + 1)) of $SHARDS --"
    cat "$SHARD_LOGS/$name.$i.log"
  done
  return $status
}
