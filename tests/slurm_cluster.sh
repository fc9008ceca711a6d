#!/usr/bin/env bash
# A one-node Slurm cluster on this host, for the tests, from Debian's
# packages (munge, slurmctld, slurmd), everything under DIR: its own munge
# key and socket, its own ports, state, spool, logs and pid files, and no
# cgroups (proctrack/linuxproc, task/none). Nothing outside DIR is written.
#   tests/slurm_cluster.sh start DIR   prints the SLURM_CONF to export; exit 77 (with the
#                                      reason on stdout) where a cluster cannot start here
#   tests/slurm_cluster.sh stop DIR    stops the daemons by their pid files
set -uo pipefail
cmd=${1:?usage: slurm_cluster.sh start|stop DIR}
dir=${2:?usage: slurm_cluster.sh start|stop DIR}

skip() { echo "$*"; exit 77; }

stop() {
	for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
		[ -s "$pidfile" ] || continue
		pid=$(cat "$pidfile")
		case "$pid" in '' | *[!0-9]*) continue ;; esac
		kill "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null
		rm -f "$pidfile"
	done
}

if [ "$cmd" = stop ]; then
	stop
	exit 0
fi
[ "$cmd" = start ] || { echo "usage: slurm_cluster.sh start|stop DIR" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || skip "not root: slurmd runs jobs as root here"
for p in munged mungekey slurmctld slurmd sbatch squeue scontrol; do
	command -v "$p" >/dev/null || skip "$p is not installed (Debian: munge, slurm-wlm; ./quickstart.sh test installs them)"
done
host=$(hostname -s)
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" || skip "cannot make $dir"
chmod 711 "$dir" "$dir/munge"
mungekey --create --keyfile="$dir/munge/munge.key" 2>/dev/null || skip "mungekey cannot make a key"
chmod 600 "$dir/munge/munge.key"
sock="$dir/munge/munge.socket"
munged --force --socket="$sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
	--log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" || skip "munged does not start"
munge -n -S "$sock" | unmunge -S "$sock" >/dev/null 2>&1 || { stop; skip "munge does not round-trip a credential"; }

# Ports of our own, from the folder's name, so that clusters of two test
# runs on one host do not meet.
base=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000 * 2))
node=$(slurmd -C 2>/dev/null | head -1)
[ -n "$node" ] || { stop; skip "slurmd -C does not describe this node"; }
cat >"$dir/slurm.conf" <<EOF
ClusterName=alloclabtest
SlurmctldHost=$host
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmUser=root
SlurmdUser=root
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
$node State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" || { stop; skip "slurmctld does not start (see $dir/slurmctld.log)"; }
slurmd -f "$SLURM_CONF" || { stop; skip "slurmd does not start (see $dir/slurmd.log)"; }
for _ in $(seq 100); do
	state=$(sinfo -h -N -o %t 2>/dev/null | head -1)
	case "$state" in idle*) echo "$SLURM_CONF"; exit 0 ;; esac
	sleep 0.2
done
stop
skip "the node did not become idle within 20 s (state '${state:-none}', see $dir/slurmctld.log)"
