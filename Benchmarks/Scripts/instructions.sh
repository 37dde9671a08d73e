#!/usr/bin/env bash
# Instructions per operation on Inject's hot paths, counted by valgrind's callgrind: deterministic, where
# wall-clock times on a shared 2-core machine move by 20% from one run to the next. Each workload runs twice,
# 0 and n times, and the difference is divided by the operations of the n runs, so set-up cancels out.
#
#   Benchmarks/Scripts/instructions.sh                               # this checkout
#   Benchmarks/Scripts/instructions.sh /path/to/other/checkout       # another commit, same harness
#   Benchmarks/Scripts/instructions.sh /path/to/older --core-only    # one from before autowired and argument caching
#
# Needs valgrind. Builds InstructionCounts/ in release from scratch each time (about 30 s): SwiftPM can miss a
# change in a path dependency's sources and link a stale build.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
inject=$(cd "${1:-$here/..}" && pwd)
flags=()
workloads=(register singleton argument chain chain-autowired injected resolves scoped request validate)
if [ "${2:-}" = "--core-only" ]; then
  flags=(-Xswiftc -DONLY_CORE)
  workloads=(register singleton chain injected resolves scoped request validate)
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
INJECT_PATH="$inject" swift build -c release --package-path "$here/InstructionCounts" --scratch-path "$scratch" \
  ${flags[@]+"${flags[@]}"} > /dev/null
binary="$scratch/release/InstructionCounts"

collected() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" "$2" 2>&1 | awk '/Collected/ { print $4 }'
}

echo "Inject at $inject ($(git -C "$inject" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))"
for workload in "${workloads[@]}"; do
  case $workload in
    register) runs=20 ops=20000 unit="per registration" ;;
    validate) runs=3 ops=3 unit="per validate() of 1,000 services" ;;
    injected | resolves) runs=100000 ops=100000 unit="per object with three services" ;;
    scoped) runs=100000 ops=100000 unit="per resolve of a built .scoped service through its child" ;;
    request) runs=20000 ops=20000 unit="per request: child, registration, handler over a .scoped service, release" ;;
    chain | chain-autowired) runs=100000 ops=100000 unit="per resolve of a 3-deep transient chain" ;;
    *) runs=100000 ops=100000 unit="per resolve" ;;
  esac
  before=$(collected "$workload" 0)
  after=$(collected "$workload" "$runs")
  printf '%-16s %12d instructions %s\n' "$workload" $(((after - before) / ops)) "$unit"
done
