#!/usr/bin/env bash
# The report of a 1-hour monitor recording: 3,600 one-second samples of 10 disks, written in the
# recording format (assets/doc/record.md) with a one-second stall injected (disk sdc does no I/O
# for one sample at 30:00 while the others run at 1,000-2,000 IOPS). Prints the HTML's size
# (target: under 5 MB), headless Chromium's time to load and screenshot it against an empty
# page's (target: under 2 s more), and whether the stall is on the IOPS chart (a point of sdc's
# line on the zero line: min/max decimation keeps it).
#
#   benches/report_monitor.sh                    # DISKDASH: a built diskdash (default: release)
#   RUNS=5 DISKDASH=target/debug/diskdash benches/report_monitor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
if [ -z "${DISKDASH:-}" ]; then
  cargo build --release --quiet
  DISKDASH=target/release/diskdash
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
python3 - "$OUT/hour.jsonl" <<'PY'
import json, random, sys
random.seed(39)
disks = [f"sd{c}" for c in "abcdefghij"]
start = 1_790_000_000_000_000_000
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"format": "diskdash-monitor", "format_version": 1, "diskdash_version": "0.1.0",
        "writer": "iostat", "host": {"hostname": "bench", "kernel": "Linux 6.1", "machine": "x86_64",
        "online_cpus": 8}, "started": "2026-09-21T12:00:00.000Z", "started_monotonic_ns": 1_000_000_000,
        "interval_ns": 1_000_000_000, "disks": [{"name": d} for d in disks]}, separators=(",", ":")) + "\n")
    for seq in range(1, 3601):
        rows = []
        for d in disks:
            stalled = d == "sdc" and seq == 1800
            r = 0.0 if stalled else random.uniform(500, 1000)
            w = 0.0 if stalled else random.uniform(500, 1000)
            rows.append({"name": d, "in_flight": 4 if stalled else 0, "delta": None, "iostat": {
                "disk_device": d, "r/s": round(r, 2), "w/s": round(w, 2), "d/s": 0.0, "f/s": 0.0,
                "rkB/s": round(r * 4, 2), "wkB/s": round(w * 4, 2), "dkB/s": 0.0, "rrqm/s": 0.0,
                "wrqm/s": 0.0, "drqm/s": 0.0, "rrqm": 0.0, "wrqm": 0.0, "drqm": 0.0,
                "r_await": 1000.0 if stalled else round(random.uniform(0.1, 0.5), 2),
                "w_await": 1000.0 if stalled else round(random.uniform(0.1, 0.9), 2),
                "d_await": 0.0, "f_await": 0.0, "rareq-sz": 4.0, "wareq-sz": 4.0, "dareq-sz": 0.0,
                "aqu-sz": 4.0 if stalled else 0.5, "util": 100.0 if stalled else round(random.uniform(20, 60), 2)}})
        t = start + seq * 1_000_000_000
        f.write(json.dumps({"seq": seq, "time": "2026-09-21T12:00:00.000Z", "unix_ns": t,
            "monotonic_ns": 1_000_000_000 + seq * 1_000_000_000, "window_ns": 1_000_000_000,
            "disks": rows}, separators=(",", ":")) + "\n")
PY
echo "recording: $(stat -c %s "$OUT/hour.jsonl") bytes, 3600 samples x 10 disks"
t0=$(date +%s.%N)
"$DISKDASH" report "$OUT/hour.jsonl" -o "$OUT/hour.html"
t1=$(date +%s.%N)
size=$(stat -c %s "$OUT/hour.html")
echo "report: $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s to write, $size bytes (target < 5000000)"
echo '<!DOCTYPE html><title>empty</title>' >"$OUT/empty.html"
shot() { # PAGE: seconds to load and screenshot it
  local a b
  rm -rf "$OUT/profile"
  a=$(date +%s.%N)
  chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --user-data-dir="$OUT/profile" --window-size=1000,3000 --screenshot="$OUT/shot.png" \
    "file://$1" >/dev/null 2>&1
  b=$(date +%s.%N)
  awk "BEGIN{printf \"%.3f\", $b - $a}"
}
best_page=""; best_empty=""
for _ in $(seq "$RUNS"); do
  e=$(shot "$OUT/empty.html"); p=$(shot "$OUT/hour.html")
  if [ -z "$best_empty" ] || awk "BEGIN{exit !($e < $best_empty)}"; then best_empty=$e; fi
  if [ -z "$best_page" ] || awk "BEGIN{exit !($p < $best_page)}"; then best_page=$p; fi
done
echo "chromium (best of $RUNS): the report $best_page s, an empty page $best_empty s: the report's own $(awk "BEGIN{printf \"%.3f\", $best_page - $best_empty}") s (target < 2)"
"$DISKDASH" report "$OUT/hour.jsonl" --format svg --chart monitor-iops -o "$OUT/iops.svg"
python3 - "$OUT/iops.svg" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
# The y of the "0" tick (the zero line) and every point of every line.
zero = [float(m) for m in re.findall(r'<text x="[\d.]+" y="([\d.]+)"[^>]*text-anchor="end"[^>]*>\s*0\s*<', svg)]
ys = [float(y) for pts in re.findall(r'<polyline[^>]*points="([^"]+)"', svg) if pts.count(",") >= 3
      for y in re.findall(r",(-?[\d.]+)", pts)]
visible = bool(zero) and any(abs(y - zero[0]) <= 1 for y in ys)
print(f"stall visible on monitor-iops: {'yes' if visible else 'NO'} (zero line at y={zero[0] if zero else '?'})")
sys.exit(0 if visible else 1)
PY
