#!/usr/bin/env bash
# What verification costs: the same 4k randwrite with and without `--verify KIND`, alternated
# (plain first in odd pairs), on one preallocated file. Prints per kind the ratio verify/plain of
# CPU time per I/O and of IOPS (median and range), and the read-back's speed after the run.
#
#   benches/verify_cost.sh                      # 3 pairs x 5 s per kind, 256 MiB, QD32
#   PAIRS=5 RUNTIME=10 KINDS="crc32c sha256" benches/verify_cost.sh
#
# Environment: BIN (a built diskdash; default: cargo build --release), BENCH_DIR (default
# /var/tmp/diskdash-bench), PAIRS, RUNTIME (seconds), SIZE, KINDS (default "crc32c xxhash").
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-3}
RUNTIME=${RUNTIME:-5}
SIZE=${SIZE:-256M}
KINDS=${KINDS:-"crc32c xxhash"}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
command -v python3 >/dev/null || { echo "needs python3 to read the JSON results" >&2; exit 1; }

[ -n "${BIN:-}" ] || cargo build --release --quiet
DD=${BIN:-$PWD/target/release/diskdash}
mkdir -p "$BENCH_DIR"
FILE=$BENCH_DIR/verify.bin
OUT=$BENCH_DIR/verify-results
rm -rf "$OUT"; mkdir -p "$OUT"
rm -f "$FILE"; fallocate -l "$SIZE" "$FILE"

run() { # name pair extra...
  local name=$1 pair=$2; shift 2
  "$DD" bench "$FILE" --rw randwrite --bs 4k -q 32 --size "$SIZE" --runtime "${RUNTIME}s" \
      --allow-destructive --no-tui --json "$OUT/$name.$pair.json" "$@" >/dev/null 2>&1 || true
}

for kind in $KINDS; do
  for p in $(seq 1 "$PAIRS"); do
    echo "$kind: pair $p/$PAIRS"
    if [ $((p % 2)) -eq 1 ]; then run plain-$kind "$p"; run $kind "$p" --verify "$kind"
    else run $kind "$p" --verify "$kind"; run plain-$kind "$p"; fi
  done
done

python3 - "$OUT" "$PAIRS" "$KINDS" <<'PY'
import json, statistics, sys
out, pairs, kinds = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()

def load(name, p):
    r = json.load(open(f"{out}/{name}.{p}.json"))
    ios = r["write"]["total_ios"]
    cpu = r["cpu"]["usr_ns"] + r["cpu"]["sys_ns"]
    v = r.get("verify")
    return dict(iops=r["write"]["iops"], cpu_per_io=cpu / ios, verify=v)

def show(label, values, fmt="{:.3f}"):
    med = statistics.median(values)
    print(f"  {label:<30} median {fmt.format(med)}  range {fmt.format(min(values))}-"
          f"{fmt.format(max(values))}  ({', '.join(fmt.format(v) for v in values)})")

for kind in kinds:
    plain = [load(f"plain-{kind}", p) for p in range(1, pairs + 1)]
    ver = [load(kind, p) for p in range(1, pairs + 1)]
    print(f"{kind}: --verify against the plain run, {pairs} alternated pairs")
    show("CPU per I/O ratio", [v["cpu_per_io"] / a["cpu_per_io"] for a, v in zip(plain, ver)])
    show("IOPS ratio", [v["iops"] / a["iops"] for a, v in zip(plain, ver)])
    print(f"  {'CPU ns per I/O  plain / verify':<30} " + "  ".join(
        f"{a['cpu_per_io']:.0f}/{v['cpu_per_io']:.0f}" for a, v in zip(plain, ver)))
    for v in ver:
        x = v["verify"]
        print(f"  read-back: {x['blocks_checked']} blocks in {x['read_back_ns']/1e9:.2f} s, "
              f"{x['blocks_failed']} failed")
PY
