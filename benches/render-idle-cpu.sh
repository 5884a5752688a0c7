#!/usr/bin/env bash
# CPU of the idle monitor dashboard (`diskdash`, 1 s interval, 160x50 terminal) against
# sysstat's `iostat -x 1`, side by side: both run at the same time in two tmux panes of their
# own servers for DURATION seconds, ROUNDS times (start order alternated). CPU is the time on
# CPU of every thread of each process (/proc/PID/task/*/schedstat, nanoseconds) over the window.
#
#   benches/render-idle-cpu.sh            # 3 rounds of 60 s
#   ROUNDS=5 DURATION=30 benches/render-idle-cpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-60}

need=()
command -v tmux >/dev/null || need+=(tmux)
command -v iostat >/dev/null || need+=(sysstat)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
BIN=${DISKDASH:-${BIN:-}}
if [ -z "$BIN" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/diskdash
fi
WORK=$(mktemp -d)
# (`|| true`: under `set -e` a server already gone would make the script's status 1.)
trap 'tmux -S "$WORK/dash.sock" kill-server 2>/dev/null || true; tmux -S "$WORK/iostat.sock" kill-server 2>/dev/null || true; rm -rf "$WORK"' EXIT
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%d", s }'; }
# The pid of the command tmux runs in the pane (exec'd, so it is the pane's pid).
start() { # socket command...
  local sock=$WORK/$1.sock; shift
  tmux -S "$sock" -f /dev/null new-session -d -x 160 -y 50 "exec $*"
  sleep 0.5
  tmux -S "$sock" display -p '#{pane_pid}'
}

results=()
for round in $(seq 1 "$ROUNDS"); do
  if (( round % 2 )); then order=(dash iostat); else order=(iostat dash); fi
  declare -A pid=()
  for who in "${order[@]}"; do
    case $who in
      dash) pid[dash]=$(start dash "$BIN" --interval 1s) ;;
      iostat) pid[iostat]=$(start iostat iostat -x 1) ;;
    esac
  done
  sleep 2 # let both settle past start-up
  a0=$(cpu_ns "${pid[dash]}"); b0=$(cpu_ns "${pid[iostat]}")
  sleep "$DURATION"
  a1=$(cpu_ns "${pid[dash]}"); b1=$(cpu_ns "${pid[iostat]}")
  tmux -S "$WORK/dash.sock" send-keys q; tmux -S "$WORK/iostat.sock" send-keys C-c
  sleep 1
  tmux -S "$WORK/dash.sock" kill-server 2>/dev/null || true
  tmux -S "$WORK/iostat.sock" kill-server 2>/dev/null || true
  line=$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v d="$DURATION" 'BEGIN {
    pa = 100 * a / 1e9 / d; pb = 100 * b / 1e9 / d
    printf "%.3f %.3f %s", pa, pb, (b > 0 ? sprintf("%.2f", a / b) : "inf") }')
  echo "round $round: diskdash ${line%% *}% of a core, iostat -x 1 $(echo "$line" | cut -d' ' -f2)% (ratio $(echo "$line" | cut -d' ' -f3))"
  results+=("$line")
done

# Median and range of column $1 of the results.
summary() {
  printf '%s\n' "${results[@]}" | awk -v c="$1" '{ print $c }' | sort -g | awk '
    { v[NR] = $1 } END { printf "median %s (range %s-%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
echo "diskdash monitor dashboard, % of one core: $(summary 1)"
echo "iostat -x 1, % of one core:                $(summary 2)"
echo "ratio diskdash / iostat:                   $(summary 3)"
