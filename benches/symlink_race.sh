#!/usr/bin/env bash
# The long race of a flipped symlink against `bench`'s target checks: a link flipped between
# an empty file (which a read job may lay out) and a victim file full of data, as fast as the
# shell can rename a new link over it, while RUNS read jobs open it one after another. Every
# run must leave the victim as it was (the suite's
# safety_target::a_flipped_symlink_never_makes_a_read_job_write_to_a_data_file runs 8 of them).
#
#   benches/symlink_race.sh              # 200 runs
#   RUNS=1000 benches/symlink_race.sh
#
# Environment: BIN (a built diskdash; default: cargo build --release), RUNS, BENCH_DIR (default
# a temporary directory, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

RUNS=${RUNS:-200}
if [ -z "${BIN:-}" ]; then
  cargo build --release -q
  BIN=$PWD/target/release/diskdash
fi
dir=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'kill "${flipper:-0}" 2>/dev/null && wait "$flipper" 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"

head -c $((8 << 20)) /dev/urandom >victim.dat
want=$(sha256sum <victim.dat)
: >empty
ln -sfn empty flip
(
  n=0
  while :; do
    if [ $((n % 2)) -eq 0 ]; then ln -sfn victim.dat flip.next; else ln -sfn empty flip.next; fi
    mv -fT flip.next flip
    n=$((n + 1))
  done
) &
flipper=$!

refused=0
for run in $(seq 1 "$RUNS"); do
  : >empty
  code=0
  "$BIN" bench flip --rw randread --ioengine psync --size 1M --runtime 100ms --no-tui \
    >/dev/null 2>&1 || code=$?
  case $code in
    0) ;;
    2) refused=$((refused + 1)) ;;
    *) echo "run $run: exit $code" >&2; exit 1 ;;
  esac
  if [ "$(sha256sum <victim.dat)" != "$want" ]; then
    echo "run $run wrote to the victim" >&2
    exit 1
  fi
done
kill "$flipper"
wait "$flipper" 2>/dev/null || true
echo "$RUNS runs against a flipping link: the victim unchanged; $refused refused (exit 2), the rest ran"
