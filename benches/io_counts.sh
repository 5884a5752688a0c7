#!/usr/bin/env bash
# What fio and diskdash ask of the disk for the same job, counted rather than timed: on a
# loaded machine a rate moves with the CPU the tool got, but the requests, their sizes and
# offsets, how many are in flight at the device and the system calls per I/O do not. Each run
# is traced (a tracefs instance of its own: block requests that fall in the job's file, and
# io_uring's rings and punts to its workers) and counted (`perf stat`: system calls, context
# switches, CPU), fio and diskdash alternated (fio first in odd pairs).
#
#   benches/io_counts.sh                      # randwrite, 3 pairs of 5 s
#   CASES="randwrite seq1m" PAIRS=2 benches/io_counts.sh
#
# Cases: randwrite  fio_fidelity.sh's job file: 4k random write, io_uring QD32, O_DIRECT,
#                   time-based, on a file fio wrote once (`diskdash fio` runs the job file)
#        seq1m      mark_compare.sh's SEQ1M Q8T1 read: fio's command line (iomem=shmhuge) and
#                   `diskdash mark --profile demo --mode read --loops 1 --iomem huge` (the
#                   profile of that one test), its warm-up and measurement both counted
# Per run it prints the tool's own rate, then: requests in the file and KiB per request,
# their flags (W, WS: sync; F: FUA), 4 KiB blocks touched and how often, the fraction
# starting where the previous one ended (sequential), the mean number in flight at the
# device (issue to completion) and from the block layer's queue, the device's latency,
# io_uring_enter calls and context switches per I/O, and CPU per I/O. Needs root (tracefs,
# perf) and perf.
#
# Environment: BENCH_DIR (default /var/tmp/diskdash-iocounts), PAIRS, RUNTIME (seconds), SIZE
# (randwrite's file, default 256M; seq1m's is 1G), CASES, FIO, DISKDASH (a built binary; else
# target/release/diskdash is built).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-3}
RUNTIME=${RUNTIME:-5}
SIZE=${SIZE:-256M}
CASES=${CASES:-randwrite}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-iocounts}
FIO=${FIO:-$(command -v fio || echo /work/shared/tools/fio-3.33-static)}
T=/sys/kernel/tracing
[ -d $T/instances ] || T=/sys/kernel/debug/tracing
[ "$(id -u)" = 0 ] && [ -d $T/instances ] || { echo "needs root and tracefs" >&2; exit 1; }
command -v perf >/dev/null || { echo "needs perf (linux-perf)" >&2; exit 1; }
if [ -n "${DISKDASH:-}" ]; then DD=$(realpath "$DISKDASH"); else cargo build --release --quiet; DD=$PWD/target/release/diskdash; fi
mkdir -p "$BENCH_DIR"
OUT=$BENCH_DIR/results
rm -rf "$OUT"; mkdir -p "$OUT"
INST=$T/instances/diskdash-iocounts-$$
HUGE=/proc/sys/vm/nr_hugepages
huge_before=$(cat $HUGE)
cleanup() { [ -d "$INST" ] && rmdir "$INST" 2>/dev/null; echo "$huge_before" > $HUGE; }
trap cleanup EXIT
mkdir "$INST"
echo 65536 > "$INST/buffer_size_kb"
for e in block/block_rq_issue block/block_rq_complete block/block_bio_queue io_uring/io_uring_create \
    io_uring/io_uring_queue_async_work; do
  echo 1 > "$INST/events/$e/enable"
done

fill() { # file size
  local want; want=$(numfmt --from=iec "$2")
  if [ ! -f "$1" ] || [ "$(stat -c %s "$1")" != "$want" ]; then
    rm -f "$1"
    "$FIO" --name=fill --filename="$1" --size="$2" --rw=write --bs=1M --direct=1 --ioengine=psync \
        --output=/dev/null
  fi
}

# One traced, counted run: NAME FILE CMD...
traced() {
  local name=$1 file=$2; shift 2
  sync
  python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)' "$file"
  filefrag -e -b512 "$file" >"$OUT/$name.extents"
  echo > "$INST/trace"
  echo 1 > "$INST/tracing_on"
  perf stat -x, -o "$OUT/$name.perf" -e raw_syscalls:sys_enter,syscalls:sys_enter_io_uring_enter \
      -e context-switches,task-clock -- "$@" >/dev/null 2>"$OUT/$name.err" || { cat "$OUT/$name.err" >&2; exit 1; }
  echo 0 > "$INST/tracing_on"
  cat "$INST/trace" >"$OUT/$name.trace"
  grep -q 'LOST\|lost' "$OUT/$name.trace" && echo "$name: the trace lost events" >&2
  echo > "$INST/trace"
}

for c in $CASES; do
  case $c in
    randwrite)
      FILE=$BENCH_DIR/data; fill "$FILE" "$SIZE"
      printf '[randwrite]\nfilename=%s\nsize=%s\nrw=randwrite\nbs=4k\niodepth=32\nioengine=io_uring\ndirect=1\nruntime=%s\ntime_based=1\n' \
          "$FILE" "$SIZE" "$RUNTIME" >"$OUT/randwrite.fio"
      run_fio() { traced "$c.fio.$1" "$FILE" "$FIO" --output-format=json --output="$OUT/$c.fio.$1.json" "$OUT/randwrite.fio"; }
      run_dd() { traced "$c.dd.$1" "$FILE" "$DD" fio --no-tui --allow-destructive --output-format=json \
          --output="$OUT/$c.dd.$1.json" "$OUT/randwrite.fio"; }
      ;;
    seq1m)
      FILE=$BENCH_DIR/mark.bin; fill "$FILE" 1G
      echo $((huge_before + 16)) > $HUGE
      run_fio() { traced "$c.fio.$1" "$FILE" "$FIO" --name=seq1m-q8t1-read --filename="$FILE" --size=1G \
          --rw=read --bs=1M --iodepth=8 --numjobs=1 --ioengine=io_uring --direct=1 --ramp_time="$RUNTIME" \
          --iomem=shmhuge --runtime="$RUNTIME" --time_based --output-format=json --output="$OUT/$c.fio.$1.json"; }
      run_dd() { traced "$c.dd.$1" "$FILE" "$DD" mark "$FILE" --profile demo --mode read --loops 1 --size 1G \
          --allow-destructive --iomem huge --runtime "${RUNTIME}s" --no-tui --json "$OUT/$c.dd.$1.json"; }
      ;;
    *) echo "unknown case $c" >&2; exit 2 ;;
  esac
  for p in $(seq 1 "$PAIRS"); do
    echo "$c: pair $p/$PAIRS" >&2
    if [ $((p % 2)) -eq 1 ]; then run_fio "$p"; run_dd "$p"; else run_dd "$p"; run_fio "$p"; fi
  done
done

python3 - "$OUT" "$PAIRS" "$CASES" <<'PY'
import bisect, collections, json, re, statistics, sys
out, pairs, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (block_\w+): (\d+),(\d+) (\S+) .*?(\d+) \+ (\d+)")

def extents(name):
    ext = []
    for line in open(f"{out}/{name}.extents"):
        m = re.match(r"\s*\d+:\s*\d+\.\.\s*\d+:\s*(\d+)\.\.\s*(\d+):", line)
        if m:
            ext.append((int(m.group(1)), int(m.group(2)) + 1))
    return sorted(ext)

def in_flight(events):
    """Mean number in flight over the span of (start, end) intervals."""
    points = sorted([(s, 1) for s, _ in events] + [(e, -1) for _, e in events])
    area, cur, last = 0.0, 0, None
    for t, d in points:
        if last is not None:
            area += cur * (t - last)
        cur += d; last = t
    span = points[-1][0] - points[0][0] if len(points) > 1 else 0
    return area / span if span else 0.0

def block_counts(name):
    ext = extents(name); starts = [e[0] for e in ext]
    def in_file(sec):
        i = bisect.bisect_right(starts, sec) - 1
        return i >= 0 and sec < ext[i][1]
    queued, issued, dev, blk = {}, {}, [], []
    flags, sizes, touched = collections.Counter(), collections.Counter(), collections.Counter()
    seq, prev_end, n_req = 0, None, 0
    for line in open(f"{out}/{name}.trace"):
        m = LINE.match(line)
        if not m or not in_file(int(m.group(8))) or int(m.group(9)) == 0:
            continue
        ev, rwbs, sec, n, ts = m.group(4), m.group(7), int(m.group(8)), int(m.group(9)), float(m.group(3))
        if ev == "block_bio_queue":
            queued[sec] = ts
        elif ev == "block_rq_issue":
            issued[sec] = ts; n_req += 1; flags[rwbs] += 1; sizes[n // 2] += 1
            seq += prev_end == sec; prev_end = sec + n
            for b in range(sec // 8, (sec + n) // 8):
                touched[b] += 1
        elif ev == "block_rq_complete" and sec in issued:
            dev.append((issued.pop(sec), ts))
            if sec in queued:
                blk.append((queued.pop(sec), ts))
    lat = sorted(e - s for s, e in dev)
    kib = sum(k * v for k, v in sizes.items()) / n_req if n_req else 0
    times = collections.Counter(min(v, 3) for v in touched.values())
    return {
        "requests": n_req, "kib": kib, "flags": "/".join(f"{k}:{v}" for k, v in flags.most_common(3)),
        "blocks": len(touched), "times": " ".join(f"{k}{'+' if k == 3 else ''}x:{v}" for k, v in sorted(times.items())),
        "seq": seq / n_req if n_req else 0, "dev_inflight": in_flight(dev), "blk_inflight": in_flight(blk),
        "dev_lat_us": statistics.mean(lat) * 1e6 if lat else 0, "dev_p50_us": lat[len(lat) // 2] * 1e6 if lat else 0,
    }

def perf(name):
    got = {}
    for line in open(f"{out}/{name}.perf"):
        f = line.split(",")
        if len(f) > 3 and f[0].replace(".", "").isdigit():
            got[f[2]] = float(f[0])
    return got

def rings(name):
    # The rings the run created, and the requests of those rings punted to io-wq workers
    # (another process's rings on the machine are left out).
    text = open(f"{out}/{name}.trace").read()
    created = dict(re.findall(r"io_uring_create: ring (\S+), .*?flags (0x[0-9a-f]+)", text))
    punted = re.findall(r"io_uring_queue_async_work: ring (\S+),", text)
    return sum(ring in created for ring in punted), ",".join(sorted(set(created.values())))

def rate(case, tool, p):
    doc = json.load(open(f"{out}/{case}.{tool}.{p}.json"))
    if case == "seq1m" and tool == "dd":
        s = [s for s in doc["segments"] if s["job"]["rw"] == "read" and s["job"]["bs"] == 1 << 20
             and s["job"]["iodepth"] == 8][0]
        return s["read"]["bw_bytes"] / 1e6, "MB/s", s["read"]["total_ios"]
    j = doc["jobs"][0]
    if case == "seq1m":
        return j["read"]["bw_bytes"] / 1e6, "MB/s", j["read"]["total_ios"] * 2  # ramp + measured
    return j["write"]["iops"], "IOPS", j["write"]["total_ios"]

for case in cases:
    print(f"\n{case}: {pairs} alternated pairs (fio first in odd pairs); counts in the job's file only")
    rows = []
    for p in range(1, pairs + 1):
        for tool in ("fio", "dd"):
            name = f"{case}.{tool}.{p}"
            b = block_counts(name)
            pf = perf(name); punts, flags = rings(name)
            r, unit, ios = rate(case, tool, p)
            ios = b["requests"] if case == "seq1m" else ios
            rows.append((tool, p, r, unit, b, pf, punts, flags, ios))
    for tool, p, r, unit, b, pf, punts, flags, ios in rows:
        who = "fio" if tool == "fio" else "diskdash"
        enter = pf.get("syscalls:sys_enter_io_uring_enter", 0)
        print(f"  {who:<8} pair {p}: {r:9.1f} {unit}; {b['requests']} requests of {b['kib']:.1f} KiB ({b['flags']}); "
              f"blocks {b['blocks']} ({b['times']}); sequential {b['seq']:.3f}")
        print(f"  {'':<8}         in flight at the device {b['dev_inflight']:.2f}, in the block layer {b['blk_inflight']:.2f}; "
              f"device latency mean {b['dev_lat_us']:.0f} us, p50 {b['dev_p50_us']:.0f} us; "
              f"io_uring_enter/I/O {enter / ios if ios else 0:.2f} (ring flags {flags}, {punts} punted); "
              f"cs/I/O {pf.get('context-switches', 0) / ios if ios else 0:.2f}; CPU us/I/O {pf.get('task-clock', 0) * 1e3 / ios if ios else 0:.1f}")
    for key, label in (("dev_inflight", "in flight at the device"), ("kib", "KiB per request"), ("dev_lat_us", "device latency us")):
        f = [b[key] for tool, _, _, _, b, *_ in rows if tool == "fio"]
        d = [b[key] for tool, _, _, _, b, *_ in rows if tool == "dd"]
        print(f"  median {label}: fio {statistics.median(f):.2f}, diskdash {statistics.median(d):.2f}")
    f = [r for tool, _, r, *_ in rows if tool == "fio"]; d = [r for tool, _, r, *_ in rows if tool == "dd"]
    ratios = [b / a for a, b in zip(f, d)]
    print(f"  rate diskdash/fio: median {statistics.median(ratios):.3f} ({', '.join(f'{x:.3f}' for x in ratios)})")
PY
