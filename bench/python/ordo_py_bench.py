#!/usr/bin/python3
"""One run of the Python study (docs/BENCHMARKS.md, "From Python"): ordo's
Python package or py-lmdb, one group of phases in this process, figures as
the JSON document `ordo-bench compare` reads from a child run.

  ordo_py_bench.py calls|ingest|scan --engine ordo|lmdb --path DIR [--json]
                   [--rows N] [--calls N] [--commits N] [--durable-commits N]
                   [--reads N] [--module-path DIR]

calls:  one-row get (us per call, in one read txn); one-row put + commit,
        not durable and durable (us per commit).
ingest: N rows of 16-byte keys (big-endian counters) and 100-byte values
        into a fresh file each: row by row in one txn; as many rows at once
        (ordo put_many, py-lmdb Cursor.putmulti); from columns (ordo
        put_columns over numpy arrays; py-lmdb putmulti over the same
        columns sliced row by row, py-lmdb having no columnar call).
scan:   a file of N rows (built first, not measured): a full scan into
        Python objects; a full scan into columns (ordo scan_columns; py-lmdb
        a cursor iterated into two lists); random point reads.

Each phase reports rows per second (the one-row phases: us per call
instead) and CPU per row (process CPU
time, all threads); the ingest and scan phases also RssAnon above the
phase's start, in whole MiB: the peak (sampled every millisecond by a
thread) and at its end (steady). The one-row phases and point reads allocate a few pages at
most, below what the sampling tells apart.
"""
import argparse
import json
import os
import random
import sys
import threading
import time

KEY_BYTES = 16
VALUE_BYTES = 100
MAP_SIZE_BYTES = 8 << 30


def rss_anon_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


class Phase:
    """Times one phase and samples RssAnon while it runs."""

    def __init__(self, figures, name, rows, memory=True, rate=True):
        self.figures, self.name, self.rows = figures, name, rows
        self.memory, self.rate = memory, rate

    def _sample(self):
        while not self.done.wait(0.001):
            self.peak = max(self.peak, rss_anon_kib())

    def __enter__(self):
        self.base = rss_anon_kib()
        self.peak = self.base
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self._sample, daemon=True)
        self.sampler.start()
        self.cpu0 = time.process_time()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        seconds = time.perf_counter() - self.t0
        cpu = time.process_time() - self.cpu0
        self.done.set()
        self.sampler.join()
        end = rss_anon_kib()
        self.peak = max(self.peak, end)
        f, n = self.figures, self.name
        if self.rate:
            f[n + "_per_s"] = self.rows / seconds
        f[n + "_cpu_us_per_row"] = cpu / self.rows * 1e6
        if self.memory:
            # Whole MiB, never below the start: the sampling's jitter and
            # memory an earlier phase gives back are not the phase's.
            f[n + "_rss_peak_mib"] = round(max(0, self.peak - self.base) / 1024)
            f[n + "_rss_steady_mib"] = round(max(0, end - self.base) / 1024)
        self.seconds = seconds
        return False


def key(i):
    return i.to_bytes(KEY_BYTES, "big")


def make_values(n, seed):
    rng = random.Random(seed)
    blob = rng.randbytes(VALUE_BYTES * 1024)
    return [blob[(i % 1024) * VALUE_BYTES:(i % 1024 + 1) * VALUE_BYTES] for i in range(n)]


# --- engines: the same few calls over ordo and py-lmdb ---------------------

class OrdoEngine:
    def __init__(self, path, durable=True):
        import ordo
        self.ordo = ordo
        self.db = ordo.open(os.path.join(path, "study.ordo"), sync_commits=durable)

    def close(self):
        self.db.close()

    def write(self):
        return self.db.write()

    def read(self):
        return self.db.read()

    def put(self, txn, k, v):
        txn.put(k, v)

    def get(self, txn, k):
        return txn.get(k)

    def put_many(self, txn, rows):
        txn.put_many(rows)

    def put_columns(self, txn, keys, values, offsets):
        txn.put_columns(keys, values, offsets)

    def scan_objects(self, txn):
        return [(k, v) for k, v in txn.range()]

    def scan_columns(self, txn):
        rows = 0
        for batch in txn.scan_columns():
            rows += len(batch)
        return rows


class LmdbEngine:
    def __init__(self, path, durable=True):
        import lmdb
        self.env = lmdb.open(os.path.join(path, "study.lmdb"), map_size=MAP_SIZE_BYTES,
                             sync=durable, metasync=durable)

    def close(self):
        self.env.close()

    def write(self):
        return self.env.begin(write=True)

    def read(self):
        return self.env.begin(buffers=False)

    def put(self, txn, k, v):
        txn.put(k, v)

    def get(self, txn, k):
        return txn.get(k)

    def put_many(self, txn, rows):
        txn.cursor().putmulti(rows)

    def put_columns(self, txn, keys, values, offsets):
        key_view = memoryview(keys).cast("B")
        value_view = memoryview(values).cast("B")
        offs = offsets.tolist()

        def rows():
            for i in range(len(offs) - 1):
                yield (bytes(key_view[i * KEY_BYTES:(i + 1) * KEY_BYTES]),
                       bytes(value_view[offs[i]:offs[i + 1]]))

        txn.cursor().putmulti(rows())

    def scan_objects(self, txn):
        return [(k, v) for k, v in txn.cursor()]

    def scan_columns(self, txn):
        keys, values = [], []
        for k, v in txn.cursor():
            keys.append(k)
            values.append(v)
        return len(keys)


def open_engine(args, path, durable=True):
    os.makedirs(path, exist_ok=True)
    if args.engine == "ordo":
        return OrdoEngine(path, durable)
    return LmdbEngine(path, durable)


def fill(engine, rows, values):
    with engine.write() as txn:
        engine.put_many(txn, ((key(i), values[i]) for i in range(rows)))


# --- phase groups -----------------------------------------------------------

def run_calls(args, figures):
    values = make_values(1000, 1)
    engine = open_engine(args, os.path.join(args.path, "calls"), durable=False)
    fill(engine, 1000, values)
    keys = [key(i) for i in range(1000)]
    with engine.read() as txn:
        with Phase(figures, "get_call", args.calls, memory=False, rate=False) as p:
            get = engine.get
            for i in range(args.calls):
                get(txn, keys[i % 1000])
    figures["get_call_us"] = p.seconds / args.calls * 1e6
    with Phase(figures, "put_commit_nondurable", args.commits, memory=False, rate=False) as p:
        for i in range(args.commits):
            with engine.write() as txn:
                engine.put(txn, key(2000 + i), values[i % 1000])
    figures["put_commit_nondurable_us"] = p.seconds / args.commits * 1e6
    engine.close()
    engine = open_engine(args, os.path.join(args.path, "durable"), durable=True)
    with Phase(figures, "put_commit_durable", args.durable_commits, memory=False, rate=False) as p:
        for i in range(args.durable_commits):
            with engine.write() as txn:
                engine.put(txn, key(i), values[i % 1000])
    figures["put_commit_durable_us"] = p.seconds / args.durable_commits * 1e6
    engine.close()


def run_ingest(args, figures):
    import numpy as np
    n = args.rows
    values = make_values(n, 2)
    rows = [(key(i), values[i]) for i in range(n)]
    engine = open_engine(args, os.path.join(args.path, "rows"))
    with Phase(figures, "ingest_rows", n):
        with engine.write() as txn:
            put = engine.put
            for k, v in rows:
                put(txn, k, v)
    engine.close()
    engine = open_engine(args, os.path.join(args.path, "many"))
    with Phase(figures, "ingest_put_many", n):
        with engine.write() as txn:
            engine.put_many(txn, rows)
    engine.close()
    del rows
    counters = np.arange(n, dtype=">u8")
    keys = np.zeros((n, KEY_BYTES), dtype=np.uint8)
    keys[:, 8:] = counters.view(np.uint8).reshape(n, 8)
    data = np.frombuffer(b"".join(values), dtype=np.uint8)
    offsets = np.arange(0, (n + 1) * VALUE_BYTES, VALUE_BYTES, dtype=np.int64)
    del values
    engine = open_engine(args, os.path.join(args.path, "columns"))
    with Phase(figures, "ingest_columns", n):
        with engine.write() as txn:
            engine.put_columns(txn, keys, data, offsets)
    engine.close()


def run_scan(args, figures):
    n = args.rows
    values = make_values(n, 3)
    engine = open_engine(args, os.path.join(args.path, "scan"))
    fill(engine, n, values)
    del values
    with engine.read() as txn:
        with Phase(figures, "scan_objects", n):
            got = engine.scan_objects(txn)
            assert len(got) == n, len(got)
            del got
    with engine.read() as txn:
        with Phase(figures, "scan_columns", n):
            assert engine.scan_columns(txn) == n
    rng = random.Random(4)
    wanted = [key(rng.randrange(n)) for _ in range(args.reads)]
    with engine.read() as txn:
        with Phase(figures, "point_reads", args.reads, memory=False):
            get = engine.get
            for k in wanted:
                get(txn, k)
    engine.close()


GROUPS = {"calls": run_calls, "ingest": run_ingest, "scan": run_scan}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("group", choices=sorted(GROUPS))
    # The metavar is what `ordo-bench compare` reads the engine choices from.
    parser.add_argument("--engine", required=True, choices=["ordo", "lmdb"],
                        metavar="TEXT:{ordo,lmdb}")
    parser.add_argument("--path", required=True)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--durable-commits", type=int, default=300)
    parser.add_argument("--reads", type=int, default=100_000)
    parser.add_argument("--module-path", default="",
                        help="directory to import the ordo module from (default: installed)")
    args = parser.parse_args()
    if args.module_path:
        sys.path.insert(0, args.module_path)
    figures = {}
    GROUPS[args.group](args, figures)
    doc = {"workload": "python-" + args.group, "engine": args.engine, "rows": args.rows,
           "key_bytes": KEY_BYTES, "value_bytes": VALUE_BYTES, "figures": figures}
    if args.json:
        print(json.dumps(doc))
    else:
        for name, value in figures.items():
            print(f"{name:<40} {value:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
