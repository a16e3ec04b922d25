"""Misuse raises, never crashes: ended txns, closed databases, a txn used by
two threads at once, handles used after fork."""

import os
import threading

import pytest

import ordo


def test_ended_txn_and_its_cursor(db):
    with db.write() as txn:
        txn.put(b"k", b"v")
        c = txn.cursor()
    for call in (lambda: txn.get(b"k"), lambda: txn.put(b"k", b"v"), txn.commit,
                 lambda: txn.cursor(), lambda: list(txn.range()), c.first, c.key,
                 lambda: next(iter(c))):
        with pytest.raises(ordo.TxnEndedError):
            call()


def test_writes_in_a_read_txn(db):
    with db.read() as txn:
        with pytest.raises(ordo.InvalidArgumentError, match="write txn"):
            txn.put(b"k", b"v")
        with pytest.raises(ordo.InvalidArgumentError):
            txn.next_id()


def test_second_write_txn_in_one_thread_is_busy(db):
    with db.write():
        with pytest.raises(ordo.BusyError):
            db.write()
        with pytest.raises(ordo.BusyError):
            db.tree("t")  # needs a write txn of its own


def test_write_timeout(db):
    held = db.write()
    errors = []

    def other():
        try:
            db.write(timeout=0)
        except ordo.BusyError as e:
            errors.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    held.abort()
    assert len(errors) == 1


def test_closed_database(path):
    db = ordo.open(path)
    read = db.read()
    write = db.write()
    write.put(b"k", b"v")
    c = read.cursor()
    db.close()
    assert db.closed
    db.close()  # again: nothing
    with pytest.raises(ordo.ClosedError):
        db.read()
    with pytest.raises(ordo.ClosedError):
        db.info()
    for call in (lambda: read.get(b"k"), lambda: write.put(b"k", b"v"), write.commit, c.first):
        with pytest.raises(ordo.TxnEndedError, match="closed"):
            call()
    with ordo.open(path) as again, again.read() as txn:  # the file was closed: no Busy
        assert txn.get(b"k") is None  # the write txn was aborted


def test_txn_in_a_call_in_another_thread(db):
    """put_many reads its iterable in the calling thread with the txn busy: a
    second thread's call meanwhile gets BusyError."""
    txn = db.write()
    inside = threading.Event()
    release = threading.Event()
    seen = []

    def rows():
        yield (b"a", b"1")
        inside.set()
        release.wait()
        yield (b"b", b"2")

    def writer():
        seen.append(txn.put_many(rows()))

    t = threading.Thread(target=writer)
    t.start()
    inside.wait()
    with pytest.raises(ordo.BusyError):
        txn.get(b"a")
    with pytest.raises(ordo.BusyError):
        txn.commit()
    release.set()
    t.join()
    assert seen == [2]
    txn.commit()
    with db.read() as r:
        assert r[b"b"] == b"2"


def test_iterable_using_its_own_txn(db):
    with db.write() as txn:
        def rows():
            yield (b"a", b"1")
            txn.get(b"a")

        with pytest.raises(ordo.BusyError):
            txn.put_many(rows())


def test_close_while_another_thread_is_in_a_call(db):
    txn = db.write()
    inside = threading.Event()
    release = threading.Event()
    result = []

    def rows():
        yield (b"a", b"1")
        inside.set()
        release.wait()

    def writer():
        result.append(txn.put_many(rows()))

    t = threading.Thread(target=writer)
    t.start()
    inside.wait()
    db.close()  # the txn ends when put_many returns
    release.set()
    t.join()
    assert result == [1]
    with pytest.raises(ordo.TxnEndedError):
        txn.commit()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_use_after_fork(db):
    with db.write() as w:
        w.put(b"k", b"v")
    txn = db.read()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: every use raises, nothing crashes
        outcome = b""
        for call in (lambda: txn.get(b"k"), db.read, db.write):
            try:
                call()
                outcome += b"ok "
            except ordo.InvalidArgumentError:
                outcome += b"raised "
            except BaseException:
                outcome += b"other "
        os.write(w, outcome)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        outcome = f.read()
    _, status = os.waitpid(pid, 0)
    assert status == 0
    assert outcome == b"raised raised raised "
    assert txn.get(b"k") == b"v"  # the parent's handles are untouched
    txn.abort()
