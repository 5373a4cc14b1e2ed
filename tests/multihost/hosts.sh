#!/usr/bin/env bash
# tests/multihost/hosts.sh up|down|exec|kill|link|slow|fast|slurm ... — emulated hosts on this machine.
#
# Each host is a network namespace /run/netns/<P><i> plus a UTS namespace (its own host name,
# <P><i>) bound at /run/<P>/uts-<P><i>; its eth0 (a veth) is plugged into a bridge that lives in a
# namespace of its own (<P>-sw), so the machine's own interfaces and routes are never touched and
# the subnet $NET.0/24 exists only on those links. Files (the build, the test's directory, munge's
# socket) are shared, like a cluster's shared file system. Root only. P = NQ_MH_PREFIX (nqmh).
#
#   up [N]             tear down what an earlier run left (by prefix), then create N hosts (3)
#   down               stop everything in the hosts' namespaces and remove them (idempotent)
#   exec HOST CMD...   run CMD on HOST (its net + UTS namespaces; nsenter execs, so the pid is CMD's)
#   agent HOST CMD...  Open MPI's launcher (plm_rsh_agent): like ssh, HOST is a name or an address
#                      and CMD's words are joined and run by /bin/sh on that host
#   kill HOST          SIGKILL every process on HOST (a crashed host)
#   link HOST up|down  bring HOST's link (its switch port) up or down (a pulled cable)
#   slow HOST MS LOSS  replace HOST's veth by a pair of TAP devices joined by slowlink.py (MS ms each
#                      way, LOSS = fraction of frames dropped; the kernel has no sch_netem)
#   fast HOST          back to the plain veth
#   slurm start|stop   one slurmctld (on host 1) and one slurmd per host, config $STATE/slurm/slurm.conf
#   client CMD...      a Slurm client (sbatch, squeue, scontrol, ...) on host 1 with that config
#   env                print the settings (P, NET, STATE, SLURM_CONF) as shell assignments
set -euo pipefail

mh_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mh_repo=$(cd "$mh_dir/../.." && pwd)
P=${NQ_MH_PREFIX:-nqmh}
NET=${NQ_MH_NET:-10.231.7}          # a /24 that exists only on the emulated hosts' links
STATE=/run/$P
SW=$P-sw
SLURM_DIR=$STATE/slurm
SLURM_CONF_FILE=$SLURM_DIR/slurm.conf

die() { echo "hosts.sh: error: $*" >&2; exit 1; }

# Host i's name from a name or an address of the subnet.
host_of() {
  case "$1" in
    "$NET".*) echo "$P${1##*.}" ;;
    "$P"[0-9]*) echo "$1" ;;
    *) die "unknown host '$1' (expected $P<i> or $NET.<i>)" ;;
  esac
}

on() {   # on HOST CMD...: CMD in HOST's namespaces
  local h
  h=$(host_of "$1"); shift
  [[ -e /run/netns/$h && -e $STATE/uts-$h ]] || die "no emulated host $h (run: hosts.sh up)"
  exec nsenter --net="/run/netns/$h" --uts="$STATE/uts-$h" -- "$@"
}

hosts() { ip netns list 2>/dev/null | awk -v p="$P" '$1 ~ "^"p"[0-9]+$" {print $1}' | sort -V; }

kill_ns() {   # SIGKILL every process in netns $1, wait until they are gone
  local i pids
  for ((i = 0; i < 50; i++)); do
    pids=$(ip netns pids "$1" 2>/dev/null || true)
    [[ -n $pids ]] || return 0
    kill -KILL $pids 2>/dev/null || true
    sleep 0.1
  done
  die "processes left in namespace $1: $pids"
}

cmd_down() {
  local ns f
  [[ ! -d $SLURM_DIR ]] || (cmd_slurm_stop) || true
  for ns in $(hosts) $(ip netns list 2>/dev/null | awk -v s="$SW" '$1 == s {print $1}'); do
    kill_ns "$ns"
    ip netns del "$ns"
  done
  if [[ -d $STATE ]]; then
    for f in "$STATE"/uts-*; do
      [[ -e $f ]] || continue
      umount "$f" 2>/dev/null || true
    done
    rm -rf "$STATE"
  fi
}

cmd_up() {
  local n=${1:-3} i h
  [[ $(id -u) -eq 0 ]] || die "must run as root (network namespaces)"
  cmd_down
  mkdir -p "$STATE"
  ip netns add "$SW"
  ip -n "$SW" link set lo up
  ip -n "$SW" link add br0 type bridge
  ip -n "$SW" link set br0 up
  for ((i = 1; i <= n; i++)); do
    h=$P$i
    ip netns add "$h"
    ip -n "$h" link set lo up
    plug "$h" "$i"
    touch "$STATE/uts-$h"
    unshare --uts="$STATE/uts-$h" hostname "$h"
  done
}

# plug HOST I: a veth from HOST's eth0 to port p<I> of the bridge, address $NET.I/24.
plug() {
  ip -n "$1" link add eth0 type veth peer name "p$2" netns "$SW"
  ip -n "$SW" link set "p$2" master br0 up
  ip -n "$1" addr add "$NET.$2/24" dev eth0
  ip -n "$1" link set eth0 up
}

# unplug HOST I: remove HOST's eth0 and wait until its switch port p<I> is gone too (a veth's
# peer goes with it, a TAP device when slowlink.py has closed it).
unplug() {
  local k
  ip -n "$1" link del eth0 2>/dev/null || true
  for ((k = 0; k < 100; k++)); do
    ip -n "$SW" link show "p$2" >/dev/null 2>&1 || return 0
    sleep 0.05
  done
  die "switch port p$2 of $1 is still there"
}

cmd_link() {
  local h i
  h=$(host_of "$1"); i=${h#"$P"}
  [[ $2 == up || $2 == down ]] || die "link HOST up|down"
  ip -n "$SW" link set "p$i" "$2"
}

cmd_slow() {
  local h i k ms=$2 loss=$3
  h=$(host_of "$1"); i=${h#"$P"}
  cmd_fast "$h"
  unplug "$h" "$i"
  # slowlink.py creates both TAP devices (they vanish with it) and prints "ready".
  setsid /usr/bin/python3 "$mh_dir/slowlink.py" "/run/netns/$h" eth0 "/run/netns/$SW" "p$i" "$ms" "$loss" \
    >"$STATE/slowlink-$h.log" 2>&1 &
  echo $! >"$STATE/slowlink-$h.pid"
  # Creating a device whose name was just freed can wait a few seconds for the old one's release.
  for ((k = 0; k < 600; k++)); do
    grep -q ready "$STATE/slowlink-$h.log" 2>/dev/null && break
    sleep 0.05
  done
  grep -q ready "$STATE/slowlink-$h.log" || die "slowlink.py did not start: $(cat "$STATE/slowlink-$h.log")"
  ip -n "$SW" link set "p$i" master br0 up
  ip -n "$h" addr add "$NET.$i/24" dev eth0
  ip -n "$h" link set eth0 up
}

cmd_fast() {
  local h i pid
  h=$(host_of "$1"); i=${h#"$P"}
  [[ -f $STATE/slowlink-$h.pid ]] || return 0
  pid=$(cat "$STATE/slowlink-$h.pid")
  kill "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$STATE/slowlink-$h.pid"
  unplug "$h" "$i"
  plug "$h" "$i"
}

# The Slurm cluster: slurm/cluster.sh's munge start and config text, with this cluster's own
# paths (all under $SLURM_DIR; per-node spool, pid, log and TmpFS directories by %n), so that it
# never meets the single-node cluster's files, and ports that are free because every daemon has
# a network namespace of its own. slurmctld and the clients run on host 1.
slurm_settings() {
  source "$mh_repo/slurm/cluster.sh"   # functions and defaults only (sourced)
  CONF=$SLURM_CONF_FILE
  CTLD_PID=$SLURM_DIR/slurmctld.pid
  SLURMD_PID=$SLURM_DIR/slurmd-%n.pid
  LOG_DIR=$SLURM_DIR/log
  CTLD_LOG=$LOG_DIR/slurmctld.log
  SLURMD_LOG=$LOG_DIR/slurmd-%n.log
  STATE_DIR=$SLURM_DIR/state
  SPOOL_DIR=$SLURM_DIR/spool-%n
  CLUSTER_NAME=$P
  CONF_WRITER=tests/multihost/hosts.sh
}

cmd_slurm_start() {
  local hs h i lines="" k
  slurm_settings
  hs=($(hosts))
  ((${#hs[@]} > 0)) || die "no emulated hosts (run: hosts.sh up)"
  bash "$mh_repo/scripts/setup-deps.sh"
  mkdir -p "$SLURM_DIR" "$LOG_DIR" "$STATE_DIR"
  # One munged for all hosts (its socket is a file, reachable from every namespace); stopped by
  # `slurm stop` only if it was started here (the single-node cluster may be using it).
  live_pid "$MUNGE_PID" >/dev/null || touch "$SLURM_DIR/munged-started-here"
  start_munge
  # slurmstepd's PMIx server puts its client directory under TmpFS: one per node, like /tmp.
  lines="TmpFS=$SLURM_DIR/tmp-%n"
  for h in "${hs[@]}"; do
    i=${h#"$P"}
    mkdir -p -m 755 "$SLURM_DIR/spool-$h" "$SLURM_DIR/tmp-$h"
    lines+=$'\n'"$(node_hardware "$h") NodeAddr=$NET.$i State=UNKNOWN"
  done
  conf_text "${hs[0]}($NET.${hs[0]#"$P"})" "$lines" "$P[1-${#hs[@]}]" \
    "${#hs[@]} emulated hosts (network namespaces) for the multihost tier" >"$CONF"
  nsenter --net="/run/netns/${hs[0]}" --uts="$STATE/uts-${hs[0]}" -- slurmctld -i -f "$CONF"
  for ((k = 0; k < 100; k++)); do
    client scontrol ping 2>/dev/null | grep -q 'is UP' && break
    sleep 0.1
  done
  client scontrol ping 2>/dev/null | grep -q 'is UP' || { tail -n 20 "$CTLD_LOG" >&2; die "slurmctld does not answer"; }
  for h in "${hs[@]}"; do
    nsenter --net="/run/netns/$h" --uts="$STATE/uts-$h" -- slurmd -f "$CONF" -N "$h"
  done
  for ((k = 0; k < 2 * TIMEOUT; k++)); do
    # every node idle (sinfo -h -N: one line per node)
    if [[ $(client sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle$') == "${#hs[@]}" ]]; then
      return 0
    fi
    sleep 0.5
  done
  client sinfo -N -l >&2 || true
  tail -n 20 "$CTLD_LOG" "$LOG_DIR"/slurmd-*.log >&2 || true
  die "not all of ${hs[*]} idle after ${TIMEOUT}s"
}

cmd_slurm_stop() {
  local h
  slurm_settings
  for h in $(hosts); do stop_pidfile "$SLURM_DIR/slurmd-$h.pid" "slurmd on $h"; done
  stop_pidfile "$CTLD_PID" slurmctld
  if [[ -e $SLURM_DIR/munged-started-here ]]; then
    stop_pidfile "$MUNGE_PID" munged
    rm -f "$SLURM_DIR/munged-started-here"
  fi
}

# client CMD...: a Slurm client command on host 1 (where slurmctld listens) with this cluster's config.
client() {
  SLURM_CONF=$SLURM_CONF_FILE nsenter --net="/run/netns/${P}1" --uts="$STATE/uts-${P}1" -- "$@"
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down) cmd_down ;;
  exec) shift; on "$@" ;;
  agent) shift; h=$1; shift; on "$h" /bin/sh -c "$*" ;;
  kill) kill_ns "$(host_of "$2")" ;;
  link) shift; cmd_link "$@" ;;
  slow) shift; cmd_slow "$@" ;;
  fast) shift; cmd_fast "$@" ;;
  slurm)
    case "${2:-}" in
      start) cmd_slurm_start ;;
      stop) cmd_slurm_stop ;;
      *) die "slurm start|stop" ;;
    esac ;;
  client) shift; client "$@" ;;
  env) echo "P=$P NET=$NET STATE=$STATE SLURM_CONF=$SLURM_CONF_FILE" ;;
  *) sed -n '2,24p' "$0" >&2; exit 2 ;;
esac
