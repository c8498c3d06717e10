#!/bin/bash
# A tournament in N shards on Slurm: one array task per shard, then one job that merges them.
#
#   sbatch --array=0-7 deploy/slurm-array.sh my-tournament.yaml results
#   (when it is done)  arena report results/shard-* --out results/report
# or, to chain the merge automatically:
#   jid=$(sbatch --parsable --array=0-7 deploy/slurm-array.sh my-tournament.yaml results)
#   sbatch --dependency=afterok:$jid --wrap "arena report results/shard-* --out results/report"
#
# SHARDS is the array's size (SLURM_ARRAY_TASK_COUNT); the task id is the shard, 0-based.
# A task that is requeued resumes its shard where it stopped.
#SBATCH --job-name=arena-tournament
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=24:00:00
#SBATCH --requeue
set -euo pipefail
file=${1:?usage: sbatch --array=0-(N-1) slurm-array.sh TOURNAMENT.yaml OUTDIR}
out=${2:?usage: sbatch --array=0-(N-1) slurm-array.sh TOURNAMENT.yaml OUTDIR}
shards=${SLURM_ARRAY_TASK_COUNT:?run as an array job: sbatch --array=0-(N-1)}
k=${SLURM_ARRAY_TASK_ID:?run as an array job}
dir="$out/shard-$k"
arena=${ARENA:-arena}
if [ -f "$dir/games.jsonl" ]; then
  exec "$arena" tournament --resume "$dir" --workers "${SLURM_CPUS_PER_TASK:-2}" --quiet
fi
exec "$arena" tournament "$file" --shard "$k/$shards" --out "$dir" --workers "${SLURM_CPUS_PER_TASK:-2}" --quiet
