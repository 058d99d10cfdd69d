# slurm_cluster.sh: sourced by the Slurm tests. Starts a private one-node Slurm cluster on this
# machine — munged, slurmctld and slurmd as root, in a temporary folder of its own (munge key,
# slurm.conf, free ports, state, spool, pid and log files) — points the Slurm commands at it with
# SLURM_CONF, and stops it and removes the folder when the test ends, whatever the outcome.
#
#   slurm_cluster_start           sets SLURM_DIR (results and job outputs go there too)
#   slurm_wait JOB TIMEOUT_S      waits until JOB (every task of an array) has ended
#   slurm_expect_state JOB STATE  fails unless every record of JOB ended in STATE
#   slurm_job_field JOB FIELD     a field of `scontrol show job` (first record), e.g. Restarts
#   slurm_fail MESSAGE            prints MESSAGE, the daemons' log tails and the job outputs; exits 1
#   slurm_skip MESSAGE            exits 77 (skipped), except in CI (CI=true), where it fails
#
# Set GALAPAGOS_KEEP_SLURM_DIR=1 to keep the folder for inspection.

SLURM_DIR=""
SLURM_NODE=$(hostname -s)
slurm_pids=()

slurm_skip() {
  if [[ "${CI:-}" == true ]]; then
    echo "FAIL: $* (in CI this test must run)" >&2
    exit 1
  fi
  echo "SKIPPED: $*"
  exit 77
}

slurm_fail() {
  echo "FAIL: $*" >&2
  if [[ -n $SLURM_DIR ]]; then
    local f daemon
    for f in "$SLURM_DIR"/*.out; do
      [[ -e $f ]] && { echo "---- job output $f" >&2; tail -n 60 "$f" >&2; }
    done
    for daemon in slurmctld slurmd munged; do
      # A daemon's log file, or what it said on stderr before it had one.
      f=$SLURM_DIR/$daemon.log
      [[ -s $f ]] || f=$SLURM_DIR/$daemon.stderr
      # (a fresh controller's complaints about missing state files are left out)
      [[ -s $f ]] && { echo "---- last lines of $f" >&2; grep -Ev 'state (save )?file' "$f" | tail -n 15 >&2; }
    done
    if slurm_controller_alive; then
      echo "---- squeue" >&2
      slurm_cmd squeue 2>&1 | tail -n 10 >&2 || true
    fi
  fi
  exit 1
}

slurm_controller_alive() { ((${#slurm_pids[@]} > 1)) && kill -0 "${slurm_pids[1]}" 2>/dev/null; }

# The Slurm commands must answer within a few seconds: a hung client must not hang the test.
slurm_cmd() { timeout 20 "$@"; }

slurm_cluster_stop() {
  local rc=$?
  trap - EXIT
  if [[ -n $SLURM_DIR ]]; then
    # Cancel what still runs so that slurmd ends its job steps before it goes.
    if slurm_controller_alive; then
      local jobs
      jobs=$(slurm_cmd squeue -h -o %A 2>/dev/null | sort -u || true)
      if [[ -n $jobs ]]; then
        # shellcheck disable=SC2086
        slurm_cmd scancel $jobs 2>/dev/null || true
        local i
        for ((i = 0; i < 30; i++)); do
          [[ -z $(slurm_cmd squeue -h 2>/dev/null || true) ]] && break
          sleep 1
        done
      fi
    fi
    local pid i
    for ((i = ${#slurm_pids[@]} - 1; i >= 0; i--)); do  # slurmd, slurmctld, munged
      pid=${slurm_pids[i]}
      kill "$pid" 2>/dev/null || continue
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    done
    if [[ "${GALAPAGOS_KEEP_SLURM_DIR:-}" == 1 ]]; then
      echo "kept $SLURM_DIR"
    else
      rm -rf "$SLURM_DIR"
    fi
  fi
  exit "$rc"
}

# Two TCP ports nobody listens on (slurmctld's and slurmd's).
slurm_free_ports() {
  /usr/bin/python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])'
}

# A test killed by ctest's timeout cannot clean up: its daemons go with it (they run in its
# process group), its folder stays. Such folders are older than 10 minutes, without a live munged.
slurm_remove_stale_dirs() {
  local dir pid
  for dir in /tmp/galapagos-slurm.*; do
    [[ -d $dir && -n $(find "$dir" -maxdepth 0 -mmin +10) ]] || continue
    pid=$(cat "$dir/munged.pid" 2>/dev/null || true)
    if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then continue; fi
    rm -rf "$dir"
  done
}

slurm_cluster_start() {
  [[ $(id -u) -eq 0 ]] || slurm_skip "the private Slurm cluster runs its daemons as root; run this test as root"
  local tool
  for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol scancel; do
    command -v "$tool" >/dev/null || slurm_skip "$tool not found: install slurm-wlm and munge (tools/install-deps.sh)"
  done
  slurm_remove_stale_dirs
  SLURM_DIR=$(mktemp -d /tmp/galapagos-slurm.XXXXXX)  # short: the munge socket path has a length limit
  chmod 755 "$SLURM_DIR"  # munged wants its socket's folder searchable by all
  trap slurm_cluster_stop EXIT
  trap 'exit 130' INT TERM
  export SLURM_CONF=$SLURM_DIR/slurm.conf
  # The jobs inherit this environment; Open MPI's mpirun refuses root without these two.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mkdir -p "$SLURM_DIR"/{state,spool}

  mungekey --create --keyfile="$SLURM_DIR/munge.key" || slurm_fail "mungekey could not create a key"
  munged -F --socket="$SLURM_DIR/munge.sock" --key-file="$SLURM_DIR/munge.key" --pid-file="$SLURM_DIR/munged.pid" \
    --log-file="$SLURM_DIR/munged.log" --seed-file="$SLURM_DIR/munged.seed" >"$SLURM_DIR/munged.stderr" 2>&1 &
  slurm_pids+=($!)

  local ports node_line
  read -r -a ports < <(slurm_free_ports)
  node_line=$(slurmd -C | head -n 1)  # NodeName=<hostname -s> CPUs=... RealMemory=...
  [[ $node_line == "NodeName=$SLURM_NODE "* ]] || slurm_fail "slurmd -C describes '$node_line', not node $SLURM_NODE"
  # Two stand-in GPUs (slurmd wants a device file per GPU): enough for the controller to judge
  # GPU requests; a job given one sees CUDA_VISIBLE_DEVICES but no GPU.
  printf 'Name=gpu File=/dev/null\nName=gpu File=/dev/zero\n' >"$SLURM_DIR/gres.conf"
  cat >"$SLURM_CONF" <<EOF
ClusterName=galapagos-test
MailProg=/bin/true
SlurmctldHost=$SLURM_NODE(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire also sets how long a requeued job waits before it may start again (default 120 s).
AuthInfo=socket=$SLURM_DIR/munge.sock,cred_expire=5
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
GresTypes=gpu
ReturnToService=2
SchedulerType=sched/builtin
# Start pending jobs (a requeued one whose delay is over) within seconds, not a minute.
SchedulerParameters=sched_interval=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$SLURM_DIR/jobcomp.txt
MinJobAge=600
KillWait=10
$node_line Gres=gpu:2 NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$SLURM_NODE Default=YES MaxTime=INFINITE State=UP
EOF

  local i
  for ((i = 0; i < 50; i++)); do
    [[ -S $SLURM_DIR/munge.sock ]] && break
    kill -0 "${slurm_pids[0]}" 2>/dev/null || break
    sleep 0.1
  done
  [[ -S $SLURM_DIR/munge.sock ]] || slurm_fail "munged did not start"
  slurmctld -D -i -f "$SLURM_CONF" >"$SLURM_DIR/slurmctld.stderr" 2>&1 &
  slurm_pids+=($!)
  slurmd -D -N "$SLURM_NODE" -f "$SLURM_CONF" >"$SLURM_DIR/slurmd.stderr" 2>&1 &
  slurm_pids+=($!)
  for ((i = 0; i < 60; i++)); do
    kill -0 "${slurm_pids[1]}" 2>/dev/null || slurm_fail "slurmctld exited at start"
    kill -0 "${slurm_pids[2]}" 2>/dev/null || slurm_fail "slurmd exited at start"
    [[ $(slurm_cmd sinfo -h -n "$SLURM_NODE" -o %T 2>/dev/null) == idle ]] && break
    sleep 0.5
  done
  [[ $(slurm_cmd sinfo -h -n "$SLURM_NODE" -o %T 2>/dev/null) == idle ]] ||
    slurm_fail "the private Slurm cluster did not come up (node $SLURM_NODE not idle after 30 s)"
  echo "private Slurm cluster up in $SLURM_DIR (slurmctld port ${ports[0]}, slurmd port ${ports[1]})"
}

# Job states of every record of JOB (array tasks, one per line), from the controller.
slurm_states() {
  slurm_cmd scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2
}

slurm_wait() {
  local job=$1 timeout_s=$2 start=$SECONDS states
  while :; do
    states=$(slurm_states "$job")
    [[ -n $states ]] || slurm_fail "the controller does not know job $job"
    # Ended once no record is pending, running, being requeued or completing.
    if ! grep -Eq 'PENDING|RUNNING|REQUEUE|COMPLETING|CONFIGURING|SUSPENDED|RESIZING|SIGNALING|STAGE_OUT' <<<"$states"; then
      return 0
    fi
    ((SECONDS - start < timeout_s)) ||
      slurm_fail "job $job did not end within $timeout_s s (states: $(tr '\n' ' ' <<<"$states"))"
    sleep 1
  done
}

slurm_expect_state() {
  local job=$1 want=$2 states
  states=$(slurm_states "$job")
  if grep -qv "^$want\$" <<<"$states"; then
    slurm_fail "job $job ended $(tr '\n' ' ' <<<"$states")instead of $want: $(slurm_cmd scontrol -o show job "$job" | grep -o 'ExitCode=[^ ]*' | tr '\n' ' ')"
  fi
}

slurm_job_field() {
  slurm_cmd scontrol -o show job "$1" | head -n 1 | grep -o " $2=[^ ]*" | cut -d= -f2-
}
