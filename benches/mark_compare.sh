#!/usr/bin/env bash
# diskdash mark's SEQ1M Q8T1 read against the same job run by real fio: sequential 1 MiB reads,
# 8 in flight, 1 thread, io_uring, O_DIRECT, a 1 GiB working set, a warm-up as long as the
# measurement (CrystalDiskMark's discarded first pass; fio's ramp_time), then RUNTIME seconds
# measured. Alternated pairs (fio first in odd pairs), the ratio diskdash/fio of bandwidth with
# its median and range.
#
# diskdash's number is mark's own: `diskdash mark --profile peak --loops 1` (the smallest
# profile with SEQ1M Q8T1), its SEQ1M Q8T1 read loop taken from the record. Both read the same
# file, preconditioned once with O_DIRECT writes (mark runs on it with --allow-destructive; its
# write tests come after its reads and rewrite it with data).
#
# Buffers: with `--iomem huge` (which the script passes under FIO_IOMEM=shmhuge; mark's default
# is malloc, as fio's) diskdash's are 2 MiB-aligned and get transparent huge pages (madvise), so a 1 MiB
# O_DIRECT read is a few physical segments; fio's malloc'd buffers are 4 KiB pages and a 1 MiB
# read can exceed the queue's max_segments and split. FIO_IOMEM=shmhuge (the default) gives fio
# huge pages too (`iomem=shmhuge`, with vm.nr_hugepages raised for the run as root and
# restored): like for like. FIO_IOMEM=malloc compares fio as it runs by default.
#
#   benches/mark_compare.sh                  # 3 pairs, 5 s per measurement, 1 GiB
#   PAIRS=7 RUNTIME=10 SIZE=4G benches/mark_compare.sh
#
# Environment: BENCH_DIR (default /var/tmp/diskdash-mark-bench), PAIRS, RUNTIME (seconds), SIZE,
# FIO_IOMEM (shmhuge, malloc), THP_MODE=never (root: both tools on 4 KiB pages).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-3}
RUNTIME=${RUNTIME:-5}
SIZE=${SIZE:-1G}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-mark-bench}

if ! command -v fio >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
fi
command -v python3 >/dev/null || { echo "needs python3 to read the JSON results" >&2; exit 1; }

if [ -n "${DISKDASH:-}" ]; then DD=$(realpath "$DISKDASH"); else
  cargo build --release --quiet
  DD=$PWD/target/release/diskdash
fi
mkdir -p "$BENCH_DIR"
FILE=$BENCH_DIR/fio-data.bin
OUT=$BENCH_DIR/results
rm -rf "$OUT"; mkdir -p "$OUT"

want=$(numfmt --from=iec "$SIZE")
if [ ! -f "$FILE" ] || [ "$(stat -c %s "$FILE")" != "$want" ]; then
  echo "preconditioning $FILE ($SIZE)"
  rm -f "$FILE"
  fio --name=fill --filename="$FILE" --size="$SIZE" --rw=write --bs=1M --direct=1 \
      --ioengine=psync --output=/dev/null
fi

FIO_IOMEM=${FIO_IOMEM:-shmhuge}
HUGE=/proc/sys/vm/nr_hugepages
if [ "$FIO_IOMEM" = shmhuge ]; then
  [ -w "$HUGE" ] || { echo "FIO_IOMEM=shmhuge needs root (vm.nr_hugepages)" >&2; exit 1; }
  huge_before=$(cat "$HUGE")
  # fio's buffer: iodepth x 1 MiB = 8 MiB, in 2 MiB pages, with room to spare.
  echo $((huge_before + 16)) > "$HUGE"
  echo "fio: iomem=shmhuge (vm.nr_hugepages $huge_before -> $(cat "$HUGE"))"
fi

run_fio() { # pair
  fio --name=seq1m-q8t1-read --filename="$FILE" --size="$SIZE" --rw=read --bs=1M \
      --iodepth=8 --numjobs=1 --ioengine=io_uring --direct=1 --ramp_time="$RUNTIME" \
      --iomem="$FIO_IOMEM" --runtime="$RUNTIME" --time_based --output-format=json \
      --output="$OUT/fio.$1.json"
}

run_mark() { # pair
  # Like for like: mark's own default is malloc'd buffers (fio's); with fio on huge pages,
  # mark gets its huge-page buffers too.
  local iomem=()
  [ "$FIO_IOMEM" = shmhuge ] && iomem=(--iomem huge)
  "$DD" mark "$FILE" --profile peak --loops 1 --size "$SIZE" --allow-destructive "${iomem[@]}" \
      --runtime "${RUNTIME}s" --no-tui --json "$OUT/mark.$1.json" \
      >"$OUT/mark.$1.txt" 2>"$OUT/mark.$1.err"
}

# THP=never: transparent huge pages off for the run (root), so both tools' buffers are 4 KiB
# pages and their 1 MiB reads split alike on a queue of fewer segments; restored afterwards.
THP=/sys/kernel/mm/transparent_hugepage/enabled
if [ "${THP_MODE:-}" = never ] && [ -w "$THP" ]; then
  before=$(sed -E 's/.*\[(.*)\].*/\1/' "$THP")
  trap 'echo "$before" > "$THP"; [ -z "${huge_before:-}" ] || echo "$huge_before" > "$HUGE"' EXIT
  echo never > "$THP"
  echo "transparent huge pages: never (was $before)"
fi

[ -z "${huge_before:-}" ] || [ -n "${before:-}" ] || trap 'echo "$huge_before" > "$HUGE"' EXIT

for p in $(seq 1 "$PAIRS"); do
  echo "pair $p/$PAIRS"
  if [ $((p % 2)) -eq 1 ]; then run_fio "$p"; run_mark "$p"; else run_mark "$p"; run_fio "$p"; fi
done

python3 - "$OUT" "$PAIRS" "$RUNTIME" "$SIZE" "$FIO_IOMEM" <<'PY'
import json, statistics, sys
out, pairs, runtime, size, iomem = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]

def fio(p):
    return json.load(open(f"{out}/fio.{p}.json"))["jobs"][0]["read"]["bw_bytes"]

def fio_split(p):
    # Device reads per 1 MiB read: fio's disk_util counts its whole run (ramp and measured),
    # its read counts only the measured half, at the same rate: twice the measured I/Os.
    doc = json.load(open(f"{out}/fio.{p}.json"))
    dev = sum(d["read_ios"] for d in doc.get("disk_util", []))
    ios = doc["jobs"][0]["read"]["total_ios"] * 2
    return dev / ios if ios else float("nan")

def mark_split(p):
    rec = json.load(open(f"{out}/mark.{p}.json"))
    for s in rec["segments"]:
        if s["job"]["rw"] == "read" and s["job"]["iodepth"] == 8 and s["device"]:
            r = s["device"]["reconciliation"]
            return r["device_read_ios"] / r["app_read_ios"] if r["app_read_ios"] else float("nan")
    return float("nan")

def mark(p):
    rec = json.load(open(f"{out}/mark.{p}.json"))
    loops = [s["read"]["bw_bytes"] for s in rec["segments"]
             if s["job"]["rw"] == "read" and s["job"]["bs"] == 1 << 20 and s["job"]["iodepth"] == 8
             and s["job"]["numjobs"] == 1 and s["status"] == "completed"]
    assert len(loops) == 1, loops
    return loops[0]

f = [fio(p) for p in range(1, pairs + 1)]
d = [mark(p) for p in range(1, pairs + 1)]
ratios = [b / a for a, b in zip(f, d)]
print(f"SEQ1M Q8T1 read, {size}, {runtime} s warm-up + {runtime} s measured, {pairs} alternated pairs, fio iomem={iomem}")
print(f"  MB/s  fio / diskdash mark   " + "  ".join(f"{a/1e6:.1f}/{b/1e6:.1f}" for a, b in zip(f, d)))
print(f"  bandwidth ratio diskdash/fio  median {statistics.median(ratios):.3f}  "
      f"range {min(ratios):.3f}-{max(ratios):.3f}  ({', '.join(f'{r:.3f}' for r in ratios)})")
# A 1 MiB read that reaches the disk as two requests (buffers of plain 4 KiB pages, more
# segments than the queue's max_segments) runs at about half the rate of one request.
print("  device reads per 1 MiB read  fio / diskdash   " + "  ".join(
    f"{fio_split(p):.2f}/{mark_split(p):.2f}" for p in range(1, pairs + 1)))
PY
