#!/usr/bin/env bash
# Where the CPU goes, diskdash beside fio on the same job: for each tool, after a warm-up, the
# CPU (user, system, run-queue wait) and context switches of its threads grouped by name from
# /proc/PID/task/*/{stat,status,schedstat}, per second and per I/O; then, when `perf` works
# (software events are enough), the share of samples in the kernel and in the tool's own code
# and the symbols above PERF_MIN percent.
#
#   CASE=randread-4k-qd64-j16 benches/cpu_where.sh
#   DISKDASH=./diskdash FIO=./fio PERF="perf" CASE=randwrite-4k-qd32-j4 RUNTIME=8 benches/cpu_where.sh
#
# CASE is RW-BS-qdN[-ENGINE][-jN] as in benches/fio_compare.sh. Environment: RUNTIME (seconds per
# run, default 8; the sample is its middle, RUNTIME-4 seconds), SIZE (default 1G), BENCH_DIR
# (default /var/tmp/diskdash-bench), DISKDASH, FIO, PERF (a perf command; "" skips the profile),
# PERF_MIN (default 0.7), PERF_HZ (samples per second, default 999), PERF_ROWS (rows of the
# per-I/O symbol table, default 25).
set -euo pipefail
cd "$(dirname "$0")/.."
CASE=${CASE:-randread-4k-qd32-j1}
RUNTIME=${RUNTIME:-8}
SIZE=${SIZE:-1G}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
PERF=${PERF-perf}
PERF_MIN=${PERF_MIN:-0.7}
PERF_HZ=${PERF_HZ:-999}
PERF_ROWS=${PERF_ROWS:-25}
FIO=$(command -v "${FIO:-fio}") || { echo "fio not found: install it or set FIO=path" >&2; exit 1; }
if [ -n "${DISKDASH:-}" ]; then DD=$(realpath "$DISKDASH"); else cargo build --release --quiet; DD=$PWD/target/release/diskdash; fi
[ "$RUNTIME" -ge 6 ] || { echo "RUNTIME=$RUNTIME: needs at least 6 s (2 s warm-up, 2 s sample, 2 s after)" >&2; exit 2; }
if [[ $CASE =~ ^(read|write|randread|randwrite)-([0-9]+[kKmM]?)-qd([0-9]+)(-(io_uring|libaio|psync))?(-j([0-9]+))?$ ]]; then
  rw=${BASH_REMATCH[1]} bs=${BASH_REMATCH[2]^^} qd=${BASH_REMATCH[3]} engine=${BASH_REMATCH[5]:-io_uring} jobs=${BASH_REMATCH[7]:-1}
else
  echo "CASE=$CASE: not RW-BS-qdN[-ENGINE][-jN] (e.g. randread-4k-qd64-j16)" >&2; exit 2
fi
if [ -n "$PERF" ] && ! $PERF record -o /dev/null -- true >/dev/null 2>&1; then
  echo "perf ($PERF) cannot record here: no profile (PERF=\"\" skips this check)" >&2; PERF=""
fi
mkdir -p "$BENCH_DIR"; FILE=$BENCH_DIR/data.bin; OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
want=$(numfmt --from=iec "$SIZE")
if [ ! -f "$FILE" ] || [ "$(stat -c %s "$FILE")" != "$want" ]; then
  rm -f "$FILE"
  "$FIO" --name=fill --filename="$FILE" --size="$SIZE" --rw=write --bs=1M --direct=1 --ioengine=psync --output=/dev/null
fi
sample=$((RUNTIME - 4))

profile() { # tool json-path command...
  local tool=$1 json=$2; shift 2
  "$@" >/dev/null 2>"$OUT/$tool.err" &
  local pid=$!
  sleep 2
  python3 - "$tool" "$sample" "$pid" >"$OUT/$tool.threads" <<'PY' &
import collections, os, re, sys, time
tool, secs, root = sys.argv[1], float(sys.argv[2]), sys.argv[3]
tick = os.sysconf("SC_CLK_TCK")
def tree():
    # The tool's process and its descendants (fio's job processes), by parent pid.
    parent = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            parent[pid] = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]
        except OSError:
            continue
    pids, grew = {root}, True
    while grew:
        more = {p for p, pp in parent.items() if pp in pids} - pids
        grew = bool(more)
        pids |= more
    return pids
def sample():
    out = {}
    for pid in tree():
        try:
            for t in os.listdir(f"/proc/{pid}/task"):
                b = f"/proc/{pid}/task/{t}"
                name = re.sub(r"[-0-9]+$", "", open(f"{b}/comm").read().strip())
                st = open(f"{b}/stat").read().rsplit(")", 1)[1].split()
                status = open(f"{b}/status").read()
                cs = [int(re.search(rf"^{k}_ctxt_switches:\s+(\d+)", status, re.M).group(1)) for k in ("voluntary", "nonvoluntary")]
                wait = int(open(f"{b}/schedstat").read().split()[1])
                out[(pid, t)] = (name, int(st[11]), int(st[12]), cs[0], cs[1], wait)
        except (OSError, AttributeError):
            continue
    return out
a = sample(); t0 = time.monotonic(); time.sleep(secs); b = sample(); dt = time.monotonic() - t0
groups = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0])
for k in a.keys() & b.keys():
    g = groups[a[k][0]]
    g[0] += 1
    for i in range(1, 6):
        g[i] += b[k][i] - a[k][i]
for name, (n, usr, sys_, vol, invol, wait) in sorted(groups.items()):
    print(f"{name}\t{n}\t{usr / tick / dt}\t{sys_ / tick / dt}\t{wait / 1e9 / dt}\t{vol / dt}\t{invol / dt}")
PY
  local sampler=$!
  if [ -n "$PERF" ]; then
    local pids
    pids=$( (echo "$pid"; pgrep -P "$pid" || true) | paste -sd,)
    $PERF record -g -F "$PERF_HZ" -p "$pids" -o "$OUT/$tool.perf" -- sleep "$sample" >/dev/null 2>&1 || true
  fi
  wait "$sampler"
  wait "$pid" || { echo "$tool failed:" >&2; cat "$OUT/$tool.err" >&2; exit 1; }
  cp "$json" "$OUT/$tool.json"
}

profile diskdash "$OUT/dd.out.json" "$DD" bench "$FILE" --rw "$rw" --bs "$bs" --iodepth "$qd" --ioengine "$engine" \
  --numjobs "$jobs" --size "$SIZE" --runtime "${RUNTIME}s" --allow-destructive --no-tui --json "$OUT/dd.out.json"
profile fio "$OUT/fio.out.json" "$FIO" --name=cpu --filename="$FILE" --size="$SIZE" --rw="$rw" --bs="$bs" --iodepth="$qd" \
  --ioengine="$engine" --numjobs="$jobs" --group_reporting --direct=1 --runtime="$RUNTIME" --time_based \
  --output-format=json --output="$OUT/fio.out.json"

echo "$CASE, ${sample} s sampled in the middle of ${RUNTIME} s runs ($(nproc) CPUs, $(uname -r))"
python3 - "$OUT" "$rw" <<'PY'
import json, sys
out, rw = sys.argv[1], sys.argv[2].replace("rand", "")
dd = json.load(open(f"{out}/diskdash.json"))[rw]["iops"]
fio = json.load(open(f"{out}/fio.json"))["jobs"][0][rw]["iops"]
per = {}
for tool, iops in (("diskdash", dd), ("fio", fio)):
    rows = [l.split("\t") for l in open(f"{out}/{tool}.threads") if l.strip()]
    usr = sum(float(r[2]) for r in rows); sys_ = sum(float(r[3]) for r in rows)
    print(f"{tool}: {iops:,.0f} IOPS; {usr + sys_:.2f} CPUs busy (user {usr:.2f}, system {sys_:.2f}): "
          f"{(usr + sys_) / iops * 1e6:.2f} us per I/O (user {usr / iops * 1e6:.2f}, system {sys_ / iops * 1e6:.2f})")
    for name, n, u, s, wait, vol, invol in rows:
        print(f"  {name:<12} {n:>3} threads  user {float(u):5.2f}  system {float(s):5.2f}  run-queue wait {float(wait):5.2f} CPUs"
              f"  context switches {float(vol) / iops:.3f} voluntary, {float(invol) / iops:.4f} involuntary per I/O")
    per[tool] = ((usr + sys_) / iops, sys_ / iops)
# The kernel's part sets a floor: were diskdash's user time zero, its CPU per I/O would still
# be its system time per I/O; only doing less kernel work per I/O (fewer system calls, as with
# batching) goes under it.
print(f"ratio diskdash/fio CPU per I/O: {per['diskdash'][0] / per['fio'][0]:.3f}; with no user time at all "
      f"diskdash would be at {per['diskdash'][1] / per['fio'][0]:.3f} (its system time per I/O over fio's whole)")
PY
if [ -n "$PERF" ]; then
  for tool in diskdash fio; do
    [ -s "$OUT/$tool.perf" ] || continue
    echo "$tool: perf samples of its own threads by object, then symbols above $PERF_MIN%:"
    $PERF report -i "$OUT/$tool.perf" --stdio --no-children --sort dso -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -5
    $PERF report -i "$OUT/$tool.perf" --stdio --no-children --sort sym -g none --percent-limit "$PERF_MIN" 2>/dev/null \
      | grep -v '^#' | grep -v '^$' | head -30
  done
  if [ -s "$OUT/diskdash.perf" ] && [ -s "$OUT/fio.perf" ]; then
    # The same samples as time per I/O, symbol by symbol, the two tools side by side: samples
    # over the sampling rate over the I/Os of the sampled seconds (the run's mean rate). perf
    # lowers its rate when sampling costs too much (kernel.perf_event_max_sample_rate): the
    # figures then come out low for both tools alike.
    for tool in diskdash fio; do
      $PERF report -i "$OUT/$tool.perf" --stdio --no-children --sort sym -g none -n 2>/dev/null \
        | grep -v '^#' | grep -v '^$' >"$OUT/$tool.syms" || true
    done
    echo "ns per I/O by symbol, diskdash / fio / difference (the $PERF_ROWS largest differences):"
    python3 - "$OUT" "$rw" "$sample" "$PERF_HZ" "$PERF_ROWS" <<'PY'
import json, re, sys
out, rw, secs, hz, rows = sys.argv[1], sys.argv[2].replace("rand", ""), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
ios = {"diskdash": json.load(open(f"{out}/diskdash.json"))[rw]["iops"] * secs,
       "fio": json.load(open(f"{out}/fio.json"))["jobs"][0][rw]["iops"] * secs}
ns = {}
for tool in ios:
    for line in open(f"{out}/{tool}.syms"):
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\[.\])\s+(.*\S)", line)
        if m:
            # The same name in two objects is one row: its samples add up.
            row = ns.setdefault(f"{m.group(2)} {m.group(3)}", {})
            row[tool] = row.get(tool, 0) + int(m.group(1)) / hz / ios[tool] * 1e9
for mark, what in (("[k]", "kernel"), ("[.]", "user")):
    d, f = (sum(v.get(t, 0) for s, v in ns.items() if s.startswith(mark)) for t in ("diskdash", "fio"))
    print(f"  {what:<6} {d:7.0f} {f:7.0f} {d - f:+7.0f}")
for sym, v in sorted(ns.items(), key=lambda kv: -abs(kv[1].get("diskdash", 0) - kv[1].get("fio", 0)))[:rows]:
    d, f = v.get("diskdash", 0), v.get("fio", 0)
    print(f"  {d:7.0f} {f:7.0f} {d - f:+7.0f}  {sym[:72]}")
PY
  fi
fi
