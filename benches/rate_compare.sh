#!/usr/bin/env bash
# Paced load, diskdash against fio: the same randread job capped at RATE I/Os per second
# (fio's rate_iops), on the same preconditioned file, alternated (fio first in odd pairs,
# diskdash first in even ones). Prints per process (linear, poisson) each tool's achieved IOPS
# against the asked rate, and the ratio diskdash/fio of the p99 latency (median and range);
# diskdash's p99 from the schedule beside it.
#
#   benches/rate_compare.sh                       # 3 pairs x 10 s, rate 20000, QD 32, 1 GiB
#   PAIRS=5 RUNTIME=30 RATE=50000 benches/rate_compare.sh
#
# Environment: BIN (a built diskdash; default: cargo build --release), BENCH_DIR (default
# /var/tmp/diskdash-bench), PAIRS, RUNTIME (seconds), RATE,
# IODEPTH, SIZE, PROCESSES (default "linear poisson").
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-3}
RUNTIME=${RUNTIME:-10}
RATE=${RATE:-20000}
IODEPTH=${IODEPTH:-32}
SIZE=${SIZE:-1G}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
PROCESSES=${PROCESSES:-"linear poisson"}

if ! command -v fio >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
fi
command -v python3 >/dev/null || { echo "needs python3 to read the JSON results" >&2; exit 1; }

[ -n "${BIN:-}" ] || cargo build --release --quiet
DD=${BIN:-$PWD/target/release/diskdash}
mkdir -p "$BENCH_DIR"
FILE=$BENCH_DIR/data.bin
OUT=$BENCH_DIR/rate-results
rm -rf "$OUT"; mkdir -p "$OUT"

want=$(numfmt --from=iec "$SIZE")
if [ ! -f "$FILE" ] || [ "$(stat -c %s "$FILE")" != "$want" ]; then
  echo "preconditioning $FILE ($SIZE)"
  rm -f "$FILE"
  fio --name=fill --filename="$FILE" --size="$SIZE" --rw=write --bs=1M --direct=1 \
      --ioengine=psync --output=/dev/null
fi

run_fio() { # process pair
  fio --name="rate-$1" --filename="$FILE" --size="$SIZE" --rw=randread --bs=4k \
      --iodepth="$IODEPTH" --ioengine=io_uring --direct=1 --runtime="$RUNTIME" --time_based \
      --rate_iops="$RATE" --rate_process="$1" --lat_percentiles=1 --output-format=json \
      --output="$OUT/$1.fio.$2.json"
}

run_dd() { # process pair
  "$DD" bench "$FILE" --rw randread --bs 4k --iodepth "$IODEPTH" --size "$SIZE" \
      --runtime "${RUNTIME}s" --rate-iops "$RATE" --rate-process "$1" --no-tui \
      --json "$OUT/$1.dd.$2.json" >/dev/null 2>"$OUT/$1.dd.$2.err"
}

for process in $PROCESSES; do
  for p in $(seq 1 "$PAIRS"); do
    echo "$process: pair $p/$PAIRS"
    if [ $((p % 2)) -eq 1 ]; then run_fio "$process" "$p"; run_dd "$process" "$p"
    else run_dd "$process" "$p"; run_fio "$process" "$p"; fi
  done
done

python3 - "$OUT" "$PAIRS" "$PROCESSES" "$RATE" <<'PY'
import json, statistics, sys
out, pairs, processes, rate = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), int(sys.argv[4])

def fio(process, p):
    d = json.load(open(f"{out}/{process}.fio.{p}.json"))["jobs"][0]["read"]
    return dict(iops=d["iops"], p99=d["lat_ns"]["percentile"]["99.000000"], sched=None)

def dd(process, p):
    d = json.load(open(f"{out}/{process}.dd.{p}.json"))["read"]
    return dict(iops=d["iops"], p99=d["lat_ns"]["percentile"]["99.000000"],
                sched=d["lat_sched_ns"]["percentile"]["99.000000"])

def show(label, values, fmt="{:.3f}"):
    med = statistics.median(values)
    print(f"  {label:<36} median {fmt.format(med)}  range {fmt.format(min(values))}-"
          f"{fmt.format(max(values))}  ({', '.join(fmt.format(v) for v in values)})")

for process in processes:
    f = [fio(process, p) for p in range(1, pairs + 1)]
    d = [dd(process, p) for p in range(1, pairs + 1)]
    print(f"{process}, rate_iops={rate}: {pairs} alternated pairs")
    show("fio IOPS / asked", [a["iops"] / rate for a in f], "{:.4f}")
    show("diskdash IOPS / asked", [b["iops"] / rate for b in d], "{:.4f}")
    show("p99 latency ratio diskdash/fio", [b["p99"] / a["p99"] for a, b in zip(f, d)])
    print(f"  {'p99 us  fio / diskdash / sched':<36} " + "  ".join(
        f"{a['p99']/1e3:.0f}/{b['p99']/1e3:.0f}/{b['sched']/1e3:.0f}" for a, b in zip(f, d)))
PY
