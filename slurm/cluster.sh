#!/usr/bin/env bash
# slurm/cluster.sh start|stop|status|restart — a single-node Slurm cluster on this machine.
#
# Runs Debian's munge + slurmctld + slurmd without systemd, as root (CI runs it on a fresh machine).
#   start    install packages if missing (scripts/setup-deps.sh), create the munge key if missing,
#            start munged, write /etc/slurm/slurm.conf, start slurmctld and slurmd, wait until the
#            node is idle. Idempotent: on a healthy running cluster with the same config it does
#            nothing and exits 0. If the config would change, the daemons are restarted.
#   stop     stop slurmd, slurmctld and munged (by their pid files). Job state is kept in
#            /var/spool/slurmctld, so the next `start` picks queued jobs up again. Job steps that
#            are still running keep running (slurmstepd outlives slurmd, as on a real cluster):
#            `scancel` your jobs first if you want them gone.
#   status   print the daemons' pids and `sinfo`; exit 0 when the node is usable, 1 otherwise.
#
# Environment: NQ_SLURM_TIMEOUT (seconds to wait for the node to become idle, default 60),
#              NQ_SLURM_PARTITION (partition name, default "main").
# Sourced (not run), it only defines the functions and settings: tests/multihost/hosts.sh reuses
# the munge start, the pid-file handling and the config text for its cluster of emulated hosts.
# Logs: /var/log/slurm/slurmctld.log, /var/log/slurm/slurmd.log, /var/log/munge/munged.log.
# Facts behind the settings: /work/shared/notes/platform.md ("Slurm on one machine").
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

CONF=/etc/slurm/slurm.conf
MUNGE_KEY=/etc/munge/munge.key
MUNGE_PID=/run/munge/munged.pid
CTLD_PID=/run/slurmctld.pid
SLURMD_PID=/run/slurmd.pid
LOG_DIR=/var/log/slurm
CTLD_LOG=$LOG_DIR/slurmctld.log
SLURMD_LOG=$LOG_DIR/slurmd.log
STATE_DIR=/var/spool/slurmctld
SPOOL_DIR=/var/spool/slurmd
TIMEOUT=${NQ_SLURM_TIMEOUT:-60}
PARTITION=${NQ_SLURM_PARTITION:-main}

die() { echo "cluster.sh: error: $*" >&2; exit 1; }
say() { echo "cluster.sh: $*" >&2; }

need_root() { [[ $(id -u) -eq 0 ]] || die "must run as root (it writes /etc/slurm and starts daemons)"; }

# pid from a pid file if that process is alive (a zombie is not), else nothing.
live_pid() {
  local f=$1 pid state
  [[ -r $f ]] || return 1
  pid=$({ tr -dc '0-9' <"$f"; } 2>/dev/null) || return 1
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 1
  state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ $state != Z ]] || return 1
  echo "$pid"
}

node_name() { hostname -s; }

# State of our node as sinfo reports it ("idle", "mixed", "down*", "drained", ...), or nothing.
node_state() { sinfo -h -N -n "$(node_name)" -o '%T' 2>/dev/null | head -n1 || true; }

node_usable() {
  case "$(node_state)" in
    idle|mixed|allocated|completing|idle+*|mixed+*|allocated+*|completing+*) return 0 ;;
    *) return 1 ;;
  esac
}

# This machine's hardware as a node line: `slurmd -C` prints "NodeName=... CPUs=...
# RealMemory=..." then an UpTime line. RealMemory is lowered by 5 % so a node whose free memory
# wobbles is never drained for "Low RealMemory". $1 replaces the node name (default: this host).
node_hardware() {
  local line
  line=$(slurmd -C | awk -v name="${1:-}" '/^NodeName=/ {
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^RealMemory=/) { split($i, a, "="); $i = "RealMemory=" int(a[2] * 0.95) }
        if (name != "" && $i ~ /^NodeName=/) $i = "NodeName=" name
      }
      print; exit }')
  [[ -n $line ]] || die "slurmd -C printed no NodeName line"
  echo "$line"
}

render_conf() {
  local host
  host=$(node_name)
  conf_text "${host}(127.0.0.1)" "$(node_hardware) NodeAddr=127.0.0.1 State=UNKNOWN" "$host" \
    "a single-node cluster for nqueens"
}

# conf_text CTLD_HOST LINES PARTITION_NODES WHAT: slurm.conf with the paths and ports set above;
# LINES (the node lines, and any settings of the caller's own) go before the partition.
conf_text() {
  cat <<EOF
# Written by ${CONF_WRITER:-slurm/cluster.sh}: $4 (do not edit; rerun the script).
ClusterName=${CLUSTER_NAME:-nqueens}
SlurmctldHost=$1
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=${STATE_DIR}
SlurmdSpoolDir=${SPOOL_DIR}
SlurmctldPidFile=${CTLD_PID}
SlurmdPidFile=${SLURMD_PID}
SlurmctldLogFile=${CTLD_LOG}
SlurmdLogFile=${SLURMD_LOG}
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups and no systemd here: track processes by parent pid, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Debian's Open MPI works under srun only with PMIx.
MpiDefault=pmix
ReturnToService=2
KillWait=5
MinJobAge=600
JobRequeue=1
MailProg=/bin/true
$2
PartitionName=${PARTITION} Nodes=$3 Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
  if [[ ! -s $MUNGE_KEY ]]; then
    say "creating munge key $MUNGE_KEY"
    install -d -o munge -g munge -m 700 /etc/munge
    if command -v mungekey >/dev/null; then
      mungekey --create --keyfile="$MUNGE_KEY" --force
    else
      dd if=/dev/urandom of="$MUNGE_KEY" bs=1 count=1024 status=none
    fi
  fi
  chown munge:munge "$MUNGE_KEY"
  chmod 400 "$MUNGE_KEY"
  install -d -o munge -g munge -m 755 /run/munge
  install -d -o munge -g munge -m 700 /var/log/munge /var/lib/munge
  if ! live_pid "$MUNGE_PID" >/dev/null; then
    say "starting munged"
    rm -f /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock "$MUNGE_PID"
    runuser -u munge -- /usr/sbin/munged
  fi
  local i
  for ((i = 0; i < 50; i++)); do
    if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  die "munged does not answer (see /var/log/munge/munged.log)"
}

# Stop the process in pid file $1 (TERM, then KILL after ~10 s).
stop_pidfile() {
  local f=$1 name=$2 pid i
  pid=$(live_pid "$f") || { rm -f "$f"; return 0; }
  say "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    live_pid "$f" >/dev/null || { rm -f "$f"; return 0; }
    sleep 0.1
  done
  say "$name did not stop on TERM, killing it"
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$f"
}

stop_slurm_daemons() {
  stop_pidfile "$SLURMD_PID" slurmd
  stop_pidfile "$CTLD_PID" slurmctld
}

wait_idle() {
  local deadline=$((SECONDS + TIMEOUT)) resumed=0 st
  while ((SECONDS < deadline)); do
    st=$(node_state)
    case "$st" in
      idle|idle+*|mixed*|allocated*|completing*) say "node $(node_name) is ${st}"; return 0 ;;
      drain*|down*|fail*)
        # A node left down/drained by an earlier run (e.g. slurmd killed): bring it back once
        # slurmd has registered. ReturnToService=2 usually does this by itself.
        if ((resumed == 0)) && live_pid "$SLURMD_PID" >/dev/null; then
          sleep 2
          scontrol update NodeName="$(node_name)" State=RESUME >/dev/null 2>&1 || true
          resumed=1
        fi ;;
    esac
    sleep 0.5
  done
  sinfo -N -l >&2 || true
  tail -n 20 "$CTLD_LOG" "$SLURMD_LOG" >&2 2>/dev/null || true
  die "node $(node_name) not idle after ${TIMEOUT}s (state: '${st:-none}'); logs above"
}

cmd_start() {
  need_root
  bash "$repo/scripts/setup-deps.sh"
  start_munge

  local new_conf
  new_conf=$(render_conf)
  if [[ -f $CONF ]] && [[ $(cat "$CONF") == "$new_conf" ]]; then
    if live_pid "$CTLD_PID" >/dev/null && live_pid "$SLURMD_PID" >/dev/null && node_usable; then
      say "already running (node $(node_name) is $(node_state))"
      return 0
    fi
  else
    # Config changed (or first start): daemons must reread it.
    stop_slurm_daemons
    install -d -m 755 /etc/slurm
    printf '%s\n' "$new_conf" >"$CONF.tmp"
    mv "$CONF.tmp" "$CONF"
    say "wrote $CONF"
  fi

  install -d -m 755 "$STATE_DIR" "$SPOOL_DIR" "$LOG_DIR"
  if ! live_pid "$CTLD_PID" >/dev/null; then
    say "starting slurmctld"
    slurmctld -i
  fi
  local i
  for ((i = 0; i < 100; i++)); do
    scontrol ping 2>/dev/null | grep -q 'is UP' && break
    sleep 0.1
  done
  scontrol ping 2>/dev/null | grep -q 'is UP' || { tail -n 20 "$CTLD_LOG" >&2 || true; die "slurmctld does not answer"; }
  if ! live_pid "$SLURMD_PID" >/dev/null; then
    say "starting slurmd"
    slurmd -N "$(node_name)"
  fi
  wait_idle
}

cmd_stop() {
  need_root
  stop_slurm_daemons
  stop_pidfile "$MUNGE_PID" munged
}

cmd_status() {
  local rc=0 p
  for p in "munged:$MUNGE_PID" "slurmctld:$CTLD_PID" "slurmd:$SLURMD_PID"; do
    if pid=$(live_pid "${p#*:}"); then echo "${p%%:*}: running (pid $pid)"; else echo "${p%%:*}: stopped"; rc=1; fi
  done
  if ((rc == 0)); then
    sinfo || rc=1
    node_usable || rc=1
  fi
  return $rc
}

[[ ${BASH_SOURCE[0]} == "$0" ]] || return 0   # sourced: functions only

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  restart) cmd_stop; cmd_start ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status|restart" >&2; exit 2 ;;
esac
