"""Every call of the API, checked against what it must return."""

import os
import uuid

import pytest

import ordo


def test_put_get_delete_default_tree(db):
    with db.write() as txn:
        txn.put(b"a", b"1")
        txn[b"b"] = bytearray(b"2")
        txn.put(memoryview(b"c"), b"3")
        assert txn.get(b"a") == b"1"  # a write txn sees its own writes
    with db.read() as txn:
        assert txn.get(b"a") == b"1"
        assert txn[b"b"] == b"2"
        assert txn.get(b"c") == b"3"
        assert txn.get(b"zz") is None
        assert txn.get(b"zz", b"dflt") == b"dflt"
        assert b"a" in txn and b"zz" not in txn
        with pytest.raises(KeyError):
            txn[b"zz"]
    with db.write() as txn:
        assert txn.delete(b"a") is True
        assert txn.delete(b"a") is False
        del txn[b"b"]
        with pytest.raises(KeyError):
            del txn[b"b"]
    with db.read() as txn:
        assert list(txn.range()) == [(b"c", b"3")]


def test_context_manager_commits_and_aborts(db):
    with db.write() as txn:
        txn.put(b"k", b"kept")
    with pytest.raises(RuntimeError):
        with db.write() as txn:
            txn.put(b"k", b"lost")
            raise RuntimeError("boom")
    with db.read() as txn:
        assert txn[b"k"] == b"kept"


def test_explicit_commit_abort(db):
    txn = db.write()
    txn.put(b"x", b"1")
    txn.abort()
    assert not txn.live
    txn.abort()  # nothing on an ended txn
    txn = db.write()
    assert txn.write and txn.live and txn.id > 0
    txn.put(b"y", b"2")
    txn.commit()
    with db.read() as r:
        assert r.get(b"x") is None and r.get(b"y") == b"2"
        assert not r.write


def test_begin_like_py_lmdb(db):
    with db.begin(write=True) as txn:
        txn.put(b"k", b"v")
    with db.begin() as txn:
        assert txn.get(b"k") == b"v"
    with pytest.raises(ordo.InvalidArgumentError):
        db.begin(write=True, buffers=True)


def test_delete_range_and_append(db):
    with db.write() as txn:
        for i in range(10):
            txn.append(b"k%02d" % i, b"v%d" % i)
        with pytest.raises(ordo.InvalidArgumentError):
            txn.append(b"a", b"not after the last key")
        assert txn.delete_range(b"k02", b"k05") == 3
        assert txn.delete_range(b"k08") == 2  # to the end
        assert txn.delete_range(b"k05", b"k05") == 0
    with db.read() as txn:
        assert [k for k, _ in txn.range()] == [b"k00", b"k01", b"k05", b"k06", b"k07"]
    with db.write() as txn:
        assert txn.delete_range() == 5
        assert list(txn.range()) == []


def test_trees(db):
    t = db.tree("nodes")
    assert t.name == b"nodes" and t == db.tree("nodes")
    with db.write() as txn:
        txn.put(b"k", b"in nodes", tree=t)
        txn.put(b"k", b"in edges", tree=txn.create_tree(b"edges"))
        txn.put(b"k", b"default")
        assert txn.list_trees() == [b"edges", b"nodes"]
    with db.read() as txn:
        assert txn.get(b"k", tree="nodes") == b"in nodes"
        assert txn.get(b"k", tree=txn.open_tree("edges")) == b"in edges"
        assert txn.get(b"k") == b"default"
        assert txn.get(b"k", tree="missing") is None
        with pytest.raises(ordo.NotFoundError):
            txn.open_tree("missing")
        assert txn.tree_stats("nodes")["entries"] == 1
    with db.write() as txn:
        txn.rename_tree("edges", "links")
        txn.drop_tree("nodes")
        with pytest.raises(ordo.NotFoundError):
            txn.drop_tree("nodes")
        with pytest.raises(ordo.NotFoundError):
            txn.put(b"k", b"v", tree="nodes")
        assert txn.list_trees() == [b"links"]
    with pytest.raises(ordo.NotFoundError):
        db.tree("nodes", create=False)


def test_cursor(db):
    with db.write() as txn:
        for k in [b"b", b"d", b"f"]:
            txn.put(k, k.upper())
    with db.read() as txn:
        c = txn.cursor()
        assert c.key() is None and not c.valid
        assert c.first() and c.item() == (b"b", b"B")
        assert c.next() and c.key() == b"d"
        assert c.prev() and c.key() == b"b"
        assert not c.prev()
        assert c.last() and c.value() == b"F"
        assert not c.next()
        assert c.seek(b"c") and c.key() == b"d"
        assert list(c) == [(b"d", b"D"), (b"f", b"F")]  # from the current entry
        assert not c.seek(b"g")
        assert list(txn.cursor()) == [(b"b", b"B"), (b"d", b"D"), (b"f", b"F")]
    with db.write() as txn:
        c = txn.cursor()
        c.first()
        c.delete()
        assert c.key() == b"d"
        c.put(b"e", b"E")
        assert c.key() == b"e"
    with db.read() as txn:
        assert [k for k, _ in txn.range()] == [b"d", b"e", b"f"]


def test_range_and_prefix(db):
    with db.write() as txn:
        txn.put_many((b"%s%d" % (p, i), b"x") for p in (b"a", b"b", b"c") for i in range(3))
        txn.put(b"b\xff", b"y")
    with db.read() as txn:
        assert [k for k, _ in txn.range(b"a2", b"b1")] == [b"a2", b"b0"]
        assert [k for k, _ in txn.range(stop=b"a1")] == [b"a0"]
        assert [k for k, _ in txn.prefix(b"b")] == [b"b0", b"b1", b"b2", b"b\xff"]
        assert len(list(txn.prefix(b""))) == 10


def test_ids(db):
    with db.write() as txn:
        a, b = txn.next_id(), txn.next_id()
        assert isinstance(a, uuid.UUID) and a.version == 7 and a.bytes < b.bytes
        x, y = txn.next_id64(), txn.next_id64()
        assert 0 < x < y
        txn.put(b.bytes, b"node")
    assert db.info()["id_high_water"] == b


def test_batch(db):
    def fn(txn):
        txn.put(b"k", b"v")
        return 42

    assert db.batch(fn) == 42
    with db.read() as txn:
        assert txn[b"k"] == b"v"

    kept = []

    def fails(txn):
        kept.append(txn)
        txn.put(b"k", b"rolled back")
        raise ValueError("mine")

    with pytest.raises(ValueError, match="mine"):
        db.batch(fails)
    with db.read() as txn:
        assert txn[b"k"] == b"v"
    with pytest.raises(ordo.TxnEndedError):
        kept[0].get(b"k")  # the lent txn is over once batch() returned

    def commits(txn):
        txn.commit()

    with pytest.raises(ordo.InvalidArgumentError):
        db.batch(commits)


def test_info_stats_check_copy(db, tmp_path):
    with db.write() as txn:
        txn.put_many((b"%04d" % i, b"v" * 100) for i in range(500))
    info = db.info()
    assert info["path"] == db.path and info["page_size_bytes"] == 4096 and info["txn_id"] >= 1
    assert db.stats()["commits"] == 1
    report = db.check()
    assert report["clean"] and report["entries"] == 500
    copy = str(tmp_path / "copy.ordo")
    assert db.copy(copy, compact=True)["entries"] == 500
    with pytest.raises(ordo.InvalidArgumentError):
        db.copy(copy)  # exists
    with ordo.open(copy, read_only=True) as c, c.read() as txn:
        assert txn[b"0499"] == b"v" * 100
    db.checkpoint()
    assert db.page_size_bytes == 4096 and db.max_key_bytes == 1000
    assert db.max_value_bytes == 128 << 20


def test_reset_renew(db):
    with db.write() as w:
        w.put(b"k", b"1")
    txn = db.read()
    txn.reset()
    with pytest.raises(ordo.TxnEndedError):
        txn.get(b"k")
    with db.write() as w:
        w.put(b"k", b"2")
    txn.renew()
    assert txn.get(b"k") == b"2"
    txn.abort()


def test_version():
    assert ordo.__version__.count(".") == 2


def test_open_options(tmp_path):
    p = tmp_path / "opts.ordo"
    with ordo.open(p, page_size_bytes=8192, sync_commits=False, commit_protocol="two_sync",
                   io_backend="posix", append_fill=0.9, id_node=3) as db:
        assert db.page_size_bytes == 8192
        assert db.info()["io_backend"] == "posix"
    with pytest.raises(TypeError, match="bogus"):
        ordo.open(p, bogus=1)
    with pytest.raises(TypeError):
        ordo.open(p, sync_commits=1)
    with pytest.raises(ValueError):
        ordo.open(p, commit_protocol="fast")
    with pytest.raises(ordo.NotFoundError):
        ordo.open(tmp_path / "absent.ordo", create_if_missing=False)
    with pytest.raises(ordo.InvalidArgumentError):
        ordo.open(p, page_size_bytes=4096)  # the file's page size is 8192


def test_not_ordo_file_and_corruption(tmp_path):
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a database" * 1000)
    with pytest.raises(ordo.NotOrdoFileError) as e:
        ordo.open(junk)
    assert e.value.code == "NotOrdoFile" and "junk" in e.value.message

    p = str(tmp_path / "damaged.ordo")
    with ordo.open(p, trim_on_close=True) as db:
        with db.write() as txn:
            txn.put_many((b"%06d" % i, b"x" * 200) for i in range(2000))
        db.checkpoint()
    size = os.path.getsize(p)
    with open(p, "r+b") as f:  # damage a page of the tree (past the metas and the log)
        f.seek(size - 3 * 4096 + 100)
        f.write(b"\xa5" * 64)
    with ordo.open(p) as db:
        with pytest.raises(ordo.CorruptionError) as e:
            db.check()
        assert e.value.report["problems"] and not e.value.report["clean"]
        assert not db.check(strict=False)["clean"]


def test_errors_carry_code_and_message(db):
    with db.write() as txn:
        with pytest.raises(ordo.InvalidArgumentError) as e:
            txn.put(b"k" * 5000, b"v")
        assert isinstance(e.value, ValueError) and isinstance(e.value, ordo.Error)
        assert e.value.code == "InvalidArgument" and "key" in str(e.value)
        with pytest.raises(TypeError):
            txn.put("str key", b"v")
        with pytest.raises(TypeError):
            txn.put(b"k", 12)
    assert issubclass(ordo.IOError, OSError) and issubclass(ordo.NotFoundError, KeyError)
