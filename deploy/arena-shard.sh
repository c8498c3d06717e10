#!/bin/bash
# One shard of a tournament on a cluster, started or resumed; or the merge of the shards.
# Shared by deploy/slurm-array.sh and the Kubernetes Jobs (the image has it on PATH).
#
#   arena-shard.sh play [--cpus N] TOURNAMENT.yaml OUTDIR SHARDS INDEX
#   arena-shard.sh merge OUTDIR
#
# play: shard INDEX of SHARDS (0-based) into OUTDIR/shard-INDEX; if that directory has a log,
#   the shard resumes (it must be the same shard of the same tournament file). SHARDS is the
#   run's, never the scheduler's: any subset of indices can be run again. --cpus N: the CPUs
#   granted; one worker each, unless the tournament file sets `concurrency`.
# merge: OUTDIR/shard-* into OUTDIR/report; it fails, naming the shards, if games are missing
#   or logged twice.
# Output (progress lines every few seconds) is printed and appended to OUTDIR/shard-INDEX/
# output.log (OUTDIR/merge.log), across restarts. OUTDIR must be on storage every node sees.
# The arena binary: $ARENA, else `arena` on PATH, else target/release/arena of the repository
# this script is in.
set -euo pipefail

fail() {
  echo "arena-shard.sh: $*" >&2
  exit 2
}

find_arena() {
  if [ -n "${ARENA:-}" ]; then
    [ -x "$ARENA" ] || fail "ARENA=$ARENA is not an executable file"
    echo "$ARENA"
    return
  fi
  if command -v arena >/dev/null 2>&1; then
    command -v arena
    return
  fi
  local built
  built="$(dirname "$(readlink -f "$0")")/../target/release/arena"
  if [ -x "$built" ]; then
    readlink -f "$built"
    return
  fi
  fail "cannot find the arena binary: ARENA is not set, there is no \`arena\` on PATH, and no $built" \
    "(build it with \`cargo build --release -p arena\`, or set ARENA=/path/to/arena, e.g. sbatch --export=ALL,ARENA=...)"
}

is_count() {
  [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ]
}

play() {
  local cpus=()
  if [ "${1:-}" = --cpus ]; then
    is_count "${2:-}" || fail "--cpus takes a number of CPUs, got '${2:-}'"
    cpus=(--cpus "$2")
    shift 2
  fi
  [ $# -eq 4 ] || fail "usage: arena-shard.sh play [--cpus N] TOURNAMENT.yaml OUTDIR SHARDS INDEX"
  local file=$1 out=$2 shards=$3 index=$4
  is_count "$shards" || fail "SHARDS is the number of shards of the run (1 or more), got '$shards'"
  [[ $index =~ ^[0-9]+$ ]] || fail "INDEX is a shard's number, got '$index'"
  if [ "$index" -ge "$shards" ]; then
    fail "task $index is out of range: this run has $shards shards, numbered 0 to $((shards - 1))"
  fi
  [ -r "$file" ] || fail "cannot read the tournament file $file"
  local arena dir="$out/shard-$index"
  arena=$(find_arena)
  mkdir -p "$dir"
  local run=("$arena" tournament "$file" --shard "$index/$shards" --out "$dir")
  if [ -f "$dir/games.jsonl" ]; then
    cmp -s "$file" "$dir/tournament.yaml" ||
      fail "$dir was started from another tournament file than $file (its copy: $dir/tournament.yaml); use another OUTDIR"
    run=("$arena" tournament --resume "$dir" --shard "$index/$shards")
  fi
  echo "== $(date -u +%FT%TZ) $(hostname): ${run[*]} ${cpus[*]}" | tee -a "$dir/output.log"
  "${run[@]}" "${cpus[@]}" 2>&1 | tee -a "$dir/output.log"
}

merge() {
  [ $# -eq 1 ] || fail "usage: arena-shard.sh merge OUTDIR"
  local out=$1 arena
  arena=$(find_arena)
  shopt -s nullglob
  local dirs=("$out"/shard-*)
  [ ${#dirs[@]} -gt 0 ] || fail "no shard directories in $out"
  echo "== $(date -u +%FT%TZ) $(hostname): merging ${#dirs[@]} shard directories" | tee -a "$out/merge.log"
  "$arena" report "${dirs[@]}" --out "$out/report" 2>&1 | tee -a "$out/merge.log"
}

case "${1:-}" in
  play | merge) "$@" ;;
  *) fail "usage: arena-shard.sh play [--cpus N] TOURNAMENT.yaml OUTDIR SHARDS INDEX | arena-shard.sh merge OUTDIR" ;;
esac
