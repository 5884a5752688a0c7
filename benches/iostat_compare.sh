#!/usr/bin/env bash
# diskdash iostat against sysstat's iostat, side by side on this machine.
#
# 1. Parity: a rate-limited fio load runs on a scratch file; `diskdash iostat -dx -y DEV 1 N`
#    and sysstat's `iostat -dx -y DEV 1 N` sample the same seconds (started together, the
#    starting order alternating between rounds). Both print the same 22 columns in the same
#    layout, so the medians are compared column for column: rates and request sizes must agree
#    within 3%; await, aqu-sz and %util within sysstat's own spread: its second-to-second
#    p10..p90 (the check) and, for reference, the range of its per-round medians.
# 2. Cost: with the load stopped, `diskdash iostat -x 1` and sysstat's `iostat -x 1` (and
#    `iostat -dx 1`) watch the real disks over the same CPU_SECONDS, ROUNDS times; the CPU
#    each used (user + system, from getrusage of the reaped child) is compared as a ratio.
#
# Usage: benches/iostat_compare.sh [DIR]   (DIR: where the scratch file goes; default: here)
# Knobs: ROUNDS=3 PARITY_SECONDS=10 CPU_SECONDS=30 READ_IOPS=400 WRITE_IOPS=150 BS=16k
# DISKDASH: a built diskdash to use as it is (default: cargo build --release).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${1:-$PWD}
ROUNDS=${ROUNDS:-3}
PARITY_SECONDS=${PARITY_SECONDS:-10}
CPU_SECONDS=${CPU_SECONDS:-30}
READ_IOPS=${READ_IOPS:-400}
WRITE_IOPS=${WRITE_IOPS:-150}
BS=${BS:-16k}

need=()
command -v iostat >/dev/null 2>&1 || need+=(sysstat)
command -v fio >/dev/null 2>&1 || need+=(fio)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ -n "${DISKDASH:-}" ]; then DD=$(realpath "$DISKDASH"); else cargo build --release --quiet --bin diskdash; DD=$PWD/target/release/diskdash; fi
DEV=$("$DD" info --json "$DIR" | sed -n 's/^ *"device": "\(.*\)",$/\1/p' | head -n1)
[ -n "$DEV" ] || { echo "error: no block device found behind $DIR" >&2; exit 1; }

WORK=$(mktemp -d)
SCRATCH=$(mktemp -p "$DIR" .diskdash-iostat-compare.XXXXXX)
FIO_PID=
cleanup() {
  [ -n "$FIO_PID" ] && kill "$FIO_PID" 2>/dev/null && wait "$FIO_PID" 2>/dev/null
  rm -rf "$WORK" "$SCRATCH"
}
trap cleanup EXIT

echo "device: $DEV (behind $DIR); sysstat: $(iostat -V 2>&1 | head -n1); $(fio --version)"
echo "load: fio randrw bs=$BS, O_DIRECT, psync, rate ${READ_IOPS}/${WRITE_IOPS} IOPS (read/write)"
echo

# Lay the file out first so the load itself is steady.
fio --name=layout --filename="$SCRATCH" --size=256M --rw=write --bs=1M --direct=1 \
  --output=/dev/null
fio --name=parity --filename="$SCRATCH" --size=256M --rw=randrw --bs="$BS" --direct=1 \
  --ioengine=psync --rate_iops="$READ_IOPS,$WRITE_IOPS" --time_based \
  --runtime=$((ROUNDS * (PARITY_SECONDS + 2) + 10)) --output=/dev/null &
FIO_PID=$!
sleep 3

# --- 1. parity -------------------------------------------------------------------------
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then
    "$DD" iostat -dx -y "$DEV" 1 "$PARITY_SECONDS" >"$WORK/dd.$round" &
    first=$!
    iostat -dx -y "$DEV" 1 "$PARITY_SECONDS" >"$WORK/ss.$round" &
  else
    iostat -dx -y "$DEV" 1 "$PARITY_SECONDS" >"$WORK/ss.$round" &
    first=$!
    "$DD" iostat -dx -y "$DEV" 1 "$PARITY_SECONDS" >"$WORK/dd.$round" &
  fi
  wait "$first" $!
done
kill "$FIO_PID" 2>/dev/null; wait "$FIO_PID" 2>/dev/null || true; FIO_PID=

cat "$WORK"/dd.* | awk -v d="$DEV" '$1 == d' >"$WORK/dd.rows"
cat "$WORK"/ss.* | awk -v d="$DEV" '$1 == d' >"$WORK/ss.rows"

# median p10 p90 of column $2 of file $1
stats() {
  awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '
    { v[NR] = $1 }
    END {
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.2f %.2f %.2f", m, v[int((NR - 1) * 0.1) + 1], v[int((NR - 1) * 0.9) + 1]
    }'
}

columns=(r/s rkB/s rrqm/s %rrqm r_await rareq-sz w/s wkB/s wrqm/s %wrqm w_await wareq-sz
  d/s dkB/s drqm/s %drqm d_await dareq-sz f/s f_await aqu-sz %util)
echo "parity over $(wc -l <"$WORK/ss.rows") one-second intervals ($ROUNDS rounds of $PARITY_SECONDS s)"
for round in $(seq 1 "$ROUNDS"); do
  awk -v d="$DEV" '$1 == d' "$WORK/ss.$round" >"$WORK/ss.rows.$round"
done
# min..max over rounds of sysstat's per-round median of column $1: its run-to-run spread
round_spread() {
  for round in $(seq 1 "$ROUNDS"); do
    read -r m _ _ <<<"$(stats "$WORK/ss.rows.$round" "$1")"
    echo "$m"
  done | sort -g | awk '{ v[NR] = $1 } END { printf "%s..%s", v[1], v[NR] }'
}
printf '%-9s %12s %12s %8s %21s %17s  %s\n' column diskdash sysstat ratio "sysstat p10..p90" "sysstat rounds" check
failed=0
for i in "${!columns[@]}"; do
  col=$((i + 2))
  name=${columns[$i]}
  read -r dm _ _ <<<"$(stats "$WORK/dd.rows" "$col")"
  read -r sm s10 s90 <<<"$(stats "$WORK/ss.rows" "$col")"
  ratio=$(awk -v a="$dm" -v b="$sm" 'BEGIN { if (b == 0) print (a == 0 ? "1.000" : "inf"); else printf "%.3f", a / b }')
  case $name in
    r/s | w/s | rkB/s | wkB/s | rareq-sz | wareq-sz)
      check=$(awk -v a="$dm" -v b="$sm" 'BEGIN { d = a - b; if (d < 0) d = -d;
        print ((b == 0 && a == 0) || (b != 0 && d / b <= 0.03)) ? "ok (<=3%)" : "FAIL (>3%)" }') ;;
    r_await | w_await | aqu-sz | %util)
      check=$(awk -v a="$dm" -v lo="$s10" -v hi="$s90" 'BEGIN {
        print (a >= lo - 0.01 && a <= hi + 0.01) ? "ok (in spread)" : "FAIL (outside spread)" }') ;;
    *) check="" ;;
  esac
  case $check in FAIL*) failed=1 ;; esac
  printf '%-9s %12s %12s %8s %21s %17s  %s\n' "$name" "$dm" "$sm" "$ratio" "$s10..$s90" \
    "$(round_spread "$col")" "$check"
done
echo

# --- 2. CPU cost -----------------------------------------------------------------------
# CPU (user+system, ms) of a command run to completion, from bash's `times` of the reaped child.
cpu_ms() {
  (
    "$@" >/dev/null
    # `times` must run in this subshell (not a pipeline's) to see the reaped child.
    times >"$WORK/times.$BASHPID"
    awk 'NR == 2 {
      split($1, u, /[ms]/); split($2, s, /[ms]/)
      printf "%.0f", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$WORK/times.$BASHPID"
  )
}
echo "CPU to watch the real disks every 1 s for $CPU_SECONDS s (same seconds, $ROUNDS rounds)"
printf '%-6s %14s %18s %19s %10s\n' round "diskdash -x 1" "sysstat iostat -x" "sysstat iostat -dx" ratio
ratios=()
for round in $(seq 1 "$ROUNDS"); do
  cpu_ms "$DD" iostat -x 1 $((CPU_SECONDS + 1)) >"$WORK/cpu.dd" &
  cpu_ms iostat -x 1 $((CPU_SECONDS + 1)) >"$WORK/cpu.ss" &
  cpu_ms iostat -dx 1 $((CPU_SECONDS + 1)) >"$WORK/cpu.ssd" &
  wait # fio is gone: these three are the only jobs
  dd_ms=$(cat "$WORK/cpu.dd"); ss_ms=$(cat "$WORK/cpu.ss"); ssd_ms=$(cat "$WORK/cpu.ssd")
  ratio=$(awk -v a="$dd_ms" -v b="$ss_ms" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }')
  ratios+=("$ratio")
  printf '%-6s %11s ms %15s ms %16s ms %10s\n' "$round" "$dd_ms" "$ss_ms" "$ssd_ms" "$ratio"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END {
  m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "CPU ratio diskdash/sysstat: median %.2f, range %.2f..%.2f\n", m, v[1], v[NR] }'

[ "$failed" -eq 0 ] || { echo "parity: some columns outside the targets" >&2; exit 1; }
