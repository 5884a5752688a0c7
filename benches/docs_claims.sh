#!/usr/bin/env bash
# The docs' present-tense performance claims, re-measured: each claim as README.md or
# assets/doc/*.md states it, the command that measures it (an existing bench script or cargo
# bench, at short settings), and the new figure beside it. The dated logs of
# assets/doc/performance.md (each names its build, command and machine) are not re-run: they
# say what was measured then, not what holds now.
#
#   benches/docs_claims.sh                    # every claim: 15-30 min on the 2-core VM (cargo bench builds included)
#   CLAIMS="render serve" benches/docs_claims.sh
#
# Short settings (a pair or two, seconds per run) make each figure one sample of the claim, not
# a verdict on it: a figure outside the claim is a reason to rerun its command at the doc's own
# settings (given beside it), on an idle machine, before changing the doc.
#
# Environment: DISKDASH/BIN (a built diskdash; default: cargo build --release), BENCH_DIR
# (default /var/tmp/diskdash-bench), CLAIMS (space-separated names from the list below; default
# all), DOCS_OUT (where each command's whole output goes; default $BENCH_DIR/docs-claims).
# Root for the fidelity (a loop device), mark and iostat claims; fio, perf, tmux, sysstat and
# prometheus-node-exporter where their claims need them.
#
# Claims: fidelity cpu null cpu_where libaio registered render idle headless tick iostat
#         scrape serve noise mark
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

BENCH_DIR=${BENCH_DIR:-/var/tmp/diskdash-bench}
DOCS_OUT=${DOCS_OUT:-$BENCH_DIR/docs-claims}
CLAIMS=${CLAIMS:-fidelity cpu null cpu_where libaio registered render idle headless tick iostat scrape serve noise mark}
mkdir -p "$DOCS_OUT"
if [ -z "${DISKDASH:-${BIN:-}}" ]; then
  cargo build --release --quiet || exit 1
fi
DISKDASH=${DISKDASH:-${BIN:-$PWD/target/release/diskdash}}
export DISKDASH BIN=$DISKDASH

want() { [[ " $CLAIMS " == *" $1 "* ]]; }

# claim NAME "DOC: CLAIM" "PATTERN" COMMAND...: runs COMMAND (its output in $DOCS_OUT/NAME.txt) and
# prints the claim, the command and the output's lines matching PATTERN (an ERE).
claim() {
  local name=$1 text=$2 pattern=$3
  shift 3
  want "$name" || return 0
  echo "== $name"
  echo "  claim:    $text"
  echo "  command:  $*"
  local start=$SECONDS
  if env "$@" >"$DOCS_OUT/$name.txt" 2>&1; then
    echo "  measured ($((SECONDS - start)) s):"
  else
    echo "  FAILED ($((SECONDS - start)) s, exit $?): the last lines of $DOCS_OUT/$name.txt:"
    tail -n 5 "$DOCS_OUT/$name.txt" | sed 's/^/    /'
  fi
  grep -E "$pattern" "$DOCS_OUT/$name.txt" | sed 's/^/    /'
  echo
}

claim fidelity \
  "README.md: fio's job files unchanged through both tools, 11 of 11 jobs within 10% of fio (20% for the buffered LSM file)" \
  "PASS|FAIL|within" \
  PAIRS=1 RUNTIME=3 SIZE=128M benches/fio_fidelity.sh

claim cpu \
  "README.md: on this 2-core VM diskdash's CPU per I/O is 0.70-0.83x fio's over the whole process tree (4k QD32 reads and writes, 1 to 4 workers)" \
  "diskdash/fio over|IOPS ratio|process tree  " \
  CASES="randread-4k-qd32 randwrite-4k-qd32" JOBS="1 2 4" EXTRAS=0 PAIRS=2 RUNTIME=3 SIZE=256M \
  benches/fio_compare.sh

claim null \
  "performance.md: the null engine is over 4x fio's rate at one and two workers" \
  "worker\(s\)" \
  CASES=randread-4k-qd32-j1 EXTRAS=null NULL_JOBS="1 2" PAIRS=2 RUNTIME=3 SIZE=256M \
  benches/fio_compare.sh

claim cpu_where \
  "README.md: diskdash's user time per I/O is half of fio's, its kernel time lower; at two workers its kernel time alone is about 0.75x of fio's whole CPU per I/O" \
  "IOPS;|^ratio diskdash/fio" \
  CASE=randread-4k-qd32-j2 RUNTIME=8 SIZE=256M PERF= benches/cpu_where.sh

claim libaio \
  "bench.md: libaio against fio 3.33 (4k randread QD32): IOPS 1.06x fio's at the median, CPU per I/O 0.90x" \
  "diskdash/fio over|IOPS ratio|CPU per I/O ratio" \
  CASES=randread-4k-qd32-libaio-j1 EXTRAS=0 PAIRS=2 RUNTIME=3 SIZE=256M benches/fio_compare.sh

# No bench script toggles registration: alternated bench runs with and without it.
registered() {
  local file=$DOCS_OUT/registered.bin
  [ -f "$file" ] || dd if=/dev/urandom of="$file" bs=1M count=256 status=none conv=fsync
  local job=(bench "$file" --no-tui --rw randread --bs 4k --iodepth 32 --ioengine io_uring --runtime 3s)
  local on=() off=()
  for pair in 1 2 3; do
    "$DISKDASH" "${job[@]}" --json "$DOCS_OUT/reg-on.json" >/dev/null 2>&1 || return 1
    "$DISKDASH" "${job[@]}" --fixedbufs=0 --registerfiles=0 --json "$DOCS_OUT/reg-off.json" >/dev/null 2>&1 || return 1
    on+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["read"]["iops"])' "$DOCS_OUT/reg-on.json")")
    off+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["read"]["iops"])' "$DOCS_OUT/reg-off.json")")
    echo "pair $pair: registered ${on[-1]} IOPS, unregistered ${off[-1]} IOPS"
  done
  python3 -c 'import sys, statistics as s; n = len(sys.argv) // 2; a = [float(x) for x in sys.argv[1:n + 1]]; b = [float(x) for x in sys.argv[n + 1:]]
r = sorted(x / y - 1 for x, y in zip(a, b)); print("registered over unregistered IOPS: median %+.1f%% (range %+.1f%%..%+.1f%%)" % (100 * s.median(r), 100 * r[0], 100 * r[-1]))' "${on[@]}" "${off[@]}"
}
export -f registered
export DOCS_OUT DISKDASH
claim registered \
  "fio.md: registered buffers and file give 11-16% more 4k IOPS on this 2-core VM" \
  "registered" \
  bash -c registered

claim render \
  "dashboard.md: a 160x50 frame renders in < 2 ms (0.41 ms median on a quiet machine)" \
  "^[a-z].*|time:" \
  cargo bench --bench render -- --warm-up-time 1 --measurement-time 3

claim idle \
  "dashboard.md: the idle monitor dashboard (1 s) uses < 1% of a core, no more than iostat -x 1 (ratio median 0.90)" \
  "% of one core|ratio" \
  ROUNDS=1 DURATION=20 benches/render-idle-cpu.sh

claim headless \
  "dashboard.md: benchmark IOPS with the dashboard within 3% of headless (ratio median 0.990)" \
  "dashboard / headless|^pair" \
  PAIRS=2 RUNTIME=5s benches/render-vs-headless.sh

claim tick \
  "monitor.md: one monitor tick over 10,000 devices costs 3.9-5.4 ms of CPU (budget 20 ms); the reader 2.6 ms against procfs's 4.3 ms" \
  "^[a-z].*|time:" \
  cargo bench --bench iostat_tick -- --warm-up-time 1 --measurement-time 3

claim iostat \
  "monitor.md: parity with sysstat within 0.1% (rates, sizes); CPU watching the disks 1.33-1.81x sysstat's (re-measured 2026-11-29)" \
  "^column|  (ok|OK|FAIL|fail)|CPU ratio" \
  ROUNDS=1 PARITY_SECONDS=10 CPU_SECONDS=10 benches/iostat_compare.sh "$BENCH_DIR"

claim scrape \
  "serve.md: a scrape of 100 disks costs 0.28 ms of CPU (OpenMetrics) and 0.33 ms (text); with a run of four jobs 0.61 ms" \
  "^[a-z].*|time:" \
  cargo bench --bench serve_scrape -- --warm-up-time 1 --measurement-time 3

claim serve \
  "serve.md: diskdash serve's CPU per scrape of 100 disks 0.04x node_exporter's (0.34 against 9.33 ms); idle 0 ticks" \
  "^idle|^CPU per scrape|^scrape CPU ratio" \
  ROUNDS=1 DURATION=10 SCRAPES=300 benches/serve-cpu.sh

claim noise \
  "record.md: the same job 10 times in pairs gave no change within noise 9 of 10; 80% of the rate was called worse 10 of 10" \
  "^same job|^80% rate" \
  PAIRS=3 RUNTIME=3 benches/compare_noise.sh

claim mark \
  "mark.md: mark's SEQ1M Q8T1 read agrees with fio's within 3% at the median" \
  "ratio|per 1 MiB" \
  PAIRS=2 benches/mark_compare.sh
