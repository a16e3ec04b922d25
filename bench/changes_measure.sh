#!/usr/bin/env bash
# The figures of changes between snapshots in docs/BENCHMARKS.md:
#   1. `ordo diff --since` over 1,000 changed keys of a KEYS-key tree against
#      what a tool without it does: dump both snapshots and diff the dumps;
#   2. a delta copy (`ordo copy --since`) against a full `ordo copy` once 1% of
#      the keys changed: time, and the sizes; the delta restored onto a copy at
#      its base is checked against the source (`ordo dump` of both equal).
# Every timed command runs ROUNDS times, the two arms alternating (A B, B A, ...);
# each line of times.csv is one run: figure,arm,round,seconds. Page cache warm.
#
# usage: bench/changes_measure.sh ORDO WORKDIR [ROUNDS] [KEYS]
# The files it writes (times.csv, summary.txt, sizes.txt, outputs) go to WORKDIR.
set -euo pipefail
ORDO="$1" W="$2" ROUNDS="${3:-5}" KEYS="${4:-10000000}"
mkdir -p "$W"
CSV="$W/times.csv"
echo "figure,arm,round,seconds" > "$CSV"
. "$(dirname "$0")/measure_lib.sh"

# records FIRST COUNT STRIDE TAG: mdb_dump text of COUNT records, keys
# k%012d of FIRST, FIRST + STRIDE, ... and 32-byte values naming TAG.
records() {
  python3 - "$@" <<'PY'
import sys
first, count, stride, tag = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
out = sys.stdout
out.write("VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n")
lines = []
for i in range(count):
    k = first + i * stride
    key, value = b"k%012d" % k, ("%s-%029d" % (tag, k))[:32].encode()
    lines.append(" %s\n %s\n" % (key.hex(), value.hex()))
    if len(lines) == 100000:
        out.write("".join(lines)); lines = []
out.write("".join(lines))
out.write("DATA=END\n")
PY
}

# The tree, a kept snapshot of it, and a copy at that snapshot (the base).
rm -f "$W/db.ordo" "$W/base.ordo"
records 0 "$KEYS" 1 v0 > "$W/base.dump"
"$ORDO" load --append "$W/db.ordo" -i "$W/base.dump" > /dev/null
since=$("$ORDO" snapshot keep "$W/db.ordo" | awk '{print $2}')
"$ORDO" copy "$W/db.ordo" "$W/base.ordo" --at "$since" > /dev/null
rm -f "$W/base.dump"

# 1. 1,000 keys updated, spread over the tree.
records 7 1000 $((KEYS / 1000)) v1 > "$W/c1000.dump"
"$ORDO" load "$W/db.ordo" -i "$W/c1000.dump" > /dev/null
changed=$("$ORDO" diff "$W/db.ordo" --since "$since" | wc -l)
echo "changed keys since $since: $changed" | tee "$W/changed-1000.txt"
run changes-1000 ordo-diff "$ORDO diff $W/db.ordo --since $since > $W/o1" \
  dumps+diff "$ORDO dump $W/base.ordo -o $W/a.dump && $ORDO dump $W/db.ordo -o $W/b.dump && { diff $W/a.dump $W/b.dump > $W/o2 || true; }" \
  "rm -f $W/o1 $W/o2 $W/a.dump $W/b.dump"
rm -f "$W/a.dump" "$W/b.dump"

# 2. 1% of the keys changed since the base (the 1,000 above among them).
records 3 $((KEYS / 100 - 1000)) 100 v2 > "$W/c1pct.dump"
"$ORDO" load "$W/db.ordo" -i "$W/c1pct.dump" > /dev/null
changed=$("$ORDO" diff "$W/db.ordo" --since "$since" | wc -l)
echo "changed keys since $since: $changed of $KEYS" | tee "$W/changed-1pct.txt"
run copy-1pct delta "$ORDO copy $W/db.ordo $W/d.delta --since $since" \
  full "$ORDO copy $W/db.ordo $W/full.ordo" "rm -f $W/d.delta $W/full.ordo; sync"
rm -f "$W/d.delta" "$W/full.ordo"  # both outputs, for their sizes
"$ORDO" copy "$W/db.ordo" "$W/d.delta" --since "$since" > /dev/null
"$ORDO" copy "$W/db.ordo" "$W/full.ordo" > /dev/null
stat -c '%n %s' "$W/d.delta" "$W/full.ordo" "$W/db.ordo" | tee "$W/sizes.txt"
cp "$W/base.ordo" "$W/restored.ordo"
"$ORDO" restore "$W/restored.ordo" "$W/d.delta" > /dev/null
cmp <("$ORDO" dump "$W/restored.ordo") <("$ORDO" dump "$W/db.ordo")
echo "restored copy: same dump as the source" | tee -a "$W/sizes.txt"
rm -f "$W/restored.ordo"

summarize "$CSV" | tee "$W/summary.txt"
