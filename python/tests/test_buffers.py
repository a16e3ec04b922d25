"""Zero-copy reads: read(buffers=True) hands out memoryviews that are released
when the txn ends (using one then raises), over a mapping kept alive while any
export of them exists."""

import gc

import pytest

import ordo

np = pytest.importorskip("numpy")


def fill(db):
    with db.write() as txn:
        txn.put(b"small", b"abc")
        txn.put(b"large", bytes(range(256)) * 64)  # an overflow value


def test_views_read_the_values(db):
    fill(db)
    with db.read(buffers=True) as txn:
        assert txn.buffers
        v = txn.get(b"large")
        assert isinstance(v, memoryview) and v.readonly
        assert bytes(v) == bytes(range(256)) * 64
        k, val = next(iter(txn.range()))
        assert isinstance(k, memoryview) and bytes(k) == b"large"
        with pytest.raises(TypeError):
            v[0] = 1


def test_view_after_txn_end_raises(db):
    fill(db)
    with db.read(buffers=True) as txn:
        v = txn.get(b"small")
        c = txn.cursor()
        c.first()
        key = c.key()
    for use in (lambda: bytes(v), lambda: v[0], lambda: len(key), lambda: v.tobytes()):
        with pytest.raises(ValueError, match="released"):
            use()


def test_views_released_by_reset_abort_and_close(path):
    db = ordo.open(path)
    fill(db)
    txn = db.read(buffers=True)
    v = txn.get(b"small")
    txn.reset()
    with pytest.raises(ValueError):
        bytes(v)
    txn.renew()
    v = txn.get(b"small")
    db.close()
    with pytest.raises(ValueError):
        bytes(v)


def test_derived_exports_stay_readable(path):
    """A view with exports of its own (a numpy array over it) cannot be
    released; the array keeps the mapping alive and stays readable after the
    txn and even the database are closed (its bytes may then change)."""
    db = ordo.open(path)
    fill(db)
    with db.read(buffers=True) as txn:
        arr = np.frombuffer(txn.get(b"large"), dtype=np.uint8)
        part = txn.get(b"large")[10:20]  # a slice shares the view's buffer
    db.close()
    gc.collect()
    assert arr.sum() == sum(range(256)) * 64
    assert len(bytes(part)) == 10


def test_bytes_by_default(db):
    fill(db)
    with db.read() as txn:
        v = txn.get(b"small")
    assert v == b"abc" and isinstance(v, bytes)


def test_many_views_in_one_txn(db):
    with db.write() as txn:
        txn.put_many((b"%05d" % i, b"v%05d" % i) for i in range(3000))
    with db.read(buffers=True) as txn:
        kept = [v for _, v in txn.range()]
        assert bytes(kept[-1]) == b"v02999"
    with pytest.raises(ValueError):
        bytes(kept[0])
