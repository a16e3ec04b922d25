#!/usr/bin/env bash
# The figures of the ordo tool in docs/BENCHMARKS.md ("The ordo tool"):
#   1. compaction: a 1,000,000-node random-ID file (ordo-bench nodes) against
#      its `ordo copy --compact`;
#   2. copy speed: `ordo copy` (and --compact) against `cp` (and `cp` + `sync`
#      of the copy, since ordo copy fsyncs) of the same file;
#   3. dump and load speed of the 1,000,000 records of its "nodes" tree against
#      mdb_dump and mdb_load of the same records in an LMDB file made from that dump.
# Every timed command runs ROUNDS times, the two arms alternating (A B, B A, ...);
# each line of times.csv is one run: figure,arm,round,seconds. The medians and the
# per-round ratios are printed at the end (and by summarize below).
#
# usage: bench/tool_measure.sh ORDO ORDO_BENCH WORKDIR [ROUNDS]
# The files it writes (times.csv, summary.txt, the tool outputs) go to WORKDIR.
set -euo pipefail
ORDO="$1" BENCH="$2" W="$3" ROUNDS="${4:-5}"
mkdir -p "$W"
OUT="$W"
CSV="$OUT/times.csv"
echo "figure,arm,round,seconds" > "$CSV"

. "$(dirname "$0")/measure_lib.sh"

# 1. The nodes file (random IDs, 1,000,000 nodes, a durable commit every 10,000).
if [[ ! -f "$W/nodes.ordo" ]]; then
  rm -rf "$W/bench"
  "$BENCH" nodes --nodes 1000000 --ids random --path "$W/bench" --keep | tee "$OUT/nodes.log"
  mv "$(find "$W/bench" -type f -name '*random*' | head -1)" "$W/nodes.ordo"
fi
rm -f "$W/compact.ordo"
"$ORDO" copy --compact --json "$W/nodes.ordo" "$W/compact.ordo" | tee "$OUT/compact.json"
"$ORDO" check "$W/compact.ordo" | tee "$OUT/compact-check.txt"
"$ORDO" stat "$W/nodes.ordo" > "$OUT/nodes-stat.txt"
"$ORDO" stat "$W/compact.ordo" > "$OUT/compact-stat.txt"
stat -c '%n %s' "$W/nodes.ordo" "$W/compact.ordo" | tee "$OUT/sizes.txt"

# 2. Copy speed (page cache warm: every arm reads the same file; `sync` before
# each run, so that no run pays for the dirty pages of the one before).
CLEAN="rm -f $W/c1.ordo $W/c2.ordo; sync"
run copy ordo "$ORDO copy $W/nodes.ordo $W/c1.ordo" cp "cp $W/nodes.ordo $W/c2.ordo" "$CLEAN"
run copy-synced ordo "$ORDO copy $W/nodes.ordo $W/c1.ordo" cp+sync "cp $W/nodes.ordo $W/c2.ordo && sync $W/c2.ordo" "$CLEAN"
run copy-compact ordo-compact "$ORDO copy --compact $W/nodes.ordo $W/c1.ordo" cp+sync "cp $W/nodes.ordo $W/c2.ordo && sync $W/c2.ordo" "$CLEAN"

# 3. The same 1,000,000 records in both engines.
"$ORDO" dump --tree nodes "$W/nodes.ordo" -o "$W/nodes.dump"
rm -f "$W/lmdb.mdb" "$W/lmdb.mdb-lock"
mdb_load -n -f "$W/nodes.dump" "$W/lmdb.mdb"
mdb_dump -n -s nodes "$W/lmdb.mdb" -f "$W/lmdb.dump"
# Same records: the dumps differ only in LMDB's environment lines.
diff <(grep -v -e '^mapsize=' -e '^maxreaders=' -e '^db_pagesize=' "$W/nodes.dump") \
     <(grep -v -e '^mapsize=' -e '^maxreaders=' -e '^db_pagesize=' "$W/lmdb.dump") > /dev/null
echo "records: $(grep -c '^ ' "$W/nodes.dump") lines (2 per record), identical in both dumps" | tee "$OUT/records.txt"
run dump ordo "$ORDO dump --tree nodes $W/nodes.ordo -o $W/d1" mdb_dump "mdb_dump -n -s nodes $W/lmdb.mdb -f $W/d2" "rm -f $W/d1 $W/d2; sync"
run load ordo "$ORDO load $W/l1.ordo -i $W/nodes.dump" mdb_load "mdb_load -n -f $W/nodes.dump $W/l2.mdb" \
  "rm -f $W/l1.ordo $W/l2.mdb $W/l2.mdb-lock; sync"
run load-batch100 ordo-batch100 "$ORDO load --batch 100 $W/l1.ordo -i $W/nodes.dump" mdb_load "mdb_load -n -f $W/nodes.dump $W/l2.mdb" \
  "rm -f $W/l1.ordo $W/l2.mdb $W/l2.mdb-lock; sync"
run load-append ordo-append "$ORDO load --append $W/l1.ordo -i $W/nodes.dump" mdb_load "mdb_load -n -f $W/nodes.dump $W/l2.mdb" \
  "rm -f $W/l1.ordo $W/l2.mdb $W/l2.mdb-lock; sync"

summarize "$CSV" | tee "$OUT/summary.txt"
