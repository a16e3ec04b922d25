"""The bulk paths: put_many, put_columns and scan_columns."""

import pytest

import ordo

np = pytest.importorskip("numpy")


def all_items(db, tree=None):
    with db.read() as txn:
        return list(txn.range(tree=tree))


def test_put_many_counts_chunks_and_append(db):
    rows = [(b"%06d" % i, b"v" * (i % 50)) for i in range(10000)]  # more than one chunk
    with db.write() as txn:
        assert txn.put_many(iter(rows)) == len(rows)
        assert txn.put_many([], tree=None) == 0
        t = txn.create_tree("sorted")
        assert txn.put_many(((k, v) for k, v in rows), tree=t, append=True) == len(rows)
        assert txn.put_many([[b"list", b"pair"], (bytearray(b"ba"), memoryview(b"mv"))]) == 2
    assert all_items(db, "sorted") == rows
    assert len(all_items(db)) == len(rows) + 2


def test_put_many_errors_name_the_row(db):
    with db.write() as txn:
        with pytest.raises(TypeError, match="row 2"):
            txn.put_many([(b"a", b"1"), (b"b", b"2"), (b"c",)])
        with pytest.raises(TypeError, match="row 1"):
            txn.put_many([(b"a", b"1"), ("str", b"2")])
        with pytest.raises(ordo.InvalidArgumentError, match="row 1"):
            txn.put_many([(b"a", b"1"), (b"k" * 5000, b"2")])
        with pytest.raises(ordo.InvalidArgumentError, match="row 1"):
            txn.put_many([(b"z", b"1"), (b"a", b"2")], append=True)
        with pytest.raises(ZeroDivisionError):
            txn.put_many((b"k", b"%d" % (1 // 0)) for _ in range(1))
        with pytest.raises(ordo.InvalidArgumentError):
            db.read().put_many([])


def test_put_columns_shapes_and_offsets(db):
    n = 1000
    keys = np.arange(n, dtype=">u8").view(np.uint8).reshape(n, 8)  # big-endian: sorted bytes
    sizes = np.arange(n) % 7
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    values = np.frombuffer(bytes(range(256)) * 20, np.uint8)[: offsets[-1]]
    with db.write() as txn:
        assert txn.put_columns(keys, values, offsets) == n
        t = txn.create_tree("flat")
        assert txn.put_columns(keys.tobytes(), values.tobytes(), offsets.astype(np.uint32),
                               key_width=8, tree=t, append=True) == n
        s = txn.create_tree("fixed")
        fixed = np.array([b"k%03d" % i for i in range(10)], dtype="S4")
        assert txn.put_columns(fixed, b"x" * 10, np.arange(11, dtype=np.int32), tree=s) == 10
    expect = [(keys[i].tobytes(), values[offsets[i]:offsets[i + 1]].tobytes()) for i in range(n)]
    assert all_items(db) == expect
    assert all_items(db, "flat") == expect
    assert all_items(db, "fixed") == [(b"k%03d" % i, b"x") for i in range(10)]


def test_put_columns_bad_input_changes_nothing(db):
    keys = np.zeros((3, 4), np.uint8)
    with db.write() as txn:
        with pytest.raises(ValueError, match="value_offsets"):
            txn.put_columns(keys, b"abc", np.array([0, 1, 2], np.int64))  # n + 1 needed
        with pytest.raises(ordo.InvalidArgumentError, match="out of order"):
            txn.put_columns(keys, b"abc", np.array([0, 2, 1, 3], np.int64))
        with pytest.raises(ordo.InvalidArgumentError, match="past the values"):
            txn.put_columns(keys, b"abc", np.array([0, 1, 2, 9], np.int64))
        with pytest.raises(TypeError, match="int64"):
            txn.put_columns(keys, b"abc", np.array([0, 1, 2, 3], np.float64))
        with pytest.raises(ValueError, match="key_width"):
            txn.put_columns(b"abcdef", b"abc", np.array([0, 1, 2, 3], np.int64))
        with pytest.raises(ValueError, match="multiple"):
            txn.put_columns(b"abcdefg", b"abc", np.array([0, 1, 2, 3], np.int64), key_width=2)
        assert list(txn.range()) == []


def test_scan_columns_batches_cover_the_range(db):
    rows = [(b"%05d" % i, b"v" * (i % 100)) for i in range(5000)]
    with db.write() as txn:
        txn.put_many(rows)
        txn.put(b"zz-longer-key", b"tail")
    with db.read() as txn:
        batches = list(txn.scan_columns(b"00100", b"04000", batch_bytes=16 << 10))
        assert len(batches) > 1
        got = [kv for b in batches for kv in b]
        assert got == rows[100:4000]
        b = batches[0]
        assert isinstance(b.value_data, np.ndarray) and b.key_offsets.dtype == np.int64
        assert b.key_width == 5 and b.keys.shape == (b.count, 5)
        assert len(b) == b.count and b.key(0) == b"00100" and b.value(1) == b"v"
        assert (np.diff(b.value_offsets) == [i % 100 for i in range(100, 100 + b.count)]).all()
        with pytest.raises(IndexError):
            b.key(b.count)
        last = list(txn.scan_columns(b"04999"))
        assert len(last) == 1 and last[0].key_width is None
        with pytest.raises(ordo.InvalidArgumentError):
            last[0].keys
        assert list(txn.scan_columns(b"zzz")) == []
    # A batch owns its buffers: readable after the txn, and ready for put_columns.
    with db.write() as txn:
        t = txn.create_tree("copy")
        for b in batches:
            txn.put_columns(b.keys, b.value_data, b.value_offsets, tree=t)
    assert all_items(db, "copy") == rows[100:4000]


def test_scan_columns_tree_and_errors(db):
    with db.read() as txn:
        with pytest.raises(ordo.NotFoundError):
            txn.scan_columns(tree="missing")
        it = txn.scan_columns()
    with pytest.raises(ordo.TxnEndedError):
        next(it)


def test_docs_example(db):
    keys = np.frombuffer(b"".join(i.to_bytes(8, "big") for i in range(1000)),
                         np.uint8).reshape(-1, 8)
    values = b"x" * 1000 * 32
    offsets = np.arange(0, 1001 * 32, 32, dtype=np.int64)
    with db.write() as txn:
        txn.put_columns(keys, values, offsets)
    with db.read() as txn:
        sizes = np.concatenate([np.diff(b.value_offsets)
                                for b in txn.scan_columns(batch_bytes=64 << 10)])
    assert len(sizes) == 1000 and (sizes == 32).all()


def test_put_columns_refuses_object_arrays(db):
    """A DataFrame's bytes column is an object array: its memory is pointers.
    put_columns names the column and the dtype, and writes nothing."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"key": [b"a", b"b"], "value": [b"x", b"yy"]})
    offsets = np.array([0, 1, 3], np.int64)
    with db.write() as txn:
        with pytest.raises(TypeError, match=r"values has dtype object.*pointers"):
            txn.put_columns(np.zeros((2, 1), np.uint8), frame["value"].to_numpy(), offsets)
        with pytest.raises(TypeError, match=r"keys has dtype object"):
            txn.put_columns(frame["key"].to_numpy(), b"xyy", offsets, key_width=1)
        with pytest.raises(TypeError, match=r"values has dtype float64.*bytes"):
            txn.put_columns(np.zeros((2, 1), np.uint8), np.zeros(3), offsets)
        with pytest.raises(TypeError, match=r"keys has dtype int32"):
            txn.put_columns(np.zeros(2, np.int32), b"xyy", offsets)
        assert list(txn.range()) == []
        assert txn.from_pandas(frame) == 2
    assert all_items(db) == [(b"a", b"x"), (b"b", b"yy")]


def test_put_columns_variable_keys_and_fixed_values(db):
    keys = b"a" + b"bb" + b"ccc"
    with db.write() as txn:
        assert txn.put_columns(keys, b"123456", np.array([0, 2, 4, 6]),
                               key_offsets=np.array([0, 1, 3, 6], np.int32)) == 3
        t = txn.create_tree("fixed")
        fixed_values = np.array([[1, 2], [3, 4]], np.uint8)
        assert txn.put_columns(np.array([b"k1", b"k2"], "S2"), fixed_values, tree=t) == 2
        with pytest.raises(ValueError, match="key_offsets or key_width, not both"):
            txn.put_columns(keys, b"x", np.array([0, 1]), key_offsets=np.array([0, 6]),
                            key_width=6)
        with pytest.raises(ordo.InvalidArgumentError, match=r"key_offsets\[2\] = 1 is out of order"):
            txn.put_columns(keys, b"123", np.array([0, 1, 2, 3]),
                            key_offsets=np.array([0, 2, 1, 6]))
        with pytest.raises(ValueError, match="3 keys need 3 values, got 2"):
            txn.put_columns(np.zeros((3, 2), np.uint8), np.zeros((2, 2), np.uint8))
    assert all_items(db) == [(b"a", b"12"), (b"bb", b"34"), (b"ccc", b"56")]
    assert all_items(db, "fixed") == [(b"k1", b"\x01\x02"), (b"k2", b"\x03\x04")]


def test_get_many(db):
    rows = [(b"%05d" % i, b"v%d" % i) for i in range(0, 10000, 2)]
    with db.write() as txn:
        txn.put_many(rows)
    wanted = [b"%05d" % i for i in range(0, 10000, 3)]  # more than a chunk; half missing
    expect = [b"v%d" % i if i % 2 == 0 else None for i in range(0, 10000, 3)]
    with db.read() as txn:
        assert txn.get_many(wanted) == expect
        assert txn.get_many(iter(wanted), default=b"-") == [v or b"-" for v in expect]
        assert txn.get_many(wanted, tree="missing") == [None] * len(wanted)
        assert txn.get_many([]) == []
        column = np.array(wanted, dtype="S5")  # fixed-width keys, no object per key
        assert txn.get_many(column) == expect
        assert txn.get_many(column.view(np.uint8).reshape(-1, 5)) == expect
        batch = txn.get_many(wanted, columns=True)
        assert batch.count == len(wanted) and batch.key_list() == wanted
        assert list(batch.found) == [v is not None for v in expect]
        assert batch.value_list() == [v or b"" for v in expect]
        with pytest.raises(TypeError, match="get_many: key 1"):
            txn.get_many([b"00000", "str"])
    with db.read(buffers=True) as txn:
        views = txn.get_many(wanted[:4])
        assert [bytes(v) if v is not None else None for v in views] == expect[:4]
        assert isinstance(views[0], memoryview)
    with db.write() as txn:  # a write txn sees its own writes
        txn.put(b"00001", b"odd")
        assert txn.get_many([b"00001", b"00002"]) == [b"odd", b"v2"]


def test_get_many_keys_sharing_a_prefix(db):
    # Keys that share a long prefix, of every length around it (one is the
    # prefix itself, one is empty): each value comes back at its key's place.
    import os
    import random

    seed = int(os.environ.get("ORDO_TEST_SEED", random.randrange(1 << 32)))
    print("seed", seed, "(set ORDO_TEST_SEED to replay)")
    rng = random.Random(seed)
    prefix = b"\x00" * 8 + b"shared"
    stored = {prefix + bytes(rng.randrange(4) for _ in range(rng.randrange(12))): b"%d" % i
              for i in range(3000)}
    stored[prefix] = b"the prefix"
    stored[b""] = b"empty"
    with db.write() as txn:
        txn.put_many(stored.items())
    wanted = list(stored) + [prefix + b"\x09", prefix[:-1]]  # two absent keys
    rng.shuffle(wanted)
    with db.read() as txn:
        assert txn.get_many(wanted) == [stored.get(k) for k in wanted]
        assert txn.get_many([prefix + b"\x09", prefix]) == [None, b"the prefix"]


class Interrupter:
    """Sends SIGINT to this process from another thread once the main thread
    releases the GIL: with a switch interval of minutes, the thread runs only
    when the main thread is inside a call that released the GIL."""

    def __init__(self, on_signal=lambda: None):
        import signal
        import sys
        import threading

        self.signal, self.sys, self.on_signal = signal, sys, on_signal
        self.go = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        import os

        self.go.wait()
        self.on_signal()
        os.kill(os.getpid(), self.signal.SIGINT)

    def __enter__(self):
        self.old_handler = self.signal.signal(self.signal.SIGINT, self.signal.default_int_handler)
        self.old_interval = self.sys.getswitchinterval()
        self.thread.start()
        self.sys.setswitchinterval(300)
        self.go.set()
        return self

    def __exit__(self, *exc):
        self.sys.setswitchinterval(self.old_interval)
        self.thread.join()
        self.signal.signal(self.signal.SIGINT, self.old_handler)
        return False


def test_interrupt_rolls_back_put_columns(db):
    n = 400000  # several chunks
    keys = np.arange(n, dtype=">u8").view(np.uint8).reshape(n, 8)
    offsets = np.arange(n + 1, dtype=np.int64)
    with db.write() as txn:
        txn.put(b"before", b"in the txn")
    txn = db.write()
    txn.put(b"same txn", b"rolled back too")
    with pytest.raises(KeyboardInterrupt):
        with Interrupter():
            txn.put_columns(keys, b"x" * n, offsets)
    with pytest.raises(ordo.TxnEndedError, match="interrupted"):
        txn.put(b"k", b"v")
    with db.read() as r:
        assert list(r.range()) == [(b"before", b"in the txn")]


def test_interrupt_rolls_back_put_many_within_a_chunk(db):
    pulled = []

    def rows():
        for i in range(200000):
            pulled.append(i)
            yield (b"%08d" % i, b"v")

    txn = db.write()
    at_signal = []
    with pytest.raises(KeyboardInterrupt):
        with Interrupter(lambda: at_signal.append(len(pulled))):
            txn.put_many(rows())
    # The signal came while a chunk was inserted (the GIL released); it is
    # seen as that insert ends: no row is read after it.
    assert at_signal[0] % 4096 == 0 and 0 < at_signal[0] < 200000
    assert len(pulled) == at_signal[0]
    assert not txn.live
    with db.read() as r:
        assert list(r.range()) == []


def test_interrupt_rolls_back_put_many_of_a_list(db):
    """A list is read without Python code: only the check between chunks sees
    the signal before put_many returns."""
    rows = [(b"%08d" % i, b"v") for i in range(200000)]
    txn = db.write()
    with pytest.raises(KeyboardInterrupt):
        with Interrupter():
            txn.put_many(rows)
    with pytest.raises(ordo.TxnEndedError, match="interrupted"):
        txn.commit()
    with db.read() as r:
        assert r.count() == 0
