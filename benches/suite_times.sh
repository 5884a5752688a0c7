#!/usr/bin/env bash
# The integration suite's wall time and each test's own time: builds the `it` test binary, runs
# it once as CI does (`--include-ignored`; as root for the tests that need it) with libtest's
# per-test timing, and prints the whole run's wall time, the sum of the tests' times and the
# TOP slowest tests (default 30). Everything after `--` goes to the test binary (a filter,
# `--test-threads N`, `--skip NAME`).
#
#   benches/suite_times.sh                       # the suite as CI runs it
#   TOP=50 benches/suite_times.sh -- --test-threads 3
#   DISKDASH_IDLE_WINDOW_MS=250 benches/suite_times.sh   # with each run's 250 ms idle baseline
#
# libtest's `--report-time` and `--format json` are unstable options: RUSTC_BOOTSTRAP=1 is set
# for the test binary's run only (it lets a stable libtest take them), never for the build.
# The test binary runs from the package root, as `cargo test` runs it. JSON=FILE keeps the
# raw event stream.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=${TOP:-30}
[ "${1:-}" = "--" ] && shift

bin=$(cargo test --test it --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "it" and m.get("executable"):
        print(m["executable"])')
[ -x "$bin" ] || { echo "no test binary (cargo test --test it --no-run failed?)" >&2; exit 1; }

if [ -n "${JSON:-}" ]; then
  events=$JSON
else
  events=$(mktemp)
  trap 'rm -f "$events"' EXIT
fi
start=$(date +%s.%N)
set +e
CARGO_MANIFEST_DIR=$PWD RUSTC_BOOTSTRAP=1 "$bin" --include-ignored -Z unstable-options \
  --format json --report-time "$@" >"$events"
status=$?
set -e
end=$(date +%s.%N)

python3 - "$events" "$start" "$end" "$status" "$TOP" <<'EOF'
import json, sys
events, start, end, status, top = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
tests, failed = [], []
for line in open(events):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("type") != "test" or e.get("event") not in ("ok", "failed"):
        continue
    tests.append((float(e.get("exec_time", 0.0)), e["name"]))
    if e["event"] == "failed":
        failed.append(e["name"])
tests.sort(reverse=True)
total = sum(t for t, _ in tests)
print(f"wall {end - start:.1f} s, {len(tests)} tests run, their times summed {total:.1f} s, "
      f"{len(failed)} failed (exit {status})")
for name in failed:
    print(f"  FAILED {name}")
print(f"the {min(top, len(tests))} slowest:")
for t, name in tests[:top]:
    print(f"  {t:7.2f} s  {name}")
EOF
[ "$status" = 0 ]
