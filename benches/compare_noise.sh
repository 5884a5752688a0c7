#!/usr/bin/env bash
# compare's verdicts on this machine: whether it tells run-to-run noise from a real change.
#
#   1. The same job run PAIRS times in pairs (A then B, same file, same flags): each pair
#      compared, counting "no change within noise" on IOPS (the issue asks >= 9 of 10), and
#      on p99 (judged over the same batches, each batch's p99 read off its histograms).
#   2. A run paced at RATE IOPS against one paced at 80% of it (the "80% of the other's
#      rate" of the check): counting the times compare calls IOPS worse and
#      `--max-regression 5` exits 1 (asks 10 of 10). RATE defaults to half of what the warm-up
#      run achieved, so both runs hold their pace on a disk that others share.
#
#   benches/compare_noise.sh                    # 10 pairs of 3 s randread runs, QD 16
#   PAIRS=5 RUNTIME=2 RW=randwrite benches/compare_noise.sh
#
# Environment: BIN (a built diskdash; default: cargo build --release), BENCH_DIR (default
# /var/tmp/diskdash-bench), PAIRS, RUNTIME (seconds), INTERVAL (default 50ms: 60 intervals
# in 3 s, 6 batches of 10), RW, BS, IODEPTH, SIZE, ENGINE (default io_uring), RATE (IOPS).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-10}
RUNTIME=${RUNTIME:-3}
INTERVAL=${INTERVAL:-50ms}
RW=${RW:-randread}
BS=${BS:-4k}
IODEPTH=${IODEPTH:-16}
SIZE=${SIZE:-256M}
ENGINE=${ENGINE:-io_uring}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
command -v python3 >/dev/null || { echo "needs python3 to read the JSON results" >&2; exit 1; }

[ -n "${BIN:-}" ] || cargo build --release --quiet
DD=${BIN:-$PWD/target/release/diskdash}
OUT=$BENCH_DIR/compare-noise
rm -rf "$OUT"; mkdir -p "$OUT"
FILE=$BENCH_DIR/compare-noise.bin

want=$(numfmt --from=iec "$SIZE")
if [ ! -f "$FILE" ] || [ "$(stat -c %s "$FILE")" != "$want" ]; then
  dd if=/dev/urandom of="$FILE" bs=1M count=$((want >> 20)) status=none conv=fsync
fi
job=(--no-tui --rw "$RW" --bs "$BS" --iodepth "$IODEPTH" --ioengine "$ENGINE" --size "$SIZE"
     --runtime "${RUNTIME}s" --interval "$INTERVAL")
[[ $RW == *write* || $RW == *rw* || $RW == *trim* ]] && job+=(--allow-destructive)
iops() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["read"]["iops"] + r["write"]["iops"])' "$1"; }

# One unmeasured run warms the path and sets the pace of the paced pair.
"$DD" bench "$FILE" "${job[@]}" --json "$OUT/warm.json" >/dev/null 2>&1
RATE=${RATE:-$(python3 -c "print(max(10, int(float('$(iops "$OUT/warm.json")') / 2)))")}
SLOW=$(python3 -c "print(max(1, int($RATE * 0.8)))")
verdict() { # the verdict of metric $1 (default iops) of the first direction of `compare --json`
  python3 -c 'import json,sys; c=json.load(sys.stdin); m=[m for m in c["directions"][0]["metrics"] if m["metric"] == sys.argv[1]][0]; i=m["interval"] or {}; print(m["verdict"], "%+.1f%%" % (m["change_pct"] or 0), "[%+.1f%%, %+.1f%%]" % (i.get("low_pct", 0), i.get("high_pct", 0)))' "${1:-iops}"
}

same=0; same99=0; worse=0; gated=0
printf '%-4s %-42s %-42s %-42s\n' pair "A vs B (same job)" "A vs B p99" "$RATE vs $SLOW IOPS (exit of --max-regression 5)"
for i in $(seq 1 "$PAIRS"); do
  a=$OUT/a$i.json; b=$OUT/b$i.json; p=$OUT/p$i.json; c=$OUT/c$i.json
  "$DD" bench "$FILE" "${job[@]}" --json "$a" >/dev/null 2>&1
  "$DD" bench "$FILE" "${job[@]}" --json "$b" >/dev/null 2>&1
  "$DD" bench "$FILE" "${job[@]}" --rate-iops "$RATE" --json "$p" >/dev/null 2>&1
  "$DD" bench "$FILE" "${job[@]}" --rate-iops "$SLOW" --json "$c" >/dev/null 2>&1
  v1=$("$DD" compare --json "$a" "$b" | verdict)
  v99=$("$DD" compare --json "$a" "$b" | verdict lat_p99_ns)
  v2=$("$DD" compare --json "$p" "$c" | verdict)
  set +e; "$DD" compare --max-regression 5 "$p" "$c" >/dev/null 2>&1; code=$?; set -e
  [[ $v1 == no_change* ]] && same=$((same + 1))
  [[ $v99 == no_change* ]] && same99=$((same99 + 1))
  [[ $v2 == worse* ]] && worse=$((worse + 1))
  [ "$code" = 1 ] && gated=$((gated + 1))
  printf '%-4s %-42s %-42s %-42s\n' "$i" "$v1" "$v99" "$v2 (exit $code)"
done
echo
echo "same job:        $same of $PAIRS pairs \"no change within noise\" (want >= $(( (PAIRS * 9 + 9) / 10 )))"
echo "same job, p99: $same99 of $PAIRS pairs \"no change within noise\""
echo "80% rate:        $worse of $PAIRS called worse, $gated of $PAIRS exit 1 under --max-regression 5 (want all)"
echo "job: $RW bs=$BS iodepth=$IODEPTH $ENGINE size=$SIZE runtime=${RUNTIME}s interval=$INTERVAL on $FILE"
