#!/usr/bin/env bash
# A stand-in for `ordo-bench` in the tests of `ordo-bench compare`: prints the
# child-run JSON contract (compare_study.h) with deterministic noise.
#
#   compare_fake_runner.sh nodes|commit [--ids K] --engine E --json --path DIR [...]
#   compare_fake_runner.sh SUBCOMMAND --help      lists "--engine TEXT:{ordo,lmdb}"
#
# Environment:
#   FAKE_STATE  file holding the run counter n (0, 1, 2, ...: one per run; required)
#   FAKE_MODE   quiet (default): -1% on even n, +1% on odd; drift: figures grow with n;
#               split: the A arm of the A/A control (runs n % 4 in {0, 3}) is 2x;
#               fail-lmdb: every lmdb run exits 1 with a message on stderr
#   FAKE_LOG    when set, each run appends "n engine" to this file
set -euo pipefail

sub="${1:-}"
shift || true
engine="" path=""
while (($# > 0)); do
  case "$1" in
    --help) echo "  --engine TEXT:{ordo,lmdb} Storage engine"; exit 0 ;;
    --engine) engine="$2"; shift ;;
    --path) path="$2"; shift ;;
  esac
  shift
done
[[ -d "$path" ]] || { echo "fake runner: --path $path is not a directory" >&2; exit 2; }

n=$(cat "$FAKE_STATE" 2>/dev/null || echo 0)
echo $((n + 1)) > "$FAKE_STATE"
[[ -n "${FAKE_LOG:-}" ]] && echo "$n $engine" >> "$FAKE_LOG"

mode="${FAKE_MODE:-quiet}"
if [[ "$mode" == fail-lmdb && "$engine" == lmdb ]]; then
  echo "fake runner: lmdb adapter exploded" >&2
  exit 1
fi

base=1000
[[ "$engine" == lmdb ]] && base=500
# value BASE: BASE with this run's noise, as an integer.
value() {
  case "$mode" in
    drift) echo $(($1 * (10 + n) / 10)) ;;
    split) if ((n % 4 == 0 || n % 4 == 3)); then echo $(($1 * 2)); else echo "$1"; fi ;;
    *) echo $(($1 * (990 + 20 * (n % 2)) / 1000)) ;;
  esac
}

case "$sub" in
  nodes)
    printf '{"workload":"nodes","engine":"%s","figures":{"nodes_per_s":%s,"file_bytes":%s,' \
      "$engine" "$(value $((base * 100)))" "$((base * 4096))"
    printf '"bytes_per_node":%s,"leaf_fill":"n/a"},' "$(value 150)"
    printf '"curve":[[10000,%s],[20000,%s]]}\n' "$(value $((base * 110)))" "$(value $((base * 90)))"
    ;;
  commit)
    printf '{"workload":"commit","engine":"%s","figures":{"p50_us_10000":%s,"p50_us_100000":%s,' \
      "$engine" "$(value $((base / 4)))" "$(value $((base / 2)))"
    printf '"p99_us_10000":%s,"fdatasync_floor_us":%s}}\n' "$(value $base)" "$(value 100)"
    ;;
  *) echo "fake runner: no workload $sub" >&2; exit 2 ;;
esac
