#!/usr/bin/env bash
# IOPS of the same benchmark with the dashboard on (in a 160x50 tmux pane) and headless
# (`--no-tui`), alternated PAIRS times on one preconditioned file. Target: the dashboard run
# within 3% of the headless one.
#
#   benches/render-vs-headless.sh
#   PAIRS=5 RUNTIME=20s JOB="--rw randread --bs 4k --iodepth 32" benches/render-vs-headless.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
RUNTIME=${RUNTIME:-15s}
SIZE_MB=${SIZE_MB:-512}
JOB=${JOB:---rw randread --bs 4k --iodepth 32}

need=()
command -v tmux >/dev/null || need+=(tmux)
command -v jq >/dev/null || need+=(jq)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
BIN=${DISKDASH:-${BIN:-}}
if [ -z "$BIN" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/diskdash
fi
WORK=$(mktemp -d "$PWD/.bench-render-XXXXXX")
trap 'tmux -S "$WORK/tmux.sock" kill-server 2>/dev/null || true; rm -rf "$WORK"' EXIT
FILE=$WORK/data
dd if=/dev/urandom of="$FILE" bs=1M count="$SIZE_MB" status=none
sync

# shellcheck disable=SC2086
headless() {
  "$BIN" bench "$FILE" $JOB --runtime "$RUNTIME" --no-tui --json "$WORK/h.json" >/dev/null 2>&1
  jq '.read.iops + .write.iops' "$WORK/h.json"
}

dashboard() {
  rm -f "$WORK/d.json" "$WORK/d.status"
  tmux -S "$WORK/tmux.sock" -f /dev/null new-session -d -x 160 -y 50 \
    "$BIN bench $FILE $JOB --runtime $RUNTIME --json $WORK/d.json; echo \$? > $WORK/d.status"
  # The dashboard stays open after the runtime (FINISHED; STOPPED before stop 42); then quit.
  until tmux -S "$WORK/tmux.sock" capture-pane -p 2>/dev/null | grep -Eq 'FINISHED|STOPPED'; do sleep 0.5; done
  tmux -S "$WORK/tmux.sock" send-keys q
  until [ -s "$WORK/d.status" ]; do sleep 0.2; done
  tmux -S "$WORK/tmux.sock" kill-server 2>/dev/null || true
  jq '.read.iops + .write.iops' "$WORK/d.json"
}

ratios=()
for pair in $(seq 1 "$PAIRS"); do
  if (( pair % 2 )); then h=$(headless); d=$(dashboard); else d=$(dashboard); h=$(headless); fi
  r=$(awk -v d="$d" -v h="$h" 'BEGIN { printf "%.4f", d / h }')
  printf 'pair %d: dashboard %.0f IOPS, headless %.0f IOPS, ratio %s\n' "$pair" "$d" "$h" "$r"
  ratios+=("$r")
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END {
  printf "dashboard / headless IOPS: median %s (range %s-%s) over %d pairs\n", v[int((NR + 1) / 2)], v[1], v[NR], NR }'
