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
