"""Arrow without pyarrow: the PyCapsule interface out of scans and batches and
into Txn.put_arrow, checked by a consumer and a producer written against the
C data interface specification (arrow_c.py, ctypes); and pandas round trips
through Txn.to_pandas / Txn.from_pandas."""

import gc

import pytest

import arrow_c
import ordo


def fill(db, n=1000):
    rows = [(b"k%05d" % i, b"v" * (i % 37)) for i in range(n)]
    with db.write() as txn:
        txn.put_many(rows)
    return rows


def test_batch_exports_a_record_batch(db):
    rows = fill(db)
    with db.read() as txn:
        batches = list(txn.scan_columns(batch_bytes=8 << 10))
    assert len(batches) > 1
    got = []
    for b in batches:  # the batches outlive their txn; each export is checked
        columns = arrow_c.consume_array(b)
        assert list(columns) == ["key", "value"]
        got += zip(columns["key"], columns["value"])
    assert got == rows
    schema_capsule, _ = batches[0].__arrow_c_array__()
    schema = arrow_c.move_out(schema_capsule, "arrow_schema", arrow_c.ArrowSchema)
    assert arrow_c.read_schema(schema) == ("+s", "", [("Z", "key", []), ("Z", "value", [])])
    arrow_c.release(schema)


def test_exported_buffers_outlive_the_batch_and_capsule(db):
    """An array moved out of its capsule keeps the batch's buffers after the
    batch object is gone; a child moved out of its parent keeps its own."""
    fill(db, 50)
    with db.read() as txn:
        batch = next(iter(txn.scan_columns()))
    _, array_capsule = batch.__arrow_c_array__()
    array = arrow_c.move_out(array_capsule, "arrow_array", arrow_c.ArrowArray)
    del batch, array_capsule
    gc.collect()
    values = arrow_c.read_binary(array.children[1].contents, "Z")
    assert values[3] == b"vvv" and len(values) == 50
    child = arrow_c.ArrowArray()  # moved out: the parent no longer releases it
    arrow_c.ctypes.memmove(arrow_c.ctypes.byref(child), array.children[0], arrow_c.ctypes.sizeof(child))
    array.children[0].contents.release = type(child.release)()
    arrow_c.release(array)
    assert arrow_c.read_binary(child, "Z")[49] == b"k00049"
    arrow_c.release(child)


def test_scan_exports_a_stream(db):
    rows = fill(db, 3000)
    with db.read() as txn:
        batches = arrow_c.consume_stream(txn.scan_columns(b"k00100", b"k02900", batch_bytes=8 << 10))
        assert len(batches) > 1
        assert [kv for b in batches for kv in zip(b["key"], b["value"])] == rows[100:2900]
        assert arrow_c.consume_stream(txn.scan_columns(b"zz")) == []
        late = txn.scan_columns()
    # A stream read after its txn ended reports the error through get_last_error.
    with pytest.raises(OSError, match="TxnEnded|ended|committed"):
        arrow_c.consume_stream(late)


def test_put_arrow_formats(db):
    producer = arrow_c.Producer([
        ("key", "z", [b"b", b"a", b"c"]),
        ("value", "U", [b"2", b"1", b"3"]),
    ])
    with db.write() as txn:
        assert txn.put_arrow(producer) == 3
        ints = txn.create_tree("ints")
        signed = arrow_c.Producer([("v", "w:2", [b"aa", b"bb", b"cc", b"dd"]),
                                   ("k", "l", [-2, 5, -(1 << 63), 0])])
        assert txn.put_arrow(signed, key="k", value="v", tree=ints) == 4
        unsigned = arrow_c.Producer([("k", "S", [3, 1, 65535]), ("v", "u", [b"x", b"y", b"z"])])
        assert txn.put_arrow(unsigned, tree=txn.create_tree("u16")) == 3
        shifted = arrow_c.Producer([("k", "Z", [b"p", b"q"]), ("v", "z", [b"1", b"2"])], offset=2)
        assert txn.put_arrow(shifted, tree=txn.create_tree("offset")) == 2
    assert producer.released == {"schema": 1, "array": 1, "stream": 0}
    with db.read() as txn:
        assert list(txn.range()) == [(b"a", b"1"), (b"b", b"2"), (b"c", b"3")]
        # Integer keys sort as their numbers: big-endian, sign bit flipped.
        assert list(txn.range(tree="ints", keys=False)) == [b"cc", b"aa", b"dd", b"bb"]
        assert txn.to_pandas(tree="ints", key_dtype="int64")["key"].tolist() == [
            -(1 << 63), -2, 0, 5]
        assert [k for k, _ in txn.range(tree="u16")] == [b"\x00\x01", b"\x00\x03", b"\xff\xff"]
        assert list(txn.range(tree="offset")) == [(b"p", b"1"), (b"q", b"2")]


def test_put_arrow_stream_and_round_trip(db):
    stream = arrow_c.StreamProducer([("k", "z", [b"x", b"y"]), ("v", "Z", [b"1", b"2"])], 3)
    with db.write() as txn:
        assert txn.put_arrow(stream, key="k", value="v") == 6  # the same rows 3 times
    assert stream.released == {"schema": 1, "array": 3, "stream": 1}
    rows = fill(db, 2000)
    with db.read() as src, db.write() as dst:
        copy = dst.create_tree("copy")
        assert dst.put_arrow(src.scan_columns(batch_bytes=4096), tree=copy) == 2002
        batch = next(iter(src.scan_columns(b"k", b"k00010")))
        assert dst.put_arrow(batch, tree=dst.create_tree("one")) == 10
    with db.read() as txn:
        assert list(txn.range(b"k", b"l", tree="copy")) == rows
        assert len(list(txn.range(tree="one"))) == 10


def test_put_arrow_refuses_what_it_cannot_store(db):
    with db.write() as txn:
        nulls = arrow_c.Producer([("key", "z", [b"a", None]), ("value", "z", [b"1", b"2"])])
        with pytest.raises(ValueError, match="row 1: the key is null"):
            txn.put_arrow(nulls)
        assert nulls.released["array"] == 1 and nulls.released["schema"] == 1
        floats = arrow_c.Producer([("key", "g", [1, 2]), ("value", "z", [b"1", b"2"])])
        with pytest.raises(TypeError, match="format 'g'"):
            txn.put_arrow(floats)
        int_values = arrow_c.Producer([("key", "z", [b"a"]), ("value", "l", [1])])
        with pytest.raises(TypeError, match="the value column has Arrow format 'l'"):
            txn.put_arrow(int_values)
        with pytest.raises(KeyError, match="no column named 'nope'"):
            txn.put_arrow(arrow_c.Producer([("k", "z", [b"a"]), ("v", "z", [b"1"])]), key="nope")
        with pytest.raises(IndexError):
            txn.put_arrow(arrow_c.Producer([("k", "z", [b"a"]), ("v", "z", [b"1"])]), value=5)
        with pytest.raises(TypeError, match="neither __arrow_c_stream__"):
            txn.put_arrow([(b"k", b"v")])
        assert list(txn.range()) == []


def test_pandas_round_trip(db):
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    frame = pd.DataFrame({"key": [b"b", b"a", b"c"], "value": ["two", "one", "three"]})
    ints = pd.DataFrame({"id": np.array([5, -1, 3], np.int64), "payload": [b"x", b"y", b"z"]})
    with db.write() as txn:
        assert txn.from_pandas(frame) == 3
        assert txn.from_pandas(ints, key="id", value="payload",
                               tree=txn.create_tree("ints")) == 3
        with pytest.raises(ValueError, match="row 1: the value is missing"):
            txn.from_pandas(pd.DataFrame({"key": [b"k", b"l"], "value": [b"v", None]}))
        with pytest.raises(TypeError, match="row 0: the key is a float"):
            txn.from_pandas(pd.DataFrame({"key": [1.5], "value": [b"v"]}).astype(object))
    with db.read() as txn:
        out = txn.to_pandas()
        assert out["key"].tolist() == [b"a", b"b", b"c"]
        assert out["value"].tolist() == [b"one", b"two", b"three"]
        back = txn.to_pandas(tree="ints", key_dtype="int64")
        assert back["key"].tolist() == [-1, 3, 5] and back["key"].dtype == np.int64
        assert back["value"].tolist() == [b"y", b"z", b"x"]
        assert txn.to_pandas(b"zz").empty
        with pytest.raises(ValueError, match="key_dtype int32 needs keys of 4 bytes"):
            txn.to_pandas(tree="ints", key_dtype="int32")
