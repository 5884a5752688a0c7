#!/usr/bin/env bash
# Same job file, same numbers: each case is one fio job file, run unchanged by fio and by
# `diskdash fio`, alternated (fio first in odd pairs, diskdash first in even ones). For every
# job of every case it prints fio's and diskdash's IOPS and bandwidth (medians over the pairs),
# the ratio diskdash/fio, and PASS when the median ratio of both is within the tolerance:
# 10%, 20% for the buffered LSM case whose writers share the disk with its readers. Every run
# starts with the jobs' files out of the page cache (the tools' own binaries stay cached).
#
#   benches/fio_fidelity.sh                       # 3 pairs x 5 s per case
#   PAIRS=5 RUNTIME=10 CASES="lsm bssplit" benches/fio_fidelity.sh
#
# Cases: lsm        two buffered psync fdatasync=1 writers (128k, 256k) and two buffered random
#                   readers (128k, 256k), one file each, time-based
#        read1m     1M sequential read, io_uring QD8, O_DIRECT
#        read8m     8M sequential read, psync, O_DIRECT (the dd study)
#        libaio     4k random read, libaio QD64 x 16 jobs on a loop device over a file (root)
#        bssplit    random read, bssplit 4k/50:16k/20:64k/20:128k/10, io_uring QD16, O_DIRECT
#        verify     fio's basic verify job: a 4k randwrite with crc32c, then its verify reads
#        randread   4k random read, io_uring QD32, O_DIRECT
#        randwrite  4k random write, io_uring QD32, O_DIRECT
#
# Under each job a second line gives the median mean I/O size and mean latency of each tool,
# and the KiB per request the disk saw over each tool's runs (the whole case: every job):
# the same sizes at a longer latency is a slower device or machine, not a different job, and
# the same I/Os in smaller requests were split more (an O_DIRECT buffer over scattered pages).
# A third line gives each tool's CPU time per I/O (its process tree over its life) and the
# mean number of requests in flight at the disk beside the jobs' own (Little's law on the
# tool's report): where the disk holds under half of them, the I/Os wait on the CPU and the
# rates follow CPU per I/O; a failing job says so in a `why:` line. Counts to look at one run
# closer (requests, offsets, in flight, system calls per I/O): benches/io_counts.sh.
#
# Environment: BENCH_DIR (default /var/tmp/diskdash-fidelity), PAIRS, RUNTIME (seconds), SIZE
# (per file, default 256M), CASES, FIO (default fio on PATH, else the static fio 3.33), DISKDASH,
# SHARE (default cgroup: each run in one cpu cgroup, see benches/share.sh; session: as started).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-3}
RUNTIME=${RUNTIME:-5}
SIZE=${SIZE:-256M}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-fidelity}
CASES=${CASES:-"lsm read1m read8m libaio bssplit verify randread randwrite"}
FIO=${FIO:-$(command -v fio || echo /work/shared/tools/fio-3.33-static)}
command -v python3 >/dev/null || { echo "needs python3 to read the JSON results" >&2; exit 1; }

# DISKDASH: a diskdash binary to use as it is (default: build target/release/diskdash).
if [ -n "${DISKDASH:-}" ]; then DD=$(realpath "$DISKDASH"); else cargo build --release --quiet; DD=$PWD/target/release/diskdash; fi
mkdir -p "$BENCH_DIR"
OUT=$BENCH_DIR/results
rm -rf "$OUT"; mkdir -p "$OUT"
LOOP=""
. benches/share.sh
cleanup() { [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true; share_cleanup; }
trap cleanup EXIT

# The job file of a case, on stdout.
job() {
  local d=$BENCH_DIR
  case $1 in
    lsm) cat <<EOF
[global]
ioengine=psync
direct=0
size=$SIZE
runtime=$RUNTIME
time_based=1
[write128]
filename=$d/lsm-w128
rw=write
bs=128k
fdatasync=1
[randread128]
filename=$d/lsm-r128
rw=randread
bs=128k
[write256]
filename=$d/lsm-w256
rw=write
bs=256k
fdatasync=1
[randread256]
filename=$d/lsm-r256
rw=randread
bs=256k
EOF
    ;;
    read1m) printf '[read1m]\nfilename=%s/data\nsize=%s\nrw=read\nbs=1M\niodepth=8\nioengine=io_uring\ndirect=1\nruntime=%s\ntime_based=1\n' "$d" "$SIZE" "$RUNTIME" ;;
    read8m) printf '[read8m]\nfilename=%s/data\nsize=%s\nrw=read\nbs=8M\nioengine=psync\ndirect=1\nruntime=%s\ntime_based=1\n' "$d" "$SIZE" "$RUNTIME" ;;
    libaio) printf '[libaio]\nfilename=%s\nrw=randread\nbs=4k\nioengine=libaio\niodepth=64\nnumjobs=16\ngroup_reporting=1\ndirect=1\nruntime=%s\ntime_based=1\n' "$LOOP" "$RUNTIME" ;;
    bssplit) printf '[bssplit]\nfilename=%s/data\nsize=%s\nrw=randread\nbssplit=4k/50:16k/20:64k/20:128k/10\nioengine=io_uring\niodepth=16\ndirect=1\nruntime=%s\ntime_based=1\n' "$d" "$SIZE" "$RUNTIME" ;;
    verify) printf '[verify]\nfilename=%s/verify\nsize=64M\nrw=randwrite\nbs=4k\nverify=crc32c\nioengine=io_uring\niodepth=16\ndirect=1\n' "$d" ;;
    randread) printf '[randread]\nfilename=%s/data\nsize=%s\nrw=randread\nbs=4k\niodepth=32\nioengine=io_uring\ndirect=1\nruntime=%s\ntime_based=1\n' "$d" "$SIZE" "$RUNTIME" ;;
    randwrite) printf '[randwrite]\nfilename=%s/data\nsize=%s\nrw=randwrite\nbs=4k\niodepth=32\nioengine=io_uring\ndirect=1\nruntime=%s\ntime_based=1\n' "$d" "$SIZE" "$RUNTIME" ;;
    *) echo "unknown case $1" >&2; exit 2 ;;
  esac
}

# Files both tools read, written once by fio so that neither tool lays them out in its run
# (diskdash gets --allow-destructive: the files are this script's own, written by fio).
for f in data lsm-w128 lsm-r128 lsm-w256 lsm-r256; do
  want=$(numfmt --from=iec "$SIZE")
  if [ ! -f "$BENCH_DIR/$f" ] || [ "$(stat -c %s "$BENCH_DIR/$f")" != "$want" ]; then
    rm -f "$BENCH_DIR/$f"
    "$FIO" --name=fill --filename="$BENCH_DIR/$f" --size="$SIZE" --rw=write --bs=1M --direct=1 \
        --ioengine=psync --output=/dev/null
  fi
done
if [[ " $CASES " == *" libaio "* ]] && [ "$(id -u)" != 0 ]; then
  echo "the libaio case needs root (a loop device)" >&2; exit 1
fi

# The disk holding BENCH_DIR, as /proc/diskstats names it (a partition's disk counts there
# too; a loop device's I/O reaches it). Empty where there is none (tmpfs, overlay, NFS).
DEV=$(python3 - "$BENCH_DIR" <<'PY'
import os, sys
st = os.stat(sys.argv[1])
path = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
print(os.path.basename(os.path.realpath(path)) if os.path.exists(path) else "")
PY
)
# Requests completed (reads + writes), sectors moved, and the milliseconds requests spent in
# flight (weighted time in queue: its delta over the run's is the mean number in flight) on it
# so far, then the clock in ms ("0 0 0 ms" without a disk).
devstat() {
  awk -v d="$DEV" -v now="$(date +%s%3N)" '$3 == d { n++; printf "%.0f %.0f %.0f %s\n", $4 + $8, $6 + $10, $14, now }
      END { if (!n) print "0 0 0 " now }' /proc/diskstats
}
# CMD's CPU time, its whole process tree over its life (bash's `time`: user and system of the
# children waited for), in OUT.
timed() {
  local out=$1 TIMEFORMAT='%3U %3S' LC_ALL=C
  shift
  { time "$@" 2>&4 4>&-; } 4>&2 2>"$out"
}

for c in $CASES; do
  # The loop device exists only for its case: diskdash refuses to write a file that backs one.
  [ "$c" = libaio ] && LOOP=$(losetup -f --show --direct-io=on "$BENCH_DIR/data")
  job "$c" >"$OUT/$c.fio"
  for p in $(seq 1 "$PAIRS"); do
    echo "$c: pair $p/$PAIRS" >&2
    # Every run starts with the jobs' files out of the page cache, for both tools alike. Only
    # the files: dropping every cache (drop_caches) would make each run page its tool's binary
    # back in first, and the freed and refilled page lists change where the run's buffers land.
    cold() {
      sync
      python3 - "$BENCH_DIR" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        fd = os.open(os.path.join(root, name), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
PY
    }
    run_fio() {
      cold
      local before; before=$(devstat)
      timed "$OUT/$c.fio.$p.time" share "$FIO" --output-format=json --output="$OUT/$c.fio.$p.json" "$OUT/$c.fio" >/dev/null
      echo "$before $(devstat)" >"$OUT/$c.fio.$p.dev"
    }
    run_dd() {
      cold
      local before; before=$(devstat)
      timed "$OUT/$c.dd.$p.time" share "$DD" fio --no-tui --allow-destructive --output-format=json --output="$OUT/$c.dd.$p.json" "$OUT/$c.fio" \
          >/dev/null 2>"$OUT/$c.dd.$p.err"
      echo "$before $(devstat)" >"$OUT/$c.dd.$p.dev"
    }
    if [ $((p % 2)) -eq 1 ]; then run_fio; run_dd; else run_dd; run_fio; fi
  done
  if [ "$c" = libaio ]; then losetup -d "$LOOP"; LOOP=""; fi
done

python3 - "$OUT" "$PAIRS" "$CASES" <<'PY'
import json, statistics, sys
out, pairs, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()

def jobs(path):
    doc = json.load(open(path))
    return {j["jobname"]: j for j in doc["jobs"]}

def totals(job):
    r, w = job["read"], job["write"]
    return r["iops"] + w["iops"], r["bw_bytes"] + w["bw_bytes"]

def mean_kib(job):
    r, w = job["read"], job["write"]
    ios = r["total_ios"] + w["total_ios"]
    return (r["io_bytes"] + w["io_bytes"]) / ios / 1024 if ios else 0.0

def mean_lat_ms(job):
    # Completion-weighted over both directions.
    r, w = job["read"], job["write"]
    ios = r["total_ios"] + w["total_ios"]
    lat = r["lat_ns"]["mean"] * r["total_ios"] + w["lat_ns"]["mean"] * w["total_ios"]
    return lat / ios / 1e6 if ios else 0.0

def dev_fields(path):
    fields = open(path).read().split()
    return list(map(float, fields)) if len(fields) == 8 else None

def dev_kib(path):
    # KiB per request the disk completed over a run: I/Os the block layer merged or split
    # (a buffer's pages scattered in memory take more segments, so more requests).
    f = dev_fields(path)
    if not f:
        return float("nan")
    ios0, sec0, _, _, ios1, sec1, _, _ = f
    return (sec1 - sec0) / 2 / (ios1 - ios0) if ios1 > ios0 else float("nan")

def dev_in_flight(path):
    # The disk's mean number of requests in flight over the run (its weighted time in queue
    # over the run's time): far below the jobs' own, the disk waited on the machine.
    f = dev_fields(path)
    if not f or f[7] <= f[3]:
        return float("nan")
    return (f[6] - f[2]) / (f[7] - f[3])

def app_in_flight(run):
    # The jobs' own mean number in flight (Little's law: completions per second x mean latency).
    return sum((j["read"]["iops"] * j["read"]["lat_ns"]["mean"] + j["write"]["iops"] * j["write"]["lat_ns"]["mean"]) / 1e9
               for j in run.values())

def cpu_us_per_io(path, run):
    # CPU time of the tool's whole process tree over its life, per I/O of every job.
    try:
        user, system = map(float, open(path).read().split()[-2:])
    except (OSError, ValueError):
        return float("nan")
    ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in run.values())
    return (user + system) * 1e6 / ios if ios else float("nan")

failed = 0
print(f"{'case':<10} {'job':<13} {'fio IOPS':>10} {'dd IOPS':>10} {'ratio':>6} {'fio MiB/s':>10} {'dd MiB/s':>10} {'ratio':>6}  range (IOPS)  verdict")
for case in cases:
    tol = 0.20 if case == "lsm" else 0.10
    f = [jobs(f"{out}/{case}.fio.{p}.json") for p in range(1, pairs + 1)]
    d = [jobs(f"{out}/{case}.dd.{p}.json") for p in range(1, pairs + 1)]
    for name in f[0]:
        if any(name not in run for run in d):
            print(f"{case:<10} {name:<13} diskdash has no job of that name: FAIL"); failed += 1; continue
        fi = [totals(run[name]) for run in f]
        di = [totals(run[name]) for run in d]
        r_iops = [b[0] / a[0] for a, b in zip(fi, di) if a[0]]
        r_bw = [b[1] / a[1] for a, b in zip(fi, di) if a[1]]
        mi, mb = statistics.median(r_iops), statistics.median(r_bw)
        ok = abs(mi - 1) <= tol and abs(mb - 1) <= tol
        failed += not ok
        print(f"{case:<10} {name:<13} {statistics.median(a[0] for a in fi):>10.0f} {statistics.median(b[0] for b in di):>10.0f} {mi:>6.3f} "
              f"{statistics.median(a[1] for a in fi) / 2**20:>10.1f} {statistics.median(b[1] for b in di) / 2**20:>10.1f} {mb:>6.3f}  "
              f"{min(r_iops):.3f}-{max(r_iops):.3f}  {'PASS' if ok else 'FAIL'} (within {tol:.0%})")
        # Why, independent of the load: a different mean I/O size (what the jobs ask of the
        # device) or the same sizes taking longer each (the device or the machine was slower).
        fs, ds = [mean_kib(run[name]) for run in f], [mean_kib(run[name]) for run in d]
        fl, dl = [mean_lat_ms(run[name]) for run in f], [mean_lat_ms(run[name]) for run in d]
        fk = [dev_kib(f"{out}/{case}.fio.{p}.dev") for p in range(1, pairs + 1)]
        dk = [dev_kib(f"{out}/{case}.dd.{p}.dev") for p in range(1, pairs + 1)]
        fkm, dkm = statistics.median(fk), statistics.median(dk)
        print(f"{'':<24} mean I/O KiB fio {statistics.median(fs):.2f} diskdash {statistics.median(ds):.2f}; "
              f"mean latency ms fio {statistics.median(fl):.3f} diskdash {statistics.median(dl):.3f}; "
              f"disk KiB/request fio {fkm:.0f} diskdash {dkm:.0f}")
        # Where the I/Os waited: the disk's mean in flight against the jobs' own, and the CPU
        # each tool spent per I/O (the case's every job together).
        fc = [cpu_us_per_io(f"{out}/{case}.fio.{p}.time", f[p - 1]) for p in range(1, pairs + 1)]
        dc = [cpu_us_per_io(f"{out}/{case}.dd.{p}.time", d[p - 1]) for p in range(1, pairs + 1)]
        fq = [dev_in_flight(f"{out}/{case}.fio.{p}.dev") for p in range(1, pairs + 1)]
        dq = [dev_in_flight(f"{out}/{case}.dd.{p}.dev") for p in range(1, pairs + 1)]
        fa, da = [app_in_flight(run) for run in f], [app_in_flight(run) for run in d]
        fcm, dcm = statistics.median(fc), statistics.median(dc)
        fqm, dqm, fam, dam = (statistics.median(x) for x in (fq, dq, fa, da))
        print(f"{'':<24} CPU us per I/O fio {fcm:.2f} diskdash {dcm:.2f} (ratio {dcm / fcm:.3f}); "
              f"in flight, the disk / the jobs: fio {fqm:.1f} / {fam:.1f}, diskdash {dqm:.1f} / {dam:.1f}")
        # The same I/O sizes reaching the disk as requests of another size: split or merged
        # differently below the tools (for O_DIRECT, by where the buffer's pages lie).
        same_sizes = abs(statistics.median(ds) / statistics.median(fs) - 1) < 0.02
        if not ok and fkm > 0 and dkm > 0 and abs(dkm / fkm - 1) > 0.15 and same_sizes:
            print(f"{'':<24} why: the same I/Os reached the disk as requests of {dkm:.0f} KiB against fio's "
                  f"{fkm:.0f}: more segments per I/O, the buffer's 4 KiB pages less often adjacent in memory")
        # The same requests, but the disk held under half of what the jobs kept in flight: the
        # I/Os waited on the CPU (submitting, completing, the tool's own work), so the tool
        # with the lower CPU per I/O runs faster: the machine's limit, not the disk's.
        elif not ok and same_sizes and fkm > 0 and abs(dkm / fkm - 1) <= 0.15 \
                and fqm < fam / 2 and dqm < dam / 2 and (mi - 1) * (fcm - dcm) > 0:
            print(f"{'':<24} why: the same requests ({dkm:.0f} KiB); the disk held {fqm:.1f} and {dqm:.1f} of the "
                  f"jobs' {fam:.0f} and {dam:.0f} in flight: bound by the CPU, not the disk, and "
                  f"{'diskdash' if dcm < fcm else 'fio'} spends less per I/O ({dcm / fcm:.2f}x fio's)")
print(f"\n{failed} job(s) outside the tolerance")
PY
