#!/usr/bin/env bash
# fio's own job files (fio 3.33's examples/*.fio) through `fio --parse-only` and
# `diskdash fio --parse-only`: how many each accepts, and the one-line reason for each file
# diskdash refuses.
#
# Besides all files, it counts the block-storage ones: N_block files fio accepts whose every
# job's ioengine (fio's default: psync) is one the project runs or maps for block storage
# (BLOCK_ENGINES below), and M_block of those diskdash accepts. Each file diskdash refuses
# outside that list must be refused naming its engine; one that is not is listed apart.
#
# Every path the files name is pointed into a scratch directory first: `filename=` keeps only
# its last component (a device such as /dev/sdb, or a file that is not there and no `size=`
# in the file says how big to make it, becomes a 1 GiB sparse file of that name, so a job
# that takes the file's size still has one: fio's --parse-only looks at no file), `directory=` becomes the scratch
# directory, a `filename_format` with a leading directory loses it, and ${FIO_DIR} is the
# scratch directory. Nothing outside the scratch directory is read or written; --parse-only
# runs no I/O.
#
#   benches/fio_examples.sh                 # fetch fio's source with tools/fio-source.sh
#   benches/fio_examples.sh DIR/examples    # an examples/ checkout already at hand
#   VERBOSE=1 benches/fio_examples.sh       # also list the files fio refuses, and why
#
# Environment: FIO (default: fio on PATH, else /work/shared/tools/fio-3.33-static),
# DISKDASH (default: target/debug/diskdash, built if missing), SCRATCH (default: a new
# temporary directory, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

examples=${1:-}
if [ -z "$examples" ]; then
  fetch=${FIO_SOURCE:-/work/shared/tools/fio-source.sh}
  [ -x "$fetch" ] || fetch=tools/fio-source.sh
  src=$("$fetch" "${FIO_SRC_DIR:-/var/tmp/diskdash-fio-src}")
  examples=$src/examples
fi
[ -d "$examples" ] || { echo "$examples: not a directory of fio job files" >&2; exit 2; }

FIO=${FIO:-$(command -v fio || echo /work/shared/tools/fio-3.33-static)}
DISKDASH=${DISKDASH:-target/debug/diskdash}
[ -x "$DISKDASH" ] || cargo build --quiet
DISKDASH=$(realpath "$DISKDASH")
own_scratch=0
if [ -z "${SCRATCH:-}" ]; then SCRATCH=$(mktemp -d); own_scratch=1; fi
[ "$own_scratch" = 1 ] && trap 'rm -rf "$SCRATCH"' EXIT
mkdir -p "$SCRATCH/jobs" "$SCRATCH/data"
# nbd.fio names nbdkit's socket as ${unixsocket} (its header: nbdkit ... --run 'export
# unixsocket; fio $F'); a path in the scratch directory stands in.
export unixsocket=$SCRATCH/data/nbdkit.sock

# Rewrites one job file's paths into the scratch directory.
point_at_scratch() {
  local in=$1 out=$2 data=$SCRATCH/data
  local sized=0
  grep -q -E '^[ \t]*(size|filesize)[ \t]*=' "$in" && sized=1
  awk -v data="$data" -v sized="$sized" '
    function base(p) { sub(/[ \t]+[#;].*$/, "", p); n = split(p, parts, "/"); return parts[n] }
    /^[ \t]*filename[ \t]*=/ {
      v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t]+[#;].*$/, "", v)
      n = split(v, list, ":"); out = ""
      for (i = 1; i <= n; i++) {
        b = base(list[i]); if (b == "") continue
        out = out (out == "" ? "" : ":") data "/" b
        if (list[i] ~ /^\/dev\// || !sized) devices[data "/" b] = 1
      }
      print "filename=" out; next
    }
    /^[ \t]*directory[ \t]*=/ { print "directory=" data; next }
    /^[ \t]*filename_format[ \t]*=/ {
      v = $0; sub(/^[^=]*=[ \t]*/, "", v); print "filename_format=" base(v); next
    }
    { print }
    END { for (d in devices) print d > "/dev/stderr" }
  ' "$in" > "$out" 2> "$out.devices"
  while read -r dev; do
    [ -e "$dev" ] || truncate -s 1G "$dev"
  done < "$out.devices"
  rm -f "$out.devices"
}

# fio's engines for block storage, as the project lists them: run, or mapped with a stated
# difference (sg on a device).
BLOCK_ENGINES=" sync psync vsync pvsync pvsync2 libaio io_uring posixaio mmap null falloc ftruncate filecreate filestat filedelete sg "

# The ioengine of each job section of a job file, one a line: the section's own, else the
# last [global]'s before it, else fio's default psync.
job_engines() {
  awk '
    function flush() { if (injob) print (eng != "" ? eng : (geng != "" ? geng : "psync")) }
    /^[ \t]*\[/ {
      flush(); s = $0; gsub(/[ \t\[\]]/, "", s)
      injob = (s != "global"); eng = ""; next
    }
    /^[ \t]*ioengine[ \t]*=/ {
      v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t]*([#;].*)?$/, "", v)
      if (injob) eng = v; else geng = v
    }
    END { flush() }
  ' "$1" | sort -u
}

fio_ok=0; dd_ok=0; both=0; total=0
n_block=0; m_block=0
refused=()
outside=()
unnamed=()
fio_refused=()
for f in "$examples"/*.fio; do
  name=$(basename "$f")
  job=$SCRATCH/jobs/$name
  point_at_scratch "$f" "$job"
  total=$((total + 1))
  fio_accepts=0
  if out=$(cd "$SCRATCH/data" && FIO_DIR=$SCRATCH/data timeout 20 "$FIO" --parse-only "$job" 2>&1); then
    fio_ok=$((fio_ok + 1)); fio_accepts=1
  else
    fio_refused+=("$name: $(printf '%s\n' "$out" | grep -v '^$' | head -n1)")
  fi
  block=1
  engines=$(job_engines "$f")
  for e in $engines; do [[ "$BLOCK_ENGINES" == *" $e "* ]] || block=0; done
  [ "$fio_accepts" = 1 ] && [ "$block" = 1 ] && n_block=$((n_block + 1))
  if out=$(cd "$SCRATCH/data" && FIO_DIR=$SCRATCH/data timeout 20 "$DISKDASH" fio --parse-only "$job" 2>&1 >/dev/null); then
    dd_ok=$((dd_ok + 1))
    [ "$fio_accepts" = 1 ] && both=$((both + 1))
    [ "$fio_accepts" = 1 ] && [ "$block" = 1 ] && m_block=$((m_block + 1))
  elif [ "$fio_accepts" = 1 ]; then
    reason=$(printf '%s\n' "$out" | grep -v '^$' | tail -n1)
    reason=${reason//$SCRATCH\/jobs\//}
    if [ "$block" = 1 ]; then
      refused+=("$name: $reason")
    else
      # Outside the list: the refusal must name one of the file's engines.
      named=0
      for e in $engines; do
        [[ "$BLOCK_ENGINES" == *" $e "* ]] && continue
        [[ "$reason" == *"\"$e\""* || "$reason" == *" $e "* ]] && named=1
      done
      if [ "$named" = 1 ]; then
        outside+=("$name [$(echo $engines)]: $reason")
      else
        unnamed+=("$name [$(echo $engines)]: $reason")
      fi
    fi
  fi
done

echo "fio job files: $total ($examples)"
echo "fio accepts N = $fio_ok ($FIO --parse-only)"
echo "diskdash accepts M = $both of those ($DISKDASH fio --parse-only; $dd_ok in all)"
echo "block storage: fio accepts N_block = $n_block (every job's ioengine among:$BLOCK_ENGINES)"
echo "diskdash accepts M_block = $m_block of those"
echo
echo "refused by diskdash, block storage, accepted by fio (${#refused[@]}):"
for r in "${refused[@]}"; do echo "  $r"; done
echo
echo "refused by diskdash naming the engine, outside the block-storage list (${#outside[@]}):"
for r in "${outside[@]}"; do echo "  $r"; done
echo
echo "refused by diskdash outside the list WITHOUT naming the engine (${#unnamed[@]}):"
for r in "${unnamed[@]}"; do echo "  $r"; done
if [ -n "${VERBOSE:-}" ]; then
  echo
  echo "refused by fio (${#fio_refused[@]}):"
  for r in "${fio_refused[@]}"; do echo "  ${r//$SCRATCH\/jobs\//}"; done
fi

# RUN=1: eight of the accepted files run for real beside fio, alternated (fio first, then
# diskdash), each scaled down to SIZE (default 32m) per file and RUNTIME seconds (default 3,
# time-based; diskdash gets --allow-destructive, as fio wrote the scratch files first); the table gives each tool's summed read and write IOPS and their ratio.
[ -z "${RUN:-}" ] && exit 0
RUN_FILES=${RUN_FILES:-"fio-rand-read.fio fio-rand-write.fio fio-rand-RW.fio fio-seq-read.fio fio-seq-write.fio fio-seq-RW.fio aio-read.fio backwards-read.fio"}
SIZE=${SIZE:-32m}
RUNTIME=${RUNTIME:-3}
echo
echo "run for real: ${RUNTIME}s time-based, size=$SIZE, on $(df --output=source "$SCRATCH" | tail -n1)"
printf '| %-22s | %-8s | %-15s | %-15s | %-7s |\n' "example" "sections" "fio IOPS r/w" "diskdash r/w" "ratio"
printf '|%s|%s|%s|%s|%s|\n' "------------------------" "----------" "-----------------" "-----------------" "---------"
for name in $RUN_FILES; do
  src=$SCRATCH/jobs/$name
  [ -f "$src" ] || { echo "| $name | not among the examples |"; continue; }
  job=$SCRATCH/jobs/run-$name
  # Sizes and times scaled down: every key that bounds a job's length goes, one [global] sets them.
  { printf '[global]\nsize=%s\nruntime=%s\ntime_based=1\n' "$SIZE" "$RUNTIME"
    grep -v -E '^[ \t]*(size|filesize|io_size|io_limit|runtime|time_based|loops|number_ios|ramp_time)[ \t]*(=|$)' "$src"
  } > "$job"
  sections=$(grep -c -E '^\[' "$src" | tr -d ' ')
  (cd "$SCRATCH/data" && FIO_DIR=$SCRATCH/data "$FIO" --output-format=json --output="$SCRATCH/fio-$name.json" "$job" >/dev/null 2>&1) || true
  (cd "$SCRATCH/data" && FIO_DIR=$SCRATCH/data "$DISKDASH" fio --no-tui --allow-destructive --output-format=json \
      --output="$SCRATCH/dd-$name.json" "$job" >/dev/null 2>"$SCRATCH/dd-$name.err") || true
  python3 - "$name" "$sections" "$SCRATCH/fio-$name.json" "$SCRATCH/dd-$name.json" <<'PY'
import json, sys
name, sections, f, d = sys.argv[1:5]
def iops(path):
    try:
        jobs = json.load(open(path))["jobs"]
    except (OSError, ValueError, KeyError):
        return None
    return sum(j["read"]["iops"] for j in jobs), sum(j["write"]["iops"] for j in jobs)
a, b = iops(f), iops(d)
fmt = lambda v: "failed" if v is None else f"{v[0]:.0f}/{v[1]:.0f}"
ratio = "-" if a is None or b is None or sum(a) == 0 else f"{sum(b) / sum(a):.2f}"
print(f"| {name:<22} | {sections:<8} | {fmt(a):<15} | {fmt(b):<15} | {ratio:<7} |")
PY
done
