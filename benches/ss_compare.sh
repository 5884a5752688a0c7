#!/usr/bin/env bash
# Steady state: diskdash fio against fio on the same job file, alternated (fio first in odd
# pairs, diskdash first in even ones). Each run stops when its criterion holds over ss_dur (or
# at runtime). Prints per run whether it attained, when (seconds of measured time), and per
# pair the difference, against the issue's bar: diskdash attains within one ss_dur of fio.
#
# When: fio's from its JSON (`steadystate.attained`, and the job's runtime: fio stops the job on
# the check that attains it); diskdash's from its record (`steadystate.attained_at_ns`, the end
# of the sample that attained it) and the segment's measured time.
#
#   benches/ss_compare.sh                        # 3 pairs per case, ss_dur=10, runtime cap 60 s
#   PAIRS=5 SS_DUR=20 CASES=read benches/ss_compare.sh
#
# Cases: read   randread 4k QD8 io_uring, ss=READ_SS (iops:10%)
#        write  randwrite 4k QD8 io_uring, ss=WRITE_SS (bw_slope:2%)
# Both: direct=1, time_based, runtime=RUNTIME, one preconditioned SIZE file.
#
# Environment: BENCH_DIR (default /var/tmp/diskdash-bench-ss), PAIRS, SS_DUR (seconds),
# RUNTIME (seconds), SIZE, CASES, READ_SS, WRITE_SS, DISKDASH (a built diskdash to use as it
# is; default: cargo build --release).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PAIRS=${PAIRS:-3}
SS_DUR=${SS_DUR:-10}
RUNTIME=${RUNTIME:-60}
SIZE=${SIZE:-256M}
BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench-ss}
CASES=${CASES:-"read write"}
READ_SS=${READ_SS:-iops:10%}
WRITE_SS=${WRITE_SS:-bw_slope:2%}

if ! command -v fio >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
fi
command -v python3 >/dev/null || { echo "needs python3 to read the JSON results" >&2; exit 1; }

if [ -n "${DISKDASH:-}" ]; then DD=$(realpath "$DISKDASH"); else cargo build --release --quiet; DD=$PWD/target/release/diskdash; fi
mkdir -p "$BENCH_DIR"
OUT=$BENCH_DIR/results
rm -rf "$OUT"; mkdir -p "$OUT"
echo "$(fio --version), diskdash $(git rev-parse --short HEAD), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"

# One file, written once with O_DIRECT; both tools use it.
DATA=$BENCH_DIR/ss.bin
want=$(numfmt --from=iec "$SIZE")
if [ ! -f "$DATA" ] || [ "$(stat -c %s "$DATA")" != "$want" ]; then
  echo "preconditioning $DATA ($SIZE)"
  rm -f "$DATA"
  fio --name=fill --filename="$DATA" --size="$SIZE" --rw=write --bs=1M --direct=1 \
      --ioengine=psync --output=/dev/null
fi

job_file() { # case -> the job file both tools run
  local rw ss
  case $1 in
    read) rw=randread; ss=$READ_SS ;;
    write) rw=randwrite; ss=$WRITE_SS ;;
  esac
  cat <<EOF
[global]
ioengine=io_uring
direct=1
time_based
runtime=$RUNTIME
size=$SIZE
filename=$DATA
bs=4k
iodepth=8

[ss-$1]
rw=$rw
steadystate=$ss
steadystate_duration=$SS_DUR
EOF
}

run_fio() { fio --output-format=json --output="$2" "$1" >/dev/null; }
run_dd() { "$DD" fio "$1" --no-tui --allow-destructive --json "$2" >/dev/null 2>&1; }

for name in $CASES; do
  job=$OUT/$name.fio
  job_file "$name" > "$job"
  for pair in $(seq 1 "$PAIRS"); do
    if [ $((pair % 2)) = 1 ]; then order="fio dd"; else order="dd fio"; fi
    for tool in $order; do
      if [ "$tool" = fio ]; then run_fio "$job" "$OUT/$name-$pair-fio.json"
      else run_dd "$job" "$OUT/$name-$pair-dd.json"; fi
    done
    echo "$pair $order" >> "$OUT/$name.order"
  done
done

python3 - "$OUT" "$SS_DUR" "$RUNTIME" $CASES <<'PY'
import json, statistics, sys
out, ss_dur, runtime, cases = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]

def fio_run(path):
    job = json.load(open(path))["jobs"][0]
    ss = job["steadystate"]
    return ss["attained"] == 1, job["job_runtime"] / 1000.0, ss["criterion"]

def dd_run(path):
    rec = json.load(open(path))
    seg = rec["segments"][0]
    ss = seg["jobs"][0]["steadystate"]
    at = ss["attained_at_ns"]
    return ss["attained"] == 1, (at / 1e9 if at is not None else seg["elapsed_ns"] / 1e9), \
        ss["criterion"], seg["elapsed_ns"] / 1e9

print(f"ss_dur {ss_dur:.0f} s, runtime cap {runtime} s; times are seconds of measured time")
print(f"{'case':6} {'pair':>4} {'first':5} {'fio':>12} {'diskdash':>12} {'dd-fio':>7}  within ss_dur")
verdict = []
for case in cases:
    orders = {int(l.split()[0]): l.split()[1] for l in open(f"{out}/{case}.order")}
    diffs = []
    for pair in sorted(orders):
        fa, ft, fc = fio_run(f"{out}/{case}-{pair}-fio.json")
        da, dt, dc, de = dd_run(f"{out}/{case}-{pair}-dd.json")
        show = lambda a, t: f"{t:6.1f} {'yes' if a else 'NO ':3}"
        if fa and da:
            d = dt - ft
            diffs.append(d)
            ok = "yes" if abs(d) <= ss_dur else "NO"
            dtext = f"{d:+7.1f}"
        else:
            ok, dtext = ("both not attained" if not fa and not da else "only one attained"), "      -"
        print(f"{case:6} {pair:4} {'fio' if orders[pair] == 'fio' else 'dd':5} {show(fa, ft):>12} "
              f"{show(da, dt):>12} {dtext}  {ok}   (criterion fio {fc}, diskdash {dc}; "
              f"diskdash stopped at {de:.1f})")
    if diffs:
        print(f"{case:6} median dd-fio {statistics.median(diffs):+.1f} s, range "
              f"{min(diffs):+.1f} .. {max(diffs):+.1f} s over {len(diffs)} pairs")
PY
