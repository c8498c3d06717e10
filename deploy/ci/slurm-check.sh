#!/usr/bin/env bash
# The Slurm path on a real Slurm: a single-node cluster on this machine from Debian's packages
# (munged, slurmctld and slurmd started here as daemons: no systemd), then the commands of
# docs/tournaments.md. Checks that
#   1. deploy/slurm-array.sh in 4 shards, merged by the chained merge job, gives the ratings of
#      an unsharded run, and a task past the shard count fails saying so;
#   2. the same with --export=NONE (the script finds the binary itself) and one task cancelled
#      mid-run and requeued: it resumes, and the merge job waits for it and gives the same
#      ratings.
# Run by .ci/run after its release build, as root (re-run under sudo otherwise). Everything
# lives in a temporary directory; every daemon it started is stopped on exit.
#
#   deploy/ci/slurm-check.sh [ARENA]    (default: target/release/arena of this repository)
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  exec sudo --preserve-env=PATH bash "$0" "$@"
fi
repo=$(cd "$(dirname "$0")/../.." && pwd)
arena=$(readlink -f "${1:-$repo/target/release/arena}")
[ -x "$arena" ] || {
  echo "slurm-check: no arena binary at $arena (build it first: cargo build --release -p arena)" >&2
  exit 2
}
tournament=$repo/deploy/ci/slurm-tournament.yaml
began=$(date +%s)
say() { echo "slurm-check [$(($(date +%s) - began)) s]: $*"; }
die() {
  say "FAILED: $*" >&2
  exit 1
}

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  say "installing Debian's slurm-wlm and munge"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

work=$(mktemp -d /tmp/arena-slurm.XXXXXX)
chmod 755 "$work" # munged wants its socket's directories open to all
mkdir -p "$work"/{munge,munge-key,state,spool,log,jobs}
chmod 700 "$work/munge-key"
export SLURM_CONF=$work/slurm.conf

stop_all() {
  local status=$?
  set +e
  if [ -f "$work/slurmctld.pid" ]; then
    scancel --quiet --user=root 2>/dev/null
    for _ in $(seq 30); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 1; done
  fi
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "$status" != 0 ]; then
    for f in "$work"/log/*.log "$work"/jobs/*.out "$work"/jobs/*/shard-*/output.log "$work"/jobs/*/merge.log; do
      [ -f "$f" ] && { echo "--- $f (last lines)"; tail -n 25 "$f"; }
    done
  fi
  rm -rf "$work"
  exit "$status"
}
trap stop_all EXIT

# Munge: a key of our own, the daemon on a socket in the temporary directory.
mungekey --create --keyfile="$work/munge-key/munge.key"
munged --key-file="$work/munge-key/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munge/munged.seed"

# One node (this machine, as slurmd sees it), one partition; no accounting. A requeued job
# waits `cred_expire` seconds before it may start again (120 by default): 30 here.
host=$(hostname -s)
cat >"$SLURM_CONF" <<EOF
ClusterName=arena-ci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket,cred_expire=30
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
KillWait=5
$(slurmd -C | head -n 1) NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld
slurmd
for _ in $(seq 60); do
  [ "$(sinfo -h -N -o %T 2>/dev/null)" = idle ] && break
  sleep 1
done
[ "$(sinfo -h -N -o %T)" = idle ] || die "the node did not come up idle: $(sinfo -N)"
say "Slurm is up: $(sinfo -h -N -o '%N %c CPUs %m MB %T')"

# Complete lines (logged games) in a file, 0 if there is none.
lines() {
  if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi
}

# The unsharded run the shards must agree with.
"$arena" tournament "$tournament" --out "$work/whole" --quiet >/dev/null
say "unsharded run: $(lines "$work/whole/games.jsonl") games"

# Wait until no task of job $1 is pending or running (at most $2 seconds).
wait_for() {
  local waited=0
  while [ -n "$(squeue -h -j "$1" 2>/dev/null)" ]; do
    [ "$waited" -lt "$2" ] || die "job $1 still queued after $2 s: $(squeue -j "$1")"
    sleep 1
    waited=$((waited + 1))
  done
}

# Every task of job $1 ended COMPLETED with exit code 0.
all_completed() {
  local states
  states=$(scontrol show job "$1" | grep -o 'JobState=[A-Z_]*\|ExitCode=[0-9:]*' | sort | uniq -c)
  if grep -v 'JobState=COMPLETED\|ExitCode=0:0' <<<"$states" | grep -q .; then
    die "job $1 did not complete: $states"
  fi
}

same_ratings() {
  cmp -s "$1/report/ratings.json" "$work/whole/report/ratings.json" ||
    die "$1: the merged ratings differ from the unsharded run's"
}

# 1. The commands of docs/tournaments.md, from a folder of its own (Slurm's output files land there).
cd "$work/jobs"
jid=$(ARENA=$arena sbatch --parsable --array=0-3 "$repo/deploy/slurm-array.sh" "$tournament" first 4)
merge=$(ARENA=$arena sbatch --parsable --dependency=afterany:"$jid" "$repo/deploy/slurm-array.sh" --merge first)
wait_for "$merge" 600
all_completed "$jid"
all_completed "$merge"
same_ratings first
grep -q "^== .* $arena tournament .* --shard 0/4 .* --cpus 2" first/shard-0/output.log ||
  die "shard 0 did not run $arena with --cpus 2: $(head -n 1 first/shard-0/output.log)"
say "4 shards and the chained merge: the ratings of the unsharded run"

out_of_range=$(sbatch --parsable --array=4 "$repo/deploy/slurm-array.sh" "$tournament" first 4)
wait_for "$out_of_range" 120
grep -q "task 4 is out of range: this run has 4 shards" "slurm-${out_of_range}_4.out" ||
  die "task 4 of 4 shards: $(cat "slurm-${out_of_range}_4.out")"
say "a task past the shard count fails: $(grep -o 'task 4 is out of range.*' "slurm-${out_of_range}_4.out")"

# 2. No environment passed (the script finds the binary beside itself), and task 1 cancelled
#    once it has logged a few games, then requeued.
export_none=NONE
[ "$arena" = "$repo/target/release/arena" ] || export_none="NONE,ARENA=$arena"
jid=$(sbatch --parsable --export="$export_none" --array=0-3 "$repo/deploy/slurm-array.sh" "$tournament" second 4)
merge=$(sbatch --parsable --export="$export_none" --dependency=afterany:"$jid" "$repo/deploy/slurm-array.sh" --merge second)
for _ in $(seq 600); do
  [ "$(lines second/shard-1/games.jsonl)" -ge 5 ] && break
  sleep 0.2
done
scancel "${jid}_1"
while squeue -h -j "${jid}_1" -o %T | grep -q .; do sleep 0.2; done
logged=$(lines second/shard-1/games.jsonl)
[ "$logged" -lt "$(lines first/shard-1/games.jsonl)" ] ||
  die "task 1 ended before it was cancelled ($logged games): the check needs a longer tournament"
scontrol requeue "${jid}_1"
say "task 1 cancelled with $logged of $(lines first/shard-1/games.jsonl) games logged, then requeued"
wait_for "$merge" 900
all_completed "$jid"
all_completed "$merge"
same_ratings second
grep -q -- "--resume second/shard-1 --shard 1/4" second/shard-1/output.log ||
  die "task 1 did not resume its shard: $(cat second/shard-1/output.log)"
grep -q "played .* ($logged were logged before" second/shard-1/output.log ||
  die "task 1 did not go on from its $logged games: $(cat second/shard-1/output.log)"
say "task 1 resumed; the merge job waited for it; the same ratings. Its log:"
sed 's/^/    /' second/shard-1/output.log
say "passed"
