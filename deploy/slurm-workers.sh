#!/bin/bash
# A ladder's workers on Slurm: one array task per worker, each `arena worker` pulling the
# ladder's games until the task ends.
#
#   umask 077; echo "$KEY" > ~/arena-workers/worker.key      # the key of the ladder's worker NAME
#   sbatch --array=0-7 deploy/slurm-workers.sh http://ladder.example:50051 NAME ~/arena-workers
#
# Every task is the worker NAME (the ladder's `workers.keys` holds NAME=KEY), an instance of its
# own (`slurm-K`, K the array index: run one array job per NAME at a time), with its key read from ROOT/worker.key (never on a
# command line, which `ps` shows); it keeps its reports in ROOT/NAME-K until the ladder has them,
# so a task requeued or run again with the same index sends what the last one left. Slurm sends
# SIGTERM 90 s before the time limit (`--signal`): the worker takes no new game, and its games
# in play get 60 s to end and be reported. The arena binary is $ARENA, else `arena` on PATH,
# else target/release/arena of the repository this script is in. A worker launches the ladder's
# submissions in sandboxes when bubblewrap and cgroups are there (pass --no-sandbox in
# ARENA_WORKER_FLAGS for anchors alone).
#
# Edit these to suit (or give them to sbatch, which overrides them):
#   --cpus-per-task  CPUs per worker: its slots (games at once), one each;
#   --mem            memory per worker (a submission's limits times its slots, and some);
#   --time           how long a worker runs.
#SBATCH --job-name=arena-worker
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=24:00:00
#SBATCH --requeue
#SBATCH --signal=B:TERM@90
#SBATCH --open-mode=append
set -euo pipefail

usage="usage: sbatch --array=0-(WORKERS-1) slurm-workers.sh LADDER_URL NAME ROOT"
[ $# -eq 3 ] || {
  echo "slurm-workers.sh: $usage" >&2
  exit 2
}
ladder=$1
name=$2
root=$3
index=${SLURM_ARRAY_TASK_ID:?run as an array job: $usage}
[ -r "$root/worker.key" ] || {
  echo "slurm-workers.sh: no key in $root/worker.key (the key of the ladder's worker $name)" >&2
  exit 2
}
ARENA_WORKER_KEY=$(head -n 1 "$root/worker.key")
export ARENA_WORKER_KEY

# Slurm runs a copy of this script from its spool directory: the repository comes from the
# job's command line.
here=$(dirname "$(readlink -f "$0")")
if [ -n "${SLURM_JOB_ID:-}" ] && [ ! -f "$here/slurm-workers.sh" ]; then
  command=$(scontrol show job "$SLURM_JOB_ID" | sed -n 's/^ *Command=//p' | head -n 1)
  here=$(dirname "${command% "$*"}")
fi
arena=${ARENA:-$(command -v arena || echo "$here/../target/release/arena")}
[ -x "$arena" ] || {
  echo "slurm-workers.sh: no arena binary at $arena (set ARENA)" >&2
  exit 2
}
slots=${SLURM_CPUS_PER_TASK:-2}
# Word-split on purpose: extra flags, e.g. ARENA_WORKER_FLAGS=--no-sandbox.
# shellcheck disable=SC2086
exec "$arena" worker --ladder "$ladder" --name "$name" --instance "slurm-$index" \
  --slots "$slots" --data "$root/$name-$index" --grace 60 ${ARENA_WORKER_FLAGS:-}
