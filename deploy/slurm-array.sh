#!/bin/bash
# A tournament in SHARDS shards on Slurm: one array task per shard, then one job that merges.
#
#   jid=$(sbatch --parsable --array=0-7 deploy/slurm-array.sh my-tournament.yaml results 8)
#   sbatch --dependency=afterany:$jid deploy/slurm-array.sh --merge results
#
# The shard count is the third argument, never the array's size: `--array=1,5` with 8 plays
# shards 1/8 and 5/8 again (they resume), and a task past the count fails saying so. Each task
# plays into results/shard-K (resumed if it was started: a requeued task goes on where it
# stopped) and appends its output to results/shard-K/output.log. The merge fails, naming the
# shards at fault, if games are missing or logged twice: run those tasks again with the same
# count, then the merge. The tournament file, results/ and the arena binary must be on storage
# every node sees; the binary is $ARENA, else `arena` on PATH, else target/release/arena of the
# repository this script is in (so `--export=NONE` works too).
#
# Edit these to suit the tournament (or give them to sbatch, which overrides them):
#   --cpus-per-task  CPUs per shard: one worker each, unless the file sets `concurrency`;
#   --mem            memory per shard;
#   --time           the longest a task may run (a task stopped at its limit and run again
#                    resumes).
#SBATCH --job-name=arena-tournament
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=24:00:00
#SBATCH --requeue
#SBATCH --open-mode=append
set -euo pipefail

# Slurm runs a copy of this script from its spool directory: the original's directory, where
# arena-shard.sh is, comes from the job's command line.
here=$(dirname "$(readlink -f "$0")")
if [ ! -f "$here/arena-shard.sh" ] && [ -n "${SLURM_JOB_ID:-}" ]; then
  command=$(scontrol show job "$SLURM_JOB_ID" | sed -n 's/^ *Command=//p' | head -n 1)
  here=$(dirname "${command% "$*"}")
fi
shard_script="$here/arena-shard.sh"
[ -f "$shard_script" ] || {
  echo "slurm-array.sh: cannot find arena-shard.sh beside this script (looked in $here)" >&2
  exit 2
}

if [ "${1:-}" = --merge ]; then
  exec bash "$shard_script" merge "${@:2}"
fi
usage="usage: sbatch --array=0-(SHARDS-1) slurm-array.sh TOURNAMENT.yaml OUTDIR SHARDS"
[ $# -eq 3 ] || {
  echo "slurm-array.sh: $usage" >&2
  exit 2
}
index=${SLURM_ARRAY_TASK_ID:?run as an array job: $usage}
cpus=()
if [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
  cpus=(--cpus "$SLURM_CPUS_PER_TASK")
fi
exec bash "$shard_script" play "${cpus[@]}" "$1" "$2" "$3" "$index"
