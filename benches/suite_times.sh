#!/usr/bin/env bash
# The integration suite's wall time and each test's own time: builds the two integration test
# binaries, runs them one after another as CI does (`it`, two tests per CPU, then `alone`, one
# test at a time; `--include-ignored`, as root for the tests that need it) with libtest's
# per-test timing, and prints each binary's wall time, the sum of the tests' times and the TOP
# slowest tests (default 30; `alone`'s named `alone: ...`). Everything after `--` goes to both
# test binaries (a filter, `--test-threads N`, `--skip NAME`); BINS=it (or alone) runs one.
#
#   benches/suite_times.sh                       # the suite as CI runs it
#   TOP=50 BINS=it benches/suite_times.sh -- --test-threads 3
#   DISKDASH_IDLE_WINDOW_MS=250 benches/suite_times.sh   # with each run's 250 ms idle baseline
#
# libtest's `--report-time` and `--format json` are unstable options: RUSTC_BOOTSTRAP=1 is set
# for the test binaries' runs only (it lets a stable libtest take them), never for the build.
# The test binaries run from the package root, as `cargo test` runs them. JSON=FILE keeps the
# raw event streams (FILE.it, FILE.alone).
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=${TOP:-30}
BINS=${BINS:-it alone}
[ "${1:-}" = "--" ] && shift

targets=()
for name in $BINS; do targets+=(--test "$name"); done
bins=$(cargo test "${targets[@]}" --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["name"], m["executable"])')

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
runs=()
status=0
for name in $BINS; do
  bin=$(awk -v n="$name" '$1 == n { print $2 }' <<<"$bins")
  [ -x "$bin" ] || { echo "no test binary $name (cargo test --test $name --no-run failed?)" >&2; exit 1; }
  events=${JSON:+$JSON.$name}
  events=${events:-$dir/$name}
  start=$(date +%s.%N)
  set +e
  CARGO_MANIFEST_DIR=$PWD RUSTC_BOOTSTRAP=1 "$bin" --include-ignored -Z unstable-options \
    --format json --report-time "$@" >"$events"
  code=$?
  set -e
  end=$(date +%s.%N)
  [ "$code" = 0 ] || status=$code
  runs+=("$name" "$events" "$start" "$end" "$code")
done

python3 - "$TOP" "${runs[@]}" <<'EOF'
import json, sys
top, runs = int(sys.argv[1]), sys.argv[2:]
tests, failed, walls = [], [], 0.0
for i in range(0, len(runs), 5):
    name, events, start, end, status = runs[i:i + 5]
    wall = float(end) - float(start)
    walls += wall
    mine, total = 0, 0.0
    prefix = "" if name == "it" else f"{name}: "
    for line in open(events):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("type") != "test" or e.get("event") not in ("ok", "failed"):
            continue
        t = float(e.get("exec_time", 0.0))
        tests.append((t, prefix + e["name"]))
        mine, total = mine + 1, total + t
        if e["event"] == "failed":
            failed.append(prefix + e["name"])
    print(f"{name}: wall {wall:.1f} s, {mine} tests run, their times summed {total:.1f} s "
          f"(exit {status})")
tests.sort(reverse=True)
print(f"wall {walls:.1f} s in all, {len(tests)} tests, {len(failed)} failed")
for name in failed:
    print(f"  FAILED {name}")
print(f"the {min(top, len(tests))} slowest:")
for t, name in tests[:top]:
    print(f"  {t:7.2f} s  {name}")
EOF
[ "$status" = 0 ]
