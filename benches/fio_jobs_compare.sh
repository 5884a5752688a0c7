#!/usr/bin/env bash
# diskdash fio against fio on the same job file: four jobs at once, each on its own
# preconditioned file, alternated (fio first in odd pairs, diskdash first in even ones).
# Prints per case the ratio diskdash/fio of aggregate IOPS (reads + writes summed over the
# jobs) and of CPU time per I/O (median and range over pairs), the raw medians, and how each
# tool's completed I/Os compare with the device's /proc/diskstats count.
#
# CPU time is measured the same way for both tools, from outside: each tool runs under a small
# python3 wrapper that reads getrusage(RUSAGE_CHILDREN) (user + system of the whole process
# and every child it waited for: fio's job processes, diskdash's threads) after it exits.
# I/Os come from fio's own JSON report and from diskdash's run record (--json), not from
# diskdash's fio-shaped report.
#
#   benches/fio_jobs_compare.sh                  # 3 pairs x 10 s per case, 256 MiB per job
#   PAIRS=5 RUNTIME=30 SIZE=1G CASES=lsm benches/fio_jobs_compare.sh
#
# Cases: mix  randread 4k QD16 io_uring | randread 4k QD1 psync | randwrite 4k QD8 io_uring |
#             read 128k QD4 io_uring
#        lsm  the LSM store shape: psync, fdatasync=1, write 128k | randread 128k |
#             write 256k | randread 256k
# Both cases: direct=1, time_based, runtime=RUNTIME, size=SIZE per job.
#
# Environment: BENCH_DIR (default /var/tmp/diskdash-bench-jobs), PAIRS, RUNTIME (seconds),
# SIZE (per job file), CASES (space-separated names to run), DISKDASH (a built diskdash to use
# as it is; default: cargo build --release).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-3}
RUNTIME=${RUNTIME:-10}
SIZE=${SIZE:-256M}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench-jobs}
CASES=${CASES:-"mix lsm"}

if ! command -v fio >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
fi
command -v python3 >/dev/null || { echo "needs python3 to measure CPU and read the JSON results" >&2; exit 1; }

if [ -n "${DISKDASH:-}" ]; then DD=$(realpath "$DISKDASH"); else cargo build --release --quiet; DD=$PWD/target/release/diskdash; fi
mkdir -p "$BENCH_DIR"
OUT=$BENCH_DIR/results
rm -rf "$OUT"; mkdir -p "$OUT"
echo "$(fio --version), diskdash $(git rev-parse --short HEAD), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"

# The device the files live on, as named in /proc/diskstats.
DEV=$(python3 - "$BENCH_DIR" <<'PY'
import os, sys
st = os.stat(sys.argv[1])
path = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
print(os.path.basename(os.path.realpath(path)) if os.path.exists(path) else "")
PY
)

# Four files, one per job, written once, sequentially, with O_DIRECT; both tools and both
# cases use the same four.
want=$(numfmt --from=iec "$SIZE")
for i in 1 2 3 4; do
  f=$BENCH_DIR/job$i.bin
  if [ ! -f "$f" ] || [ "$(stat -c %s "$f")" != "$want" ]; then
    echo "preconditioning $f ($SIZE)"
    rm -f "$f"
    fio --name=fill --filename="$f" --size="$SIZE" --rw=write --bs=1M --direct=1 \
        --ioengine=psync --output=/dev/null
  fi
done

# Device I/Os completed (reads + writes) now, from /proc/diskstats.
dev_ios() { awk -v d="$DEV" '$3 == d { print $4 + $8 }' /proc/diskstats; }

# case name -> its four jobs, one a line: "name rw bs iodepth ioengine"
jobs_of() {
  case $1 in
    mix) printf '%s\n' \
      "randread-4k-qd16 randread 4k 16 io_uring" \
      "randread-4k-qd1-psync randread 4k 1 psync" \
      "randwrite-4k-qd8 randwrite 4k 8 io_uring" \
      "read-128k-qd4 read 128k 4 io_uring" ;;
    lsm) printf '%s\n' \
      "write128 write 128k 1 psync" \
      "randread128 randread 128k 1 psync" \
      "write256 write 256k 1 psync" \
      "randread256 randread 256k 1 psync" ;;
    *) echo "unknown case $1" >&2; exit 1 ;;
  esac
}

# The job file both tools run.
job_file() { # case
  printf '[global]\ndirect=1\ntime_based=1\nruntime=%s\nsize=%s\nrandrepeat=0\n' "$RUNTIME" "$SIZE"
  [ "$1" = lsm ] && printf 'fdatasync=1\nthread=1\n'
  local i=0 name rw bs qd engine
  while read -r name rw bs qd engine; do
    i=$((i + 1))
    printf '\n[%s]\nfilename=%s\nrw=%s\nbs=%s\niodepth=%s\nioengine=%s\n' \
      "$name" "$BENCH_DIR/job$i.bin" "$rw" "$bs" "$qd" "$engine"
  done < <(jobs_of "$1")
}

# Runs a command, then writes "user_s system_s" of it and all its waited-for children.
rusage() { # out_file command...
  python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{r.ru_utime} {r.ru_stime}\n")
sys.exit(rc)' "$@"
}

run_fio() { # case pair
  local before after
  before=$(dev_ios)
  rusage "$OUT/$1.fio.$2.cpu" fio --output-format=json --output="$OUT/$1.fio.$2.json" "$OUT/$1.fio"
  after=$(dev_ios)
  echo $((after - before)) >"$OUT/$1.fio.$2.dev"
}

run_dd() { # case pair
  local before after
  before=$(dev_ios)
  if ! rusage "$OUT/$1.dd.$2.cpu" "$DD" fio "$OUT/$1.fio" --allow-destructive --no-tui \
      --json "$OUT/$1.dd.$2.json" >"$OUT/$1.dd.$2.out" 2>"$OUT/$1.dd.$2.err"; then
    echo "diskdash fio failed on $1 (pair $2):" >&2
    cat "$OUT/$1.dd.$2.err" >&2
    exit 1
  fi
  after=$(dev_ios)
  echo $((after - before)) >"$OUT/$1.dd.$2.dev"
}

for c in $CASES; do
  job_file "$c" >"$OUT/$c.fio"
  "$DD" fio --parse-only "$OUT/$c.fio" >"$OUT/$c.plan" 2>&1 || {
    echo "diskdash fio --parse-only refused $OUT/$c.fio:" >&2; cat "$OUT/$c.plan" >&2; exit 1; }
  for p in $(seq 1 "$PAIRS"); do
    echo "$c: pair $p/$PAIRS (load $(cut -d' ' -f1 /proc/loadavg))"
    if [ $((p % 2)) -eq 1 ]; then run_fio "$c" "$p"; run_dd "$c" "$p"; else run_dd "$c" "$p"; run_fio "$c" "$p"; fi
  done
done

python3 - "$OUT" "$PAIRS" "$CASES" "$DEV" <<'PY'
import json, statistics, sys
out, pairs, cases, dev = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]

def cpu_s(path):
    u, s = open(path).read().split()
    return float(u) + float(s)

def fio(case, p):
    jobs = json.load(open(f"{out}/{case}.fio.{p}.json"))["jobs"]
    ios = sum(j[d]["total_ios"] for j in jobs for d in ("read", "write"))
    iops = sum(j[d]["iops"] for j in jobs for d in ("read", "write"))
    return dict(iops=iops, ios=ios, cpu_per_io=cpu_s(f"{out}/{case}.fio.{p}.cpu") / ios * 1e9,
                per_job={j["jobname"]: j["read"]["iops"] + j["write"]["iops"] for j in jobs},
                dev=int(open(f"{out}/{case}.fio.{p}.dev").read()))

def dd(case, p):
    seg = json.load(open(f"{out}/{case}.dd.{p}.json"))["segments"][0]
    jobs = seg["jobs"]
    ios = sum(j[d]["total_ios"] for j in jobs for d in ("read", "write"))
    iops = sum(j[d]["iops"] for j in jobs for d in ("read", "write"))
    cpu = cpu_s(f"{out}/{case}.dd.{p}.cpu")
    own = (seg["cpu"]["usr_ns"] + seg["cpu"]["sys_ns"]) / 1e9
    dev_window = None
    if seg.get("devices"):
        r = [d["reconciliation"] for d in seg["devices"] if d.get("reconciliation")]
        if r:
            dev_window = sum(x["device_read_ios"] + x["device_write_ios"] for x in r)
    return dict(iops=iops, ios=ios, cpu_per_io=cpu / ios * 1e9, own_share=own / cpu,
                per_job={j["name"]: j["read"]["iops"] + j["write"]["iops"] for j in jobs},
                dev=int(open(f"{out}/{case}.dd.{p}.dev").read()), dev_window=dev_window)

def rng(values, fmt):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"

def k(x):
    return f"{x/1e3:.1f}k" if x >= 1e3 else f"{x:.0f}"

rows = []
details = []
for case in cases:
    f = [fio(case, p) for p in range(1, pairs + 1)]
    d = [dd(case, p) for p in range(1, pairs + 1)]
    med = statistics.median
    rows.append((case, "aggregate IOPS", rng([b["iops"] / a["iops"] for a, b in zip(f, d)], "{:.3f}"),
                 k(med(a["iops"] for a in f)), k(med(b["iops"] for b in d))))
    rows.append((case, "CPU time per I/O", rng([b["cpu_per_io"] / a["cpu_per_io"] for a, b in zip(f, d)], "{:.3f}"),
                 f"{med(a['cpu_per_io'] for a in f)/1e3:.2f} us", f"{med(b['cpu_per_io'] for b in d)/1e3:.2f} us"))
    lines = [f"{case}: per pair, fio / diskdash"]
    lines.append("  aggregate IOPS         " + "  ".join(f"{a['iops']:.0f}/{b['iops']:.0f}" for a, b in zip(f, d)))
    lines.append("  CPU ns per I/O         " + "  ".join(f"{a['cpu_per_io']:.0f}/{b['cpu_per_io']:.0f}" for a, b in zip(f, d)))
    for name in f[0]["per_job"]:
        lines.append(f"  {name:<22} " + "  ".join(f"{a['per_job'][name]:.0f}/{b['per_job'].get(name, float('nan')):.0f}" for a, b in zip(f, d)))
    lines.append(f"  diskdash's own measured-window CPU / its rusage: {rng([b['own_share'] for b in d], '{:.3f}')}")
    if dev:
        lines.append(f"  device I/Os / app I/Os ({dev}, whole process): fio {rng([a['dev'] / a['ios'] for a in f], '{:.4f}')}, "
                     f"diskdash {rng([b['dev'] / b['ios'] for b in d], '{:.4f}')}")
        w = [b["dev_window"] / b["ios"] for b in d if b["dev_window"] is not None]
        if w:
            lines.append(f"  same, diskdash's measured window (its reconciliation): {rng(w, '{:.4f}')}")
    details.append("\n".join(lines))

print()
print(f"diskdash/fio over {pairs} alternated pairs: median (min-max); raw medians")
print()
print("| case | metric | diskdash/fio | fio | diskdash |")
print("| --- | --- | --- | --- | --- |")
for r in rows:
    print("| " + " | ".join(r) + " |")
print()
print("\n\n".join(details))
PY
