#!/usr/bin/env bash
# A real single-host Slurm cluster (Debian's slurm-wlm 22.05: munged, slurmctld, slurmd) in one
# directory, without systemd, for cuco's tests and benchmarks (docs/cluster.md).
#
#   scripts/slurm-cluster.sh start DIR [GPUS]   configure and start the daemons under DIR (GPUS
#                                               harmless device files give the node Gres=gpu:GPUS,
#                                               default 4); returns when the node is idle, exit 1
#                                               (daemons stopped, logs printed) if it is not within
#                                               60 s
#   scripts/slurm-cluster.sh stop DIR           cancel the cluster's jobs, stop every daemon the
#                                               start wrote a PID for (SIGTERM, then SIGKILL)
#   scripts/slurm-cluster.sh status DIR         sinfo and squeue of the cluster
#   scripts/slurm-cluster.sh restart-ctld DIR   stop slurmctld (SIGTERM) and start it again (fault tests)
#
# Clients use the cluster through DIR/env (`. DIR/env` sets SLURM_CONF). Must run as root (the
# daemons run as root with proctrack/linuxproc and task/none: no cgroups are needed). Ports are
# free ones picked at start, so two clusters (or a system one) do not collide.
set -euo pipefail
cmd=${1:-}
D=${2:-}
[ -n "$cmd" ] && [ -n "$D" ] || { sed -n '2,17p' "$0" >&2; exit 2; }
mkdir -p "$D"
D=$(cd "$D" && pwd)
NODE=cuco0

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pid_of() { cat "$D/pids/$1" 2>/dev/null || true; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
stop_pid() {  # stop_pid NAME: SIGTERM, up to 10 s, then SIGKILL
  local p; p=$(pid_of "$1")
  alive "$p" || { rm -f "$D/pids/$1"; return 0; }
  kill -TERM "$p" 2>/dev/null || true
  for _ in $(seq 1 100); do alive "$p" || break; sleep 0.1; done
  alive "$p" && kill -KILL "$p" 2>/dev/null || true
  rm -f "$D/pids/$1"
}
show_logs() { for f in "$D"/log/*.log; do echo "== $f" >&2; tail -n 20 "$f" >&2; done; }

start_ctld() {
  slurmctld -D -f "$D/slurm.conf" >>"$D/log/slurmctld.out" 2>&1 &
  echo $! >"$D/pids/slurmctld"
  for _ in $(seq 1 100); do scontrol -Q ping 2>/dev/null | grep -q "is UP" && return 0; sleep 0.2; done
  return 1
}

write_config() {
  local gpus=$1 cpus
  cpus=$(( $(nproc) > 8 ? $(nproc) : 8 ))  # oversubscribed on small machines: CPU test jobs are tiny
  mkdir -p "$D"/{state,spool,log,pids,dev,munge}
  chmod 700 "$D/munge"
  for i in $(seq 0 $((gpus - 1))); do ln -sf /dev/null "$D/dev/gpu$i"; done  # stat() sees a character device
  dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$D/munge/munge.key"
  cat >"$D/slurm.conf" <<EOF
ClusterName=cuco
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
GresTypes=gpu
ReturnToService=2
MinJobAge=600
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MpiDefault=none
SlurmdParameters=config_overrides
NodeName=$NODE NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$cpus Gres=gpu:$gpus State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
  {
    [ "$gpus" -gt 0 ] && echo "NodeName=$NODE Name=gpu File=$D/dev/gpu[0-$((gpus - 1))]"
  } >"$D/gres.conf"
  printf 'CgroupPlugin=cgroup/v1\nIgnoreSystemd=yes\n' >"$D/cgroup.conf"
  printf 'export SLURM_CONF=%s\n' "$D/slurm.conf" >"$D/env"
}

case $cmd in
start)
  [ "$(id -u)" -eq 0 ] || { echo "slurm-cluster: must run as root (the daemons run as root)" >&2; exit 2; }
  for t in munged slurmctld slurmd sinfo; do
    command -v "$t" >/dev/null || { echo "slurm-cluster: $t not found: apt-get install slurmctld slurmd slurm-client munge" >&2; exit 3; }
  done
  write_config "${3:-4}"
  export SLURM_CONF=$D/slurm.conf
  munged -F --force --socket="$D/munge/munge.sock" --key-file="$D/munge/munge.key" \
    --pid-file="$D/munge/munged.pid" --seed-file="$D/munge/munge.seed" --log-file="$D/log/munged.log" \
    >>"$D/log/munged.out" 2>&1 &
  echo $! >"$D/pids/munged"
  for _ in $(seq 1 50); do [ -S "$D/munge/munge.sock" ] && break; sleep 0.1; done
  ok=1
  start_ctld || ok=0
  if [ $ok = 1 ]; then
    slurmd -D -N "$NODE" -f "$D/slurm.conf" >>"$D/log/slurmd.out" 2>&1 &
    echo $! >"$D/pids/slurmd"
    ok=0
    for _ in $(seq 1 300); do
      st=$(sinfo -h -n "$NODE" -o %T 2>/dev/null || true)
      [ "$st" = idle ] && { ok=1; break; }
      sleep 0.2
    done
  fi
  if [ $ok = 0 ]; then
    echo "slurm-cluster: the node did not become idle within 60 s (state: ${st:-none})" >&2
    show_logs
    "$0" stop "$D" || true
    exit 1
  fi
  echo "slurm-cluster: up in $D (node $NODE idle; . $D/env)"
  ;;
stop)
  export SLURM_CONF=$D/slurm.conf
  if alive "$(pid_of slurmctld)"; then
    scancel --full $(squeue -h -o %i 2>/dev/null) 2>/dev/null || true
    for _ in $(seq 1 100); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.1; done
  fi
  stop_pid slurmd
  stop_pid slurmctld
  stop_pid munged
  ;;
status)
  export SLURM_CONF=$D/slurm.conf
  sinfo; squeue
  ;;
restart-ctld)
  export SLURM_CONF=$D/slurm.conf
  # SIGTERM: slurmctld saves its state and exits. (SIGKILL loses the ids of jobs submitted since its
  # last save: restarted, it hands a running job's id out again and drains the node, "Duplicate
  # jobid" -- Slurm's limitation; cuco then reports a scheduler failure and leaves the run resumable.)
  p=$(pid_of slurmctld); alive "$p" && kill -TERM "$p"
  for _ in $(seq 1 100); do alive "$p" || break; sleep 0.1; done
  alive "$p" && kill -KILL "$p"
  start_ctld || { echo "slurm-cluster: slurmctld did not come back" >&2; show_logs; exit 1; }
  ;;
*) sed -n '2,17p' "$0" >&2; exit 2 ;;
esac
