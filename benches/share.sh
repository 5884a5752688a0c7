# Sourced by the side-by-side benches: `share CMD...` runs CMD in one CPU-scheduling share.
#
# With the kernel's autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled), each
# session is one scheduling group: fio's numjobs processes each start a session of their own
# and so get a CPU share each, where diskdash's clones, threads of one process, share one. On a
# busy machine that alone makes fio's clones faster. `share` puts the command in a cpu cgroup
# (tasks in a cgroup other than the root are scheduled by it, not by autogroup), so each tool
# gets one share, as `fio --thread` would have. SHARE=session runs commands as started;
# without root or a cpu controller it does the same and says so once.
SHARE=${SHARE:-cgroup}
SHARE_CG=""
if [ "$SHARE" = cgroup ]; then
  if [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then # cgroup v1's cpu controller
    SHARE_CG=/sys/fs/cgroup/cpu/diskdash-bench-$$
  elif grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null \
      && echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then # cgroup v2
    SHARE_CG=/sys/fs/cgroup/diskdash-bench-$$
  fi
  if [ -n "$SHARE_CG" ] && mkdir -p "$SHARE_CG" 2>/dev/null; then
    echo "each run in cpu cgroup $SHARE_CG (one scheduling share per tool; SHARE=session: none)" >&2
  else
    SHARE_CG=""
    echo "no cpu cgroup (needs root and a cpu controller): runs share the CPU by session (autogroup)" >&2
  fi
fi
share() {
  if [ -n "$SHARE_CG" ]; then
    bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' share "$SHARE_CG" "$@"
  else
    "$@"
  fi
}
share_cleanup() { [ -n "$SHARE_CG" ] && rmdir "$SHARE_CG" 2>/dev/null || true; }
