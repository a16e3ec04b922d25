# Shared by the bench/*_measure.sh studies (sourced, not run). Set ROUNDS and
# CSV ("figure,arm,round,seconds" lines) before calling run.

# secs CMD...: the wall-clock seconds CMD took (its stdout discarded).
secs() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }

# run FIGURE ARM_A CMD_A ARM_B CMD_B [PREP]: ROUNDS alternating runs (A B, B A,
# ...), one CSV line each; PREP (a shell string) runs before each run, untimed
# (removes the previous output).
run() {
  local figure="$1" a="$2" cmd_a="$3" b="$4" cmd_b="$5" prep="${6:-true}"
  for ((r = 0; r < ROUNDS; r++)); do
    local first=("$a" "$cmd_a") second=("$b" "$cmd_b")
    if ((r % 2 == 1)); then first=("$b" "$cmd_b"); second=("$a" "$cmd_a"); fi
    for arm in first second; do
      local -n x="$arm"
      eval "$prep"
      echo "$figure,${x[0]},$r,$(secs bash -c "${x[1]}")" >> "$CSV"
    done
  done
}

# summarize CSV: medians per figure and arm, and the median of the per-round
# time ratios (first arm / second) with their range.
summarize() {
  python3 - "$1" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
figs = {}
for r in rows:
    figs.setdefault(r["figure"], {}).setdefault(r["arm"], {})[int(r["round"])] = float(r["seconds"])
for fig, arms in figs.items():
    names = list(arms)
    a, b = names
    ratios = [arms[a][k] / arms[b][k] for k in arms[a] if k in arms[b]]
    print(f"{fig}: {a} median {statistics.median(arms[a].values()):.3f} s, "
          f"{b} median {statistics.median(arms[b].values()):.3f} s; "
          f"time ratio {a}/{b}: median {statistics.median(ratios):.4f} "
          f"[{min(ratios):.4f} - {max(ratios):.4f}] over {len(ratios)} rounds")
PY
}
