#!/usr/bin/env bash
# A two-host data-parallel run on one machine: two network namespaces joined by a
# veth pair play two hosts (10.77.0.1 and 10.77.0.2); one launcher per "host" starts
# one process, and they train examples/distributed_mlp.py through Gloo over the veth.
# Needs root and iproute2. Usage: scripts/netns_two_hosts.sh [STEPS]
set -euo pipefail
STEPS=${1:-30}
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
A=oar_host_a B=oar_host_b
cleanup() { ip netns del $A 2>/dev/null || true; ip netns del $B 2>/dev/null || true; }
trap cleanup EXIT
cleanup
ip netns add $A
ip netns add $B
ip link add oar_veth_a type veth peer name oar_veth_b
ip link set oar_veth_a netns $A
ip link set oar_veth_b netns $B
ip -n $A addr add 10.77.0.1/24 dev oar_veth_a
ip -n $B addr add 10.77.0.2/24 dev oar_veth_b
for ns in $A $B; do ip -n $ns link set lo up; done
ip -n $A link set oar_veth_a up
ip -n $B link set oar_veth_b up
echo "host a: $(ip -n $A -4 -o addr show oar_veth_a | awk '{print $4}'), host b: $(ip -n $B -4 -o addr show oar_veth_b | awk '{print $4}')"
run() {  # namespace node_rank
  ip netns exec "$1" env PYTHONPATH="${PYTHONPATH:-}" OMP_NUM_THREADS=1 OAR_DIST_TIMEOUT=60 \
    "$PY" -m oar.distributed.launch --nnodes 2 --node_rank "$2" --master 10.77.0.1:29571 \
    --nproc_per_node 1 "$HERE/examples/distributed_mlp.py" --steps "$STEPS" 2>&1 | sed "s/^/[host $2] /"
}
run $A 0 & pa=$!
run $B 1 & pb=$!
wait $pa && ra=0 || ra=$?
wait $pb && rb=0 || rb=$?
echo "host a exit $ra, host b exit $rb"
exit $((ra || rb))
