#!/usr/bin/env bash
# The null engine's instructions per I/O under callgrind, for two commits side by side.
# Instruction counts are deterministic: the machine's load does not move them, so one run per
# point is enough (a timed rate on a shared VM moves by 20% from run to run).
#
# Each commit is built in a detached worktree (one target directory for both, so the
# dependencies build once), then `diskdash bench` runs the null engine (4k randread, QD32, one
# worker, size-based: --io-size fixes the I/O count) under `valgrind --tool=callgrind
# --separate-threads=yes`, once with N1 and once with N2 I/Os. Per I/O is (Ir(N2) - Ir(N1)) /
# (N2 - N1), so the setup and teardown cancel: for the whole process and for the worker
# thread alone (the session thread's share is a cost per second of a slowed-down run). The
# interval is 60 s, longer than a run, but the worker still hands its stats over every 250 ms
# (session::aggregate's MAX_TICK): a cost per second of the run under callgrind (slowed down
# 50 times, more on a loaded machine), not per I/O of a real run. So the worker's figure is
# also given without its hand-offs: the inclusive cost of `Loop::hand_off` (its own lines and
# all it calls, read from callgrind's file of the worker thread) taken out of each run, with
# how many hand-offs each run made. That column, "loop", is the per-I/O measure to compare
# across commits (#35's target); "worker" is the thread's whole count as callgrind saw it.
# A build where `hand_off` is inlined shows no hand-offs: "loop" is then "worker".
#
#   benches/null_callgrind.sh b1ff161               # b1ff161 against the work tree as it is
#   benches/null_callgrind.sh b1ff161 HEAD          # two commits
#   N1=40000 N2=120000 PROFILE=release benches/null_callgrind.sh b1ff161 HEAD
#
# Arguments: BASE and HEAD, any commit git names (HEAD may be "." or absent: the work tree,
# uncommitted changes included). Environment: PROFILE (bench, the default: thin LTO; or
# release: fat LTO, slower to build), N1 and N2 (I/O counts, default 40000 and 120000), IODEPTH
# (32), RW (randread), TARGET_DIR (the shared target directory, default target/), OUT (where the
# binaries and callgrind's files go, default /var/tmp/diskdash-callgrind), ANNOTATE=1 (also
# print the worker thread's top functions at N2, `callgrind_annotate`, for each side),
# BASE_BIN and HEAD_BIN (a side's binary, already built from that commit: no build).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

[ $# -ge 1 ] && [ $# -le 2 ] || {
  echo "usage: benches/null_callgrind.sh BASE [HEAD]  (commits; HEAD absent or \".\": the work tree)" >&2
  exit 2
}
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "needs python3 to read callgrind's files" >&2; exit 1; }

PROFILE=${PROFILE:-bench}
N1=${N1:-40000}
N2=${N2:-120000}
IODEPTH=${IODEPTH:-32}
RW=${RW:-randread}
TARGET_DIR=$(realpath -m "${TARGET_DIR:-target}")
OUT=${OUT:-/var/tmp/diskdash-callgrind}
[ "$N2" -gt "$N1" ] || { echo "N2=$N2 must be above N1=$N1" >&2; exit 2; }
case $PROFILE in bench | release) ;; *) echo "PROFILE=$PROFILE: bench or release" >&2; exit 2 ;; esac
mkdir -p "$OUT"

# A side's name and binary: the work tree builds in place; a commit in a worktree of its own.
build() { # rev -> prints the binary's path
  local rev=$1 name src
  if [ "$rev" = . ]; then
    name=worktree
    src=$PWD
  else
    name=$(git rev-parse --short "$rev^{commit}")
    src=$OUT/src-$name
    [ -d "$src" ] || git worktree add --detach --quiet "$src" "$name" >&2
  fi
  (cd "$src" && CARGO_TARGET_DIR=$TARGET_DIR cargo build --quiet --profile "$PROFILE" --bin diskdash >&2)
  # Cargo puts the bench profile's binaries in release/.
  cp "$TARGET_DIR/$([ "$PROFILE" = bench ] && echo release || echo "$PROFILE")/diskdash" "$OUT/diskdash-$name"
  [ "$rev" = . ] || git worktree remove --force "$src" >&2
  echo "$OUT/diskdash-$name"
}

# One run under callgrind: binary, I/O count, the files' prefix.
run() {
  local bin=$1 ios=$2 prefix=$3
  rm -f "$prefix".*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$prefix.%p" \
    "$bin" bench "$OUT/null-target" --ioengine null --rw "$RW" --bs 4k --size 64M \
    --iodepth "$IODEPTH" --io-size $((ios * 4096)) --runtime 1h --interval 60s --no-tui \
    --json "$prefix.json" >/dev/null 2>"$prefix.log" || {
    echo "the run under callgrind failed; see $prefix.log" >&2
    exit 1
  }
}

# The worker thread's file among a run's per-thread files: the thread that executes
# bench::worker::run (callgrind names a function once, where it first appears, maybe as a
# callee: its number then stands for it).
WORKER_PY='
import glob, re, sys
for path in sorted(glob.glob(sys.argv[1] + ".*-*")):
    text = open(path, errors="replace").read()
    ids = set(re.findall(r"^c?fn=\((\d+)\) .*bench::worker::run$", text, re.M))
    if any(re.search(r"^fn=\(" + i + r"\)", text, re.M) for i in ids):
        print(path)
'

BASE=$1
HEAD=${2:-.}
sides=()
given=("${BASE_BIN:-}" "${HEAD_BIN:-}")
for side in 0 1; do
  rev=$([ "$side" = 0 ] && echo "$BASE" || echo "$HEAD")
  if [ -n "${given[$side]}" ]; then # a binary already built for this side: its name is the rev's
    name=$([ "$rev" = . ] && echo worktree || git rev-parse --short "$rev^{commit}")
    bin=$OUT/diskdash-$name
    [ "$(realpath "${given[$side]}")" = "$(realpath -m "$bin")" ] || cp "${given[$side]}" "$bin"
  else
    echo "building $rev ($PROFILE profile)" >&2
    bin=$(build "$rev")
    name=${bin##*/diskdash-}
  fi
  for n in "$N1" "$N2"; do
    echo "  $name: $n I/Os under callgrind" >&2
    run "$bin" "$n" "$OUT/cg-$name-$n"
  done
  sides+=("$name")
  if [ "${ANNOTATE:-0}" = 1 ]; then
    worker=$(python3 -c "$WORKER_PY" "$OUT/cg-$name-$N2")
    echo "== $name: the worker thread's functions at $N2 I/Os ($worker)"
    callgrind_annotate --inclusive=no "$worker" 2>/dev/null | sed -n '/file:function/,+22p'
  fi
done

python3 - "$OUT" "$N1" "$N2" "${sides[@]}" <<'PY'
import glob, json, re, sys
out, n1, n2, sides = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]

def totals(prefix):
    """Instructions of the whole process and of the worker thread (the one that executes
    bench::worker::run: see WORKER_PY), from callgrind's per-thread files."""
    whole = worker = 0
    for path in glob.glob(prefix + ".*-*"):
        text = open(path, errors="replace").read()
        m = re.search(r"^(?:totals|summary): (\d+)", text, re.M)
        ir = int(m.group(1)) if m else 0
        whole += ir
        ids = set(re.findall(r"^c?fn=\((\d+)\) .*bench::worker::run$", text, re.M))
        if any(re.search(r"^fn=\(" + i + r"\)", text, re.M) for i in ids):
            worker += ir
    return whole, worker

def hand_offs(prefix):
    """The worker thread's `Loop::hand_off`: calls and inclusive instructions (every cost
    line of its blocks in callgrind's file: its own lines and, after each `calls=`, the
    inclusive cost of the call)."""
    calls = cost = 0
    for path in glob.glob(prefix + ".*-*"):
        text = open(path, errors="replace").read()
        if not re.search(r"^c?fn=\(\d+\) .*bench::worker::run$", text, re.M):
            continue
        ids = set(re.findall(r"^c?fn=\((\d+)\) .*bench::worker::Loop::hand_off$", text, re.M))
        inside = into = False
        for line in text.splitlines():
            if line.startswith("fn="):
                inside = re.match(r"fn=\((\d+)\)", line).group(1) in ids
            elif line.startswith("cfn="):
                into = re.match(r"cfn=\((\d+)\)", line).group(1) in ids
            elif line.startswith("calls="):
                if into and not inside:
                    calls += int(line[6:].split()[0])
            elif inside and line and line[0] in "0123456789+-*":
                cost += int(line.split()[-1])
    return calls, cost

def ios(prefix):
    doc = json.load(open(prefix + ".json"))
    return doc["read"]["total_ios"] + doc["write"]["total_ios"]

rows = []
for side in sides:
    a, b = f"{out}/cg-{side}-{n1}", f"{out}/cg-{side}-{n2}"
    got = (ios(a), ios(b))
    if got != (n1, n2):
        sys.exit(f"{side}: the runs recorded {got[0]} and {got[1]} I/Os, not {n1} and {n2}")
    (wa, ka), (wb, kb) = totals(a), totals(b)
    if not ka or not kb:
        sys.exit(f"{side}: no thread ran bench::worker::run in {a} or {b}")
    (ca, ha), (cb, hb) = hand_offs(a), hand_offs(b)
    n = n2 - n1
    rows.append((side, (wb - wa) / n, (kb - ka) / n, (kb - hb - ka + ha) / n, ca, cb,
                 (ha + hb) / max(ca + cb, 1)))

print(f"null engine, {n2} minus {n1} I/Os under callgrind: instructions per I/O")
print(f"{'build':<12} {'process':>9} {'worker':>9} {'loop':>9}  hand-offs (runs; each)")
for side, whole, worker, loop, ca, cb, each in rows:
    print(f"{side:<12} {whole:>9.1f} {worker:>9.1f} {loop:>9.1f}  {ca} and {cb}; {each:,.0f}")
(_, bw, bk, bl, *_), (_, hw, hk, hl, *_) = rows
print(f"{sides[1]} / {sides[0]}: process {hw / bw:.3f}x, worker {hk / bk:.3f}x, loop {hl / bl:.3f}x")
print("loop: the worker less its hand-offs (a cost per second of callgrind's slowed-down run)")
PY
