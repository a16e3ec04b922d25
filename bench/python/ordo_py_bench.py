#!/usr/bin/python3
"""One run of the Python study (docs/BENCHMARKS.md, "From Python"): ordo's
Python package or py-lmdb, one group of phases in a fresh process, figures as
the JSON document `ordo-bench compare` reads from a child run.

  ordo_py_bench.py GROUP --engine ordo|lmdb --path DIR [--json] [--rows N]
                   [--calls N] [--commits N] [--durable-commits N]
                   [--reads N] [--module-path DIR]

Keys are 16-byte big-endian counters, values 100 bytes. Every phase reports
its rows (or calls) per second of wall time (`_per_s`; the one-row phases
microseconds per call, `_us`) and CPU time per row (`_cpu_us_per_row`:
process CPU time, all threads). Phases with a memory figure also report, in
MiB above the RssAnon / RssFile of /proc/self/status before the database was
opened, the peak (sampled every millisecond by a thread) and the value at the
phase's end.

calls     one-row calls on a file of 1,000 rows: a get in its own read txn
          (ordo `with db.read()`, py-lmdb `with env.begin()`), Database.get
          (py-lmdb: its own txn again), a get in one long txn, with
          buffers=True, cursor iteration (bytes and buffers), put + commit
          not durable and durable.
ingest    N rows at once into a fresh file (ordo put_many, py-lmdb
          Cursor.putmulti), then the commit, then close.
columns   the same rows from numpy columns (ordo put_columns; py-lmdb has no
          columnar call: putmulti over the columns sliced row by row).
ingest5m  as ingest with 5,000,000 rows.
getmany   100,000 random keys of a file of N rows: ordo get_many, py-lmdb a
          loop of get.
scan      a file of N rows built by another process, then in this one: a
          streaming scan (ordo scan_columns, py-lmdb a cursor walk, keeping
          nothing), the whole range into numpy columns (key and value bytes
          with int64 offsets; py-lmdb's fastest way found: iternext into
          lists, joined), into Arrow record batches through the PyCapsule
          interface (numpy arrays over the exported buffers; py-lmdb: its
          numpy columns again), into a list of (key, value) tuples, and
          random point reads in one txn.
"""
import argparse
import ctypes
import json
import os
import random
import subprocess
import sys
import threading
import time

KEY_BYTES = 16
VALUE_BYTES = 100
MAP_SIZE_BYTES = 16 << 30
GET_MANY_KEYS = 100_000


def memory_kib():
    """(RssAnon, RssFile) of this process in KiB."""
    anon = file = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                anon = int(line.split()[1])
            elif line.startswith("RssFile:"):
                file = int(line.split()[1])
    return anon, file


class Phase:
    """Times one phase: wall and CPU time; with `base` (memory_kib() before
    the database was opened), the peak and final RssAnon and RssFile above it."""

    def __init__(self, figures, name, rows, base=None, per_call=False):
        self.figures, self.name, self.rows, self.base = figures, name, rows, base
        self.per_call = per_call

    def _sample(self):
        while not self.done.wait(0.001):
            anon, file = memory_kib()
            self.peak = (max(self.peak[0], anon), max(self.peak[1], file))

    def __enter__(self):
        if self.base is not None:
            self.peak = memory_kib()
            self.done = threading.Event()
            self.sampler = threading.Thread(target=self._sample, daemon=True)
            self.sampler.start()
        self.cpu0 = time.process_time()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        seconds = time.perf_counter() - self.t0
        cpu = time.process_time() - self.cpu0
        f, n = self.figures, self.name
        if self.per_call:
            f[n + "_us"] = seconds / self.rows * 1e6
        else:
            f[n + "_per_s"] = self.rows / seconds
        f[n + "_cpu_us_per_row"] = cpu / self.rows * 1e6
        if self.base is not None:
            self.done.set()
            self.sampler.join()
            end = memory_kib()
            peak = (max(self.peak[0], end[0]), max(self.peak[1], end[1]))
            for kind, i in (("anon", 0), ("file", 1)):
                f[f"{n}_rss_{kind}_peak_mib"] = round((peak[i] - self.base[i]) / 1024, 1)
                f[f"{n}_rss_{kind}_steady_mib"] = round((end[i] - self.base[i]) / 1024, 1)
        self.seconds = seconds
        return False


def note_memory(figures, name, base):
    """RssAnon and RssFile now, in MiB above `base`."""
    anon, file = memory_kib()
    figures[name + "_rss_anon_mib"] = round((anon - base[0]) / 1024, 1)
    figures[name + "_rss_file_mib"] = round((file - base[1]) / 1024, 1)


def key(i):
    return i.to_bytes(KEY_BYTES, "big")


def make_values(n, seed):
    rng = random.Random(seed)
    blob = rng.randbytes(VALUE_BYTES * 1024)
    return [blob[(i % 1024) * VALUE_BYTES:(i % 1024 + 1) * VALUE_BYTES] for i in range(n)]


def make_rows(n, seed):
    values = make_values(n, seed)
    return [(key(i), values[i]) for i in range(n)]


# --- engines: the same few calls over ordo and py-lmdb ---------------------

class OrdoEngine:
    name = "ordo"

    def __init__(self, path, durable=True):
        import ordo
        self.db = ordo.open(os.path.join(path, "study.ordo"), sync_commits=durable)

    def close(self):
        self.db.close()

    def write(self):
        return self.db.write()

    def read(self, buffers=False):
        return self.db.read(buffers=buffers)

    def get_one_shot(self, k):
        return self.db.get(k)

    def put_many(self, txn, rows):
        txn.put_many(rows)

    def put_columns(self, txn, keys, values, offsets):
        txn.put_columns(keys, values, offsets)

    def get_many(self, txn, keys):
        return txn.get_many(keys)

    def scan_stream(self, txn):
        rows = 0
        for batch in txn.scan_columns():
            rows += batch.count
        return rows

    def scan_numpy(self, txn):
        return concatenate([(b.key_data, b.key_offsets, b.value_data, b.value_offsets)
                            for b in txn.scan_columns()])

    def scan_arrow(self, txn):
        return ArrowTable(txn.scan_columns())

    def scan_objects(self, txn):
        return list(txn.range())


class LmdbEngine:
    name = "lmdb"

    def __init__(self, path, durable=True):
        import lmdb
        self.env = lmdb.open(os.path.join(path, "study.lmdb"), map_size=MAP_SIZE_BYTES,
                             sync=durable, metasync=durable)

    def close(self):
        self.env.close()

    def write(self):
        return self.env.begin(write=True)

    def read(self, buffers=False):
        return self.env.begin(buffers=buffers)

    def get_one_shot(self, k):
        with self.env.begin() as txn:
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

    def get_many(self, txn, keys):
        get = txn.get
        return [get(k) for k in keys]

    def scan_stream(self, txn):
        rows = 0
        for _ in txn.cursor():
            rows += 1
        return rows

    def scan_numpy(self, txn):
        # The fastest of the ways tried: keys, then values, each by one
        # iternext into a list, then joined.
        c = txn.cursor()
        keys = list(c.iternext(values=False))
        values = list(c.iternext(keys=False)) if c.first() else []
        return columns_of_lists(keys, values)

    scan_arrow = scan_numpy  # no Arrow export: the same columns

    def scan_objects(self, txn):
        return list(txn.cursor())


def columns_of_lists(keys, values):
    import numpy as np

    def column(items):
        offsets = np.zeros(len(items) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, items), dtype=np.int64, count=len(items)), out=offsets[1:])
        return np.frombuffer(b"".join(items), dtype=np.uint8), offsets
    return column(keys) + column(values)


def concatenate(batches):
    """One set of columns (key data, key offsets, value data, value offsets)
    from the columns of batches."""
    import numpy as np
    out = []
    for data_i, offsets_i in ((0, 1), (2, 3)):
        datas = [b[data_i] for b in batches]
        shifts = np.cumsum([0] + [len(d) for d in datas[:-1]])
        offsets = [batches[0][offsets_i][:1]] + [b[offsets_i][1:] + s
                                                 for b, s in zip(batches, shifts)]
        out += [np.concatenate(datas), np.concatenate(offsets)]
    return out


class ArrowTable:
    """Record batches taken through __arrow_c_stream__ as a consumer of the
    Arrow C stream interface takes them: numpy arrays over each batch's
    exported buffers (no copy), each batch released when the table goes."""

    def __init__(self, source):
        import numpy as np
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                        "python", "tests"))
        import arrow_c
        self.arrow_c = arrow_c
        self.stream = arrow_c.move_out(source.__arrow_c_stream__(), "arrow_array_stream",
                                       arrow_c.ArrowArrayStream)
        self.batches, self.columns = [], []
        while True:
            array = arrow_c.ArrowArray()
            if self.stream.get_next(ctypes.byref(self.stream), ctypes.byref(array)) != 0:
                raise RuntimeError(self.stream.get_last_error(ctypes.byref(self.stream)))
            if not array.release:
                break
            self.batches.append(array)
            n = array.length
            columns = []
            for c in range(array.n_children):
                child = array.children[c].contents
                offsets = np.ctypeslib.as_array(
                    ctypes.cast(child.buffers[1], ctypes.POINTER(ctypes.c_int64)), (n + 1,))
                data = np.ctypeslib.as_array(
                    ctypes.cast(child.buffers[2], ctypes.POINTER(ctypes.c_uint8)),
                    (int(offsets[-1]),)) if offsets[-1] > 0 else np.empty(0, np.uint8)
                columns += [data, offsets]
            self.columns.append(columns)

    def __len__(self):
        return sum(b.length for b in self.batches)

    def release(self):
        for b in self.batches:
            self.arrow_c.release(b)
        self.arrow_c.release(self.stream)


def open_engine(args, path, durable=True):
    os.makedirs(path, exist_ok=True)
    return (OrdoEngine if args.engine == "ordo" else LmdbEngine)(path, durable)


def fill(engine, rows):
    with engine.write() as txn:
        engine.put_many(txn, rows)


# --- phase groups -----------------------------------------------------------

def run_calls(args, figures):
    engine = open_engine(args, os.path.join(args.path, "calls"), durable=False)
    fill(engine, make_rows(1000, 1))
    keys = [key(i) for i in range(1000)]
    values = make_values(1000, 1)
    own = args.calls // 5
    with Phase(figures, "get_own_txn", own, per_call=True):
        read = engine.read
        for i in range(own):
            with read() as txn:
                txn.get(keys[i % 1000])
    with Phase(figures, "get_one_shot", own, per_call=True):
        get = engine.get_one_shot
        for i in range(own):
            get(keys[i % 1000])
    for name, buffers in (("get_txn", False), ("get_buffers", True)):
        with engine.read(buffers=buffers) as txn:
            with Phase(figures, name, args.calls, per_call=True):
                get = txn.get
                for i in range(args.calls):
                    get(keys[i % 1000])
    for name, buffers in (("cursor_iter", False), ("cursor_iter_buffers", True)):
        with engine.read(buffers=buffers) as txn:
            with Phase(figures, name, args.calls, per_call=True):
                seen = 0
                while seen < args.calls:
                    for _ in txn.cursor():
                        seen += 1
                        if seen == args.calls:
                            break
    with Phase(figures, "put_commit_nondurable", args.commits, per_call=True):
        for i in range(args.commits):
            with engine.write() as txn:
                txn.put(key(2000 + i), values[i % 1000])
    engine.close()
    engine = open_engine(args, os.path.join(args.path, "durable"), durable=True)
    with Phase(figures, "put_commit_durable", args.durable_commits, per_call=True):
        for i in range(args.durable_commits):
            with engine.write() as txn:
                txn.put(key(i), values[i % 1000])
    engine.close()


def ingest_phases(args, figures, name, rows, load):
    """Open a fresh file; `load(engine, txn)` measured as the phase `name`;
    then the commit and the close, each with its memory."""
    import gc
    gc.collect()
    base = memory_kib()
    engine = open_engine(args, os.path.join(args.path, name))
    txn = engine.write()
    with Phase(figures, name, rows, base=base):
        load(engine, txn)
    with Phase(figures, name + "_commit", rows, base=base):
        txn.commit()
    del txn
    engine.close()
    del engine
    gc.collect()
    note_memory(figures, name + "_closed", base)


def run_ingest(args, figures, rows_n=None, name="ingest"):
    n = rows_n or args.rows
    rows = make_rows(n, 2)
    ingest_phases(args, figures, name, n, lambda engine, txn: engine.put_many(txn, rows))


def run_ingest5m(args, figures):
    run_ingest(args, figures, 5_000_000, "ingest5m")


def run_columns(args, figures):
    import numpy as np
    n = args.rows
    values = make_values(n, 2)
    keys = np.zeros((n, KEY_BYTES), dtype=np.uint8)
    keys[:, 8:] = np.arange(n, dtype=">u8").view(np.uint8).reshape(n, 8)
    data = np.frombuffer(b"".join(values), dtype=np.uint8)
    offsets = np.arange(0, (n + 1) * VALUE_BYTES, VALUE_BYTES, dtype=np.int64)
    del values
    ingest_phases(args, figures, "columns", n,
                  lambda engine, txn: engine.put_columns(txn, keys, data, offsets))


def run_getmany(args, figures):
    n = args.rows
    engine = open_engine(args, os.path.join(args.path, "getmany"))
    fill(engine, make_rows(n, 4))
    rng = random.Random(5)
    wanted = [key(rng.randrange(n)) for _ in range(GET_MANY_KEYS)]
    with engine.read() as txn:
        with Phase(figures, "get_many", len(wanted)):
            got = engine.get_many(txn, wanted)
    assert len(got) == len(wanted) and all(v is not None for v in got)
    engine.close()


def run_scan(args, figures):
    import gc

    import numpy  # noqa: F401 - imported before the baseline: its memory is not the scan's
    n = args.rows
    path = os.path.join(args.path, "scan")
    # The file, built by another process: this one starts the scan fresh.
    subprocess.run([sys.executable, os.path.abspath(__file__), "build", "--engine", args.engine,
                    "--path", path, "--rows", str(n), "--module-path", args.module_path],
                   check=True)
    gc.collect()
    base = memory_kib()
    engine = open_engine(args, path)
    with engine.read() as txn:
        with Phase(figures, "scan_stream", n, base=base):
            assert engine.scan_stream(txn) == n
    for name in ("scan_numpy", "scan_arrow"):
        with engine.read() as txn:
            with Phase(figures, name, n):
                table = getattr(engine, name)(txn)
            rows = len(table) if isinstance(table, ArrowTable) else len(table[1]) - 1
            assert rows == n, rows
            if isinstance(table, ArrowTable):
                table.release()
            del table
    with engine.read() as txn:
        with Phase(figures, "scan_objects", n):
            got = engine.scan_objects(txn)
        assert len(got) == n
        del got
    rng = random.Random(4)
    wanted = [key(rng.randrange(n)) for _ in range(args.reads)]
    with engine.read() as txn:
        with Phase(figures, "point_reads", args.reads):
            get = txn.get
            for k in wanted:
                get(k)
    engine.close()


def run_build(args, figures):
    engine = open_engine(args, args.path)
    fill(engine, make_rows(args.rows, 3))
    engine.close()


GROUPS = {"calls": run_calls, "ingest": run_ingest, "columns": run_columns,
          "ingest5m": run_ingest5m, "getmany": run_getmany, "scan": run_scan,
          "build": run_build}


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
    # The engine's module loaded before any phase takes its memory baseline:
    # the module's own memory is no phase's.
    __import__("ordo" if args.engine == "ordo" else "lmdb")
    figures = {}
    GROUPS[args.group](args, figures)
    doc = {"workload": "python-" + args.group, "engine": args.engine, "rows": args.rows,
           "key_bytes": KEY_BYTES, "value_bytes": VALUE_BYTES, "figures": figures}
    if args.json:
        print(json.dumps(doc))
    elif figures:
        for name, value in figures.items():
            print(f"{name:40s} {value:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
