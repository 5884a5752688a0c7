#!/usr/bin/env bash
# diskdash bench against fio, side by side on the same preconditioned file and parameters,
# alternated (fio first in odd pairs, diskdash first in even ones). Prints per case the ratio
# diskdash/fio of IOPS or bandwidth, CPU time per I/O and mean latency (median and range), and
# how each tool's completed I/Os compare with the device's /proc/diskstats count. CPU per I/O
# twice: the job threads (fio's job processes, its usr_cpu + sys_cpu; diskdash's workers) and
# the whole process tree over its life (fio's main process and diskdash's session included).
# Then: the null engine's rate on one core, and RSS sampled over a long run.
#
#   benches/fio_compare.sh                      # 3 pairs x 10 s per case, 1 GiB file
#   PAIRS=5 RUNTIME=30 SIZE=4G MEM_RUNTIME=1h benches/fio_compare.sh
#
# Environment: BENCH_DIR (default /var/tmp/diskdash-bench), PAIRS, RUNTIME (seconds), SIZE,
# MEM_RUNTIME (diskdash duration, default 240s), MEM_INTERVAL (default 100ms), CASES (space-separated names to run),
# EXTRAS (what runs after the cases' table: any of "loop null session mem", default all; 0 or "": none),
# DISKDASH (a built diskdash binary: no cargo build), FIO (the fio binary, default fio from PATH),
# JOBS (worker counts each case runs at, e.g. "1 4 16 64").
# A case name is RW-BS-qdN[-ENGINE][-jN]: ENGINE io_uring (default), libaio, psync; -jN runs N workers
# (fio --numjobs=N --group_reporting; diskdash --numjobs N),
#   CASES="randread-4k-qd32-j1 randread-4k-qd64-j16 randwrite-4k-qd32-libaio-j4" benches/fio_compare.sh
# NULL_JOBS (default "1 2"): worker counts of the null-engine pairs; SESSION_JOBS (default "1 16 64"):
# worker counts of the session's own CPU per interval figure; SESSION_PACED (default 16, "" for
# none): the worker count also run paced at a tenth of its unpaced rate.
# BATCH="SUBMIT MIN MAX" (default: none, each tool's defaults, 1 1 1): both tools submit and reap
# in batches, fio's iodepth_batch_submit, iodepth_batch_complete_min and _max, e.g. "16 8 32";
# a case of lower depth runs them capped to it, as fio does.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-3}
RUNTIME=${RUNTIME:-10}
SIZE=${SIZE:-1G}
MEM_RUNTIME=${MEM_RUNTIME:-240s}
MEM_INTERVAL=${MEM_INTERVAL:-100ms}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
CASES=${CASES-"randread-4k-qd32 randread-4k-qd32-libaio randread-4k-qd1-psync read-1m-qd8 randwrite-4k-qd32"}
# JOBS="1 4 16 64": every case without its own -jN runs once per worker count.
if [ -n "${JOBS:-}" ]; then
  expanded=""
  for c in $CASES; do
    if [[ $c =~ -j[0-9]+$ ]]; then expanded+=" $c"; else for j in $JOBS; do expanded+=" $c-j$j"; done; fi
  done
  CASES=${expanded# }
fi
for c in $CASES; do # every name checked before anything runs
  [[ $c =~ ^(read|write|randread|randwrite)-[0-9]+[kKmM]?-qd[0-9]+(-(io_uring|libaio|psync))?(-j[0-9]+)?$ ]] || {
    echo "case $c: not RW-BS-qdN[-ENGINE][-jN] (e.g. randread-4k-qd32-libaio-j4)" >&2
    exit 2
  }
done
EXTRAS=${EXTRAS-"loop null session mem"}
[ "$EXTRAS" = 0 ] && EXTRAS=""
[ "$EXTRAS" = 1 ] && EXTRAS="loop null session mem" # the former EXTRAS=1: all
extra() { [[ " $EXTRAS " == *" $1 "* ]]; }

if [ -n "${BATCH:-}" ]; then
  [[ $BATCH =~ ^([0-9]+)\ ([0-9]+)\ ([0-9]+)$ ]] || { echo "BATCH=$BATCH: not \"SUBMIT MIN MAX\" (e.g. \"16 8 32\")" >&2; exit 2; }
  [ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[2]}" -ge 1 ] || { echo "BATCH=$BATCH: SUBMIT and MIN must be at least 1" >&2; exit 2; }
fi
# A case's batching, as fio runs it at the case's depth: submit and the completion minimum at
# most the depth, the maximum at least the minimum (diskdash refuses values above one depth).
batch_for() { # iodepth -> FIO_BATCH and DD_BATCH
  FIO_BATCH=() DD_BATCH=()
  [ -n "${BATCH:-}" ] || return 0
  local s min max
  read -r s min max <<<"$BATCH"
  s=$((s < $1 ? s : $1)) min=$((min < $1 ? min : $1))
  max=$((max > min ? max : min))
  FIO_BATCH=(--iodepth_batch_submit="$s" --iodepth_batch_complete_min="$min" --iodepth_batch_complete_max="$max")
  DD_BATCH=(--iodepth-batch "$s" --iodepth-batch-complete-min "$min" --iodepth-batch-complete "$max")
}
FIO=${FIO:-fio}
if ! command -v "$FIO" >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
fi
FIO=$(command -v "$FIO")
fio() { "$FIO" "$@"; }
command -v python3 >/dev/null || { echo "needs python3 to read the JSON results" >&2; exit 1; }

if [ -n "${DISKDASH:-}" ]; then
  DD=$(realpath "$DISKDASH")
else
  cargo build --release --quiet
  DD=$PWD/target/release/diskdash
fi
. benches/share.sh
trap share_cleanup EXIT
mkdir -p "$BENCH_DIR"
FILE=$BENCH_DIR/data.bin
OUT=$BENCH_DIR/results
rm -rf "$OUT"; mkdir -p "$OUT"

# The device the file lives on, as named in /proc/diskstats.
DEV=$(python3 - "$BENCH_DIR" <<'PY'
import os, sys
st = os.stat(sys.argv[1])
path = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
print(os.path.basename(os.path.realpath(path)) if os.path.exists(path) else "")
PY
)

# The same preconditioned file for both tools: written once, sequentially, with O_DIRECT.
want=$(numfmt --from=iec "$SIZE")
if [ ! -f "$FILE" ] || [ "$(stat -c %s "$FILE")" != "$want" ]; then
  echo "preconditioning $FILE ($SIZE)"
  rm -f "$FILE"
  fio --name=fill --filename="$FILE" --size="$SIZE" --rw=write --bs=1M --direct=1 \
      --ioengine=psync --output=/dev/null
fi

# Device I/Os completed (reads + writes) now, from /proc/diskstats.
dev_ios() { awk -v d="$DEV" '$3 == d { print $4 + $8 }' /proc/diskstats; }

# case name -> "rw bs iodepth engine numjobs"; a trailing -jN sets the worker count.
params() {
  local name=$1 jobs=1
  if [[ $name =~ ^(.*)-j([0-9]+)$ ]]; then name=${BASH_REMATCH[1]}; jobs=${BASH_REMATCH[2]}; fi
  echo "$(base_params "$name") $jobs"
}

# RW-BS-qdN[-ENGINE] -> "rw bs iodepth engine"
base_params() {
  if [[ $1 =~ ^(read|write|randread|randwrite)-([0-9]+[kKmM]?)-qd([0-9]+)(-(io_uring|libaio|psync))?$ ]]; then
    local bs=${BASH_REMATCH[2]}
    echo "${BASH_REMATCH[1]} ${bs^^} ${BASH_REMATCH[3]} ${BASH_REMATCH[5]:-io_uring}"
  else
    echo "case $1: not RW-BS-qdN[-ENGINE][-jN] (e.g. randread-4k-qd32-libaio-j4)" >&2
    exit 2
  fi
}

# timed FILE CMD...: runs CMD; FILE gets the user and system CPU seconds of its whole process
# tree over its life (bash's `time`: the rusage of the children waited for, fio's job
# processes included). CMD's own stderr goes where the caller's does.
timed() {
  local out=$1 TIMEFORMAT='%3U %3S' LC_ALL=C
  shift
  { time "$@" 2>&4 4>&-; } 4>&2 2>"$out"
}

run_fio() { # case pair
  read -r rw bs qd engine jobs <<<"$(params "$1")"
  batch_for "$qd"
  local before after
  before=$(dev_ios)
  timed "$OUT/$1.fio.$2.time" share "$FIO" --name="$1" --filename="$FILE" --size="$SIZE" --rw="$rw" --bs="$bs" --iodepth="$qd" \
      --ioengine="$engine" --numjobs="$jobs" --group_reporting --direct=1 --runtime="$RUNTIME" --time_based --randrepeat=0 \
      --output-format=json --output="$OUT/$1.fio.$2.json" "${FIO_BATCH[@]}"
  after=$(dev_ios)
  echo $((after - before)) >"$OUT/$1.fio.$2.dev"
}

run_dd() { # case pair
  read -r rw bs qd engine jobs <<<"$(params "$1")"
  batch_for "$qd"
  local before after
  before=$(dev_ios)
  timed "$OUT/$1.dd.$2.time" share "$DD" bench "$FILE" --rw "$rw" --bs "$bs" --iodepth "$qd" --ioengine "$engine" --numjobs "$jobs" \
      --size "$SIZE" --runtime "${RUNTIME}s" --allow-destructive --no-tui "${DD_BATCH[@]}" \
      --json "$OUT/$1.dd.$2.json" >/dev/null 2>"$OUT/$1.dd.$2.err"
  after=$(dev_ios)
  echo $((after - before)) >"$OUT/$1.dd.$2.dev"
}

for c in $CASES; do
  for p in $(seq 1 "$PAIRS"); do
    echo "$c: pair $p/$PAIRS"
    if [ $((p % 2)) -eq 1 ]; then run_fio "$c" "$p"; run_dd "$c" "$p"; else run_dd "$c" "$p"; run_fio "$c" "$p"; fi
  done
done

# CASES="" runs none: no table.
[ -z "$CASES" ] || python3 - "$OUT" "$PAIRS" "$CASES" "$DEV" <<'PY'
import json, re, statistics, sys
out, pairs, cases, dev = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]

def fio(case, p):
    job = json.load(open(f"{out}/{case}.fio.{p}.json"))["jobs"][0]
    d = job["read"] if job["read"]["total_ios"] else job["write"]
    ios = d["total_ios"]
    runtime_s = d["runtime"] / 1000
    # With group_reporting fio's usr_cpu and sys_cpu are the group's CPU time over the sum of
    # its jobs' runtimes (stat.c sums both): one job's share. The group used numjobs times it.
    jobs = int(case.rsplit("-j", 1)[1]) if re.search(r"-j[0-9]+$", case) else 1
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * runtime_s * jobs
    return dict(iops=d["iops"], bw=d["bw_bytes"], lat=d["lat_ns"]["mean"], cpu_per_io=cpu_s / ios * 1e9,
                tree_per_io=tree_cpu_ns(f"{out}/{case}.fio.{p}.time") / ios,
                ios=ios, dev=int(open(f"{out}/{case}.fio.{p}.dev").read()))

def tree_cpu_ns(path):
    usr, sys_ = open(path).read().split()[-2:]
    return (float(usr) + float(sys_)) * 1e9

def dd(case, p):
    rec = json.load(open(f"{out}/{case}.dd.{p}.json"))
    d = rec["read"] if rec["read"]["total_ios"] else rec["write"]
    ios = d["total_ios"]
    # The workers' threads, as fio's usr_cpu/sys_cpu count its job processes (the session's
    # thread is in the record's process-wide cpu, and in the tree's).
    cpu_ns = sum(j["cpu"]["usr_ns"] + j["cpu"]["sys_ns"] for s in rec["segments"] for j in s["jobs"])
    dev_window = None
    if rec["device"]:
        r = rec["device"]["reconciliation"]
        dev_window = r["device_read_ios"] + r["device_write_ios"]
    return dict(iops=d["iops"], bw=d["bw_bytes"], lat=d["lat_ns"]["mean"], cpu_per_io=cpu_ns / ios,
                tree_per_io=tree_cpu_ns(f"{out}/{case}.dd.{p}.time") / ios,
                ios=ios, dev=int(open(f"{out}/{case}.dd.{p}.dev").read()), dev_window=dev_window)

def show(label, values, fmt="{:.3f}"):
    med = statistics.median(values)
    print(f"  {label:<34} median {fmt.format(med)}  range {fmt.format(min(values))}-{fmt.format(max(values))}  ({', '.join(fmt.format(v) for v in values)})")

for case in cases:
    f = [fio(case, p) for p in range(1, pairs + 1)]
    d = [dd(case, p) for p in range(1, pairs + 1)]
    print(f"{case}: diskdash/fio over {pairs} alternated pairs")
    key = "iops" if re.match(r"[a-z]+-4k", case) else "bw"
    show(f"{'bandwidth' if key == 'bw' else 'IOPS'} ratio", [b[key] / a[key] for a, b in zip(f, d)])
    show("CPU per I/O ratio, job threads", [b["cpu_per_io"] / a["cpu_per_io"] for a, b in zip(f, d)])
    show("CPU per I/O ratio, process tree", [b["tree_per_io"] / a["tree_per_io"] for a, b in zip(f, d)])
    show("mean latency ratio (fio lat)", [b["lat"] / a["lat"] for a, b in zip(f, d)])
    print(f"  {'IOPS  fio / diskdash':<34} " + "  ".join(f"{a['iops']:.0f}/{b['iops']:.0f}" for a, b in zip(f, d)))
    print(f"  {'CPU ns per I/O  fio / diskdash':<34} " + "  ".join(f"{a['cpu_per_io']:.0f}/{b['cpu_per_io']:.0f}" for a, b in zip(f, d)))
    print(f"  {'  whole process tree, its life':<34} " + "  ".join(f"{a['tree_per_io']:.0f}/{b['tree_per_io']:.0f}" for a, b in zip(f, d)))
    print(f"  {'mean lat us  fio / diskdash':<34} " + "  ".join(f"{a['lat']/1e3:.0f}/{b['lat']/1e3:.0f}" for a, b in zip(f, d)))
    if dev:
        show(f"device I/Os / app I/Os (fio, {dev})", [a["dev"] / a["ios"] for a in f], "{:.4f}")
        show(f"device I/Os / app I/Os (diskdash)", [b["dev"] / b["ios"] for b in d], "{:.4f}")
        windows = [b["dev_window"] / b["ios"] for b in d if b["dev_window"] is not None]
        if windows:
            show("  same, diskdash's measured window", windows, "{:.4f}")
PY


# The disk under BENCH_DIR is shared with everything else on the machine, so its counters
# carry other I/O. A loop device over the same file (direct I/O to the backing file) sees only
# the benchmark: there the count must match.
if extra loop && [ "$(id -u)" = 0 ] && command -v losetup >/dev/null; then
  echo
  echo "reconciliation on a dedicated loop device over $FILE (randread 4k QD32, ${RUNTIME}s):"
  LOOP=$(losetup -f --show --direct-io=on "$FILE")
  trap 'losetup -d "$LOOP" 2>/dev/null || true; share_cleanup' EXIT
  L=$(basename "$LOOP")
  loop_ios() { awk -v d="$L" '$3 == d { print $4 + $8 }' /proc/diskstats; }
  b=$(loop_ios)
  fio --name=loop --filename="$LOOP" --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring \
      --direct=1 --runtime="$RUNTIME" --time_based --output-format=json --output="$OUT/loop.fio.json"
  a=$(loop_ios)
  echo $((a - b)) >"$OUT/loop.fio.dev"
  b=$(loop_ios)
  "$DD" bench "$LOOP" --size "$SIZE" --runtime "${RUNTIME}s" --no-tui --json "$OUT/loop.dd.json" >/dev/null 2>&1
  a=$(loop_ios)
  echo $((a - b)) >"$OUT/loop.dd.dev"
  losetup -d "$LOOP"; trap share_cleanup EXIT
  python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
f = json.load(open(f"{out}/loop.fio.json"))["jobs"][0]["read"]
d = json.load(open(f"{out}/loop.dd.json"))
fd, dd = int(open(f"{out}/loop.fio.dev").read()), int(open(f"{out}/loop.dd.dev").read())
rec = d["device"]["reconciliation"] if d["device"] else None
print(f"  fio:      {f['total_ios']} I/Os, device {fd}: ratio {fd / f['total_ios']:.4f}")
print(f"  diskdash: {d['read']['total_ios']} I/Os, device {dd} (whole process): ratio {dd / d['read']['total_ios']:.4f}")
if rec:
    print(f"  diskdash's own reconciliation over its measured window: app {rec['app_read_ios']}, device {rec['device_read_ios']} ({rec['verdict']})")
print(f"  mean latency diskdash/fio: {d['read']['lat_ns']['mean'] / f['lat_ns']['mean']:.3f} ({d['read']['lat_ns']['mean']/1e3:.0f} us / {f['lat_ns']['mean']/1e3:.0f} us)")
PY
fi

if extra null; then
echo
NULL_JOBS=${NULL_JOBS:-"1 2"}
echo "null engine, 4k randread QD32, diskdash/fio over $PAIRS alternated pairs of ${RUNTIME}s:"
for j in $NULL_JOBS; do
  for p in $(seq 1 "$PAIRS"); do
    fio_null() {
      fio --name=null --ioengine=null --size="$SIZE" --rw=randread --bs=4k --iodepth=32 \
          --numjobs="$j" --group_reporting --runtime="$RUNTIME" --time_based \
          --output-format=json --output="$OUT/null-j$j.fio.$p.json"
    }
    dd_null() {
      "$DD" bench "$BENCH_DIR" --ioengine null --rw randread --size "$SIZE" --iodepth 32 --numjobs "$j" \
          --runtime "${RUNTIME}s" --no-tui --json "$OUT/null-j$j.dd.$p.json" >/dev/null 2>&1
    }
    if [ $((p % 2)) -eq 1 ]; then fio_null; dd_null; else dd_null; fio_null; fi
  done
done
python3 - "$OUT" "$PAIRS" "$NULL_JOBS" <<'PY'
import json, statistics, sys
out, pairs, jobs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
for j in jobs:
    f = [json.load(open(f"{out}/null-j{j}.fio.{p}.json"))["jobs"][0]["read"]["iops"] for p in range(1, pairs + 1)]
    d = [json.load(open(f"{out}/null-j{j}.dd.{p}.json"))["read"]["iops"] for p in range(1, pairs + 1)]
    r = [b / a for a, b in zip(f, d)]
    print(f"  {j} worker(s): ratio median {statistics.median(r):.2f} range {min(r):.2f}-{max(r):.2f}; "
          f"M I/Os per second fio/diskdash " + "  ".join(f"{a/1e6:.2f}/{b/1e6:.2f}" for a, b in zip(f, d)))
PY
fi

# The session's own work (aggregator, sampler, status output: every thread but the bench-J-N
# workers) per interval, at several worker counts. It must not grow with the I/O rate.
if extra session; then
SESSION_JOBS=${SESSION_JOBS:-"1 16 64"}
SESSION_PACED=${SESSION_PACED-16}
# The sampler at nice -20 where it may (root): 64 spinning workers on 2 CPUs starved it at nice 0.
SAMPLER=(python3)
[ "$(id -u)" = 0 ] && SAMPLER=(nice -n -20 python3)
echo
echo "session CPU per 100ms interval (threads other than the bench-N workers; the session thread"
echo "alone in brackets), null engine 4k randread QD32, sampled over 4 s of 8 s runs:"
# NAME WORKERS [diskdash options...]: one run, sampled, printed as one line.
session_run() {
  local name=$1 j=$2
  shift 2
  "$DD" bench "$BENCH_DIR" --ioengine null --size 64M --numjobs "$j" --runtime 8s --interval 100ms \
      --no-tui --json "$OUT/$name.json" "$@" >/dev/null 2>"$OUT/$name.err" &
  local pid=$!
  sleep 1
  "${SAMPLER[@]}" - "$pid" "$j" "$OUT/$name" "$*" <<'PY'
import json, os, sys, time
pid, jobs, base, pace = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
tick = os.sysconf("SC_CLK_TCK")
def cpu_ns(t):
    # schedstat's run time is in ns; stat's utime + stime in clock ticks (10 ms) where it is absent.
    try:
        return int(open(f"/proc/{pid}/task/{t}/schedstat").read().split()[0])
    except (OSError, IndexError, ValueError):
        f = open(f"/proc/{pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) * 1_000_000_000 // tick
def sample():
    out = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        last = (open(base + ".err").read().strip().splitlines() or ["(nothing on stderr)"])[-1]
        print(f"  {jobs:>3} workers: the run ended before it was sampled: {last}")
        sys.exit()
    for t in tasks:
        try:
            comm = open(f"/proc/{pid}/task/{t}/comm").read().strip()
            out[t] = (comm, cpu_ns(t))
        except OSError:
            continue
    return out
a = sample(); t0 = time.monotonic()
time.sleep(4)
b = sample(); t1 = time.monotonic()
# Threads present at both samples only: one that ends in between takes its time with it.
both = a.keys() & b.keys()
delta = lambda keep: sum(b[t][1] - a[t][1] for t in both if keep(a[t][0]))
own = delta(lambda c: not c.startswith("bench-"))
session = delta(lambda c: c == "session")
work = delta(lambda c: c.startswith("bench-"))
intervals = (t1 - t0) / 0.1
while os.path.exists(f"/proc/{pid}"):
    time.sleep(0.1)
try:
    iops = json.load(open(base + ".json"))["read"]["iops"]
    rate = f"{iops / 1e6:.2f}M I/Os per second"
except (OSError, ValueError, KeyError):
    rate = "no record"
label = f"{jobs:>3} workers" + (f" {pace}" if pace else "")
print(f"  {label}: session {own / 1e6 / intervals:.2f} ms CPU per interval "
      f"[{session / 1e6 / intervals:.2f}], workers {work / 1e9 / (t1 - t0):.2f} CPUs busy, {rate}")
PY
  wait "$pid" || true
}
for j in $SESSION_JOBS; do
  session_run "session-j$j" "$j"
done
# The same workers at a tenth of their rate: the session's cost per interval must not follow it.
if [ -n "$SESSION_PACED" ]; then
  j=$SESSION_PACED
  [ -f "$OUT/session-j$j.json" ] || session_run "session-j$j" "$j"
  per_worker=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["read"]["iops"]
print(max(1, int(r / int(sys.argv[2]) / 10)))' "$OUT/session-j$j.json" "$j" 2>/dev/null || true)
  if [ -n "$per_worker" ]; then
    session_run "session-j$j-paced" "$j" --rate-iops "$per_worker"
  else
    echo "  $j workers paced: no unpaced record to take the rate from"
  fi
fi
fi

extra mem || exit 0
echo
# At a 100 ms interval the bounded buffers (600-point live series and device history, the
# record's 1024-point series) fill ten times sooner than at the default 1 s: this run reaches
# the steady state a 1-hour run at 1 s reaches after its first 10 minutes.
echo "memory: RSS of a $MEM_RUNTIME randread run at a $MEM_INTERVAL interval, sampled every second:"
"$DD" bench "$FILE" --size "$SIZE" --runtime "$MEM_RUNTIME" --interval "$MEM_INTERVAL" --no-tui \
    --json "$OUT/mem.json" >/dev/null 2>&1 &
pid=$!
: >"$OUT/rss.txt"
while kill -0 "$pid" 2>/dev/null; do
  awk '/VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null >>"$OUT/rss.txt" || true
  sleep 1
done
wait "$pid" || true
python3 - "$OUT/rss.txt" <<'PY'
import sys
rss = [int(x) for x in open(sys.argv[1]) if x.strip()]
if len(rss) < 10:
    print("  too few samples"); sys.exit()
warm = rss[5:]
half = len(warm) // 2
first, second = warm[:half], warm[half:]
print(f"  {len(rss)} samples; after 5 s: first {warm[0]} KiB, last {warm[-1]} KiB, max {max(warm)} KiB")
print(f"  mean first half {sum(first)/len(first):.0f} KiB, second half {sum(second)/len(second):.0f} KiB; "
      f"second half grew {(second[-1]-second[0])/max(1,len(second)-1)*60:.1f} KiB/min")
PY
