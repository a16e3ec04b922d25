"""Txn.savepoint(): the context manager (rollback on an exception, release
on normal exit), explicit rollback/release, nesting, trees, misuse, and a
derandomized model test against a stack of dicts."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ordo
from model_ops import apply_write


def test_block_that_raises_is_rolled_back(db):
    with db.write() as txn:
        txn.put(b"a", b"1")
        with pytest.raises(KeyError):
            with txn.savepoint():
                txn.put(b"a", b"2")
                txn.put(b"b", b"2")
                raise KeyError("undo")
        assert txn.get(b"a") == b"1"
        assert txn.get(b"b") is None
        with txn.savepoint():
            txn.put(b"c", b"3")  # kept: the block ends normally
    with db.read() as r:
        assert list(r.range()) == [(b"a", b"1"), (b"c", b"3")]


def test_explicit_rollback_keeps_the_savepoint_open(db):
    with db.write() as txn:
        sp = txn.savepoint()
        txn.put(b"x", b"1")
        sp.rollback()
        assert txn.get(b"x") is None
        txn.put(b"x", b"2")
        sp.rollback()  # again: it stayed open
        assert txn.get(b"x") is None
        txn.put(b"y", b"3")
        sp.release()
        with pytest.raises(ordo.InvalidArgumentError, match="no longer open"):
            sp.rollback()
    with db.read() as r:
        assert list(r.range()) == [(b"y", b"3")]


def test_nested_savepoints(db):
    with db.write() as txn:
        outer = txn.savepoint()
        txn.put(b"k", b"outer")
        middle = txn.savepoint()
        txn.put(b"k", b"middle")
        inner = txn.savepoint()
        txn.put(b"k", b"inner")
        middle.rollback()
        assert txn.get(b"k") == b"outer"
        with pytest.raises(ordo.InvalidArgumentError, match="no longer open"):
            inner.rollback()
        outer.rollback()  # ends middle too
        assert txn.get(b"k") is None
        with pytest.raises(ordo.InvalidArgumentError):
            middle.release()
        txn.put(b"k", b"after")
    with db.read() as r:
        assert r.get(b"k") == b"after"


def test_exit_of_an_ended_savepoint_raises(db):
    with db.write() as txn:
        outer = txn.savepoint()
        with pytest.raises(ordo.InvalidArgumentError, match="no longer open"):
            with txn.savepoint():
                outer.rollback()
        outer.release()


def test_trees_across_a_rollback(db):
    with db.write() as txn:
        txn.create_tree("kept")
        txn.put(b"k", b"v", tree="kept")
    with db.write() as txn:
        with pytest.raises(RuntimeError):
            with txn.savepoint():
                txn.create_tree("new")
                txn.put(b"x", b"y", tree="new")
                txn.drop_tree("kept")
                raise RuntimeError()
        assert txn.list_trees() == [b"kept"]
        assert txn.get(b"k", tree="kept") == b"v"
        with pytest.raises(ordo.NotFoundError):
            txn.put(b"x", b"y", tree="new")


def test_cursor_after_a_rollback(db):
    with db.write() as txn:
        for i in range(100):
            txn.put(b"k%03d" % i, b"v")
        sp = txn.savepoint()
        c = txn.cursor()
        assert c.seek(b"k050")
        txn.delete_range(b"k040", b"k060")
        sp.rollback()
        assert c.key() == b"k050"


def test_read_txn_and_ended_txn_refuse(db):
    with db.read() as r:
        with pytest.raises(ordo.InvalidArgumentError, match="write txn"):
            r.savepoint()
    txn = db.write()
    sp = txn.savepoint()
    txn.commit()
    with pytest.raises(ordo.TxnEndedError):
        sp.rollback()
    with pytest.raises(ordo.TxnEndedError):
        txn.savepoint()


def test_savepoint_of_another_txn_is_refused(db):
    with db.write() as a:
        sp = a.savepoint()
        a.put(b"a", b"1")
    with db.write() as b:
        b.put(b"b", b"1")
        with pytest.raises(ordo.TxnEndedError):
            sp.rollback()  # its txn ended: the txn is checked first


def test_inside_batch(db):
    def fn(txn):
        txn.put(b"kept", b"1")
        with pytest.raises(ValueError):
            with txn.savepoint():
                txn.put(b"undone", b"1")
                raise ValueError()

    db.batch(fn)
    with db.read() as r:
        assert list(r.range()) == [(b"kept", b"1")]


keys = st.binary(min_size=0, max_size=2).map(lambda k: b"k" + k)
values = st.binary(max_size=30) | st.binary(min_size=1500, max_size=2500)  # inline and overflow
ops = st.lists(
    st.one_of(
        st.tuples(st.just("put"), keys, values),
        st.tuples(st.just("delete"), keys),
        st.tuples(st.just("delete_range"), keys, keys),
        st.tuples(st.just("put_many"), st.lists(st.tuples(keys, values), max_size=30)),
        st.tuples(st.just("savepoint")),
        st.tuples(st.just("rollback"), st.integers(min_value=0, max_value=7)),
        st.tuples(st.just("release"), st.integers(min_value=0, max_value=7)),
        st.tuples(st.just("commit")),
    ),
    max_size=50,
)


@settings(derandomize=True, max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops)
def test_matches_a_stack_of_dicts(tmp_path_factory, sequence):
    path = str(tmp_path_factory.mktemp("sp") / "m.ordo")
    committed = {}
    with ordo.open(path, sync_commits=False) as db:
        pending = dict(committed)
        stack = []  # (Savepoint, state at it)
        txn = db.write()
        for op in sequence:
            name = op[0]
            if apply_write(txn, pending, op):
                pass
            elif name == "savepoint":
                stack.append((txn.savepoint(), dict(pending)))
            elif name == "rollback" and stack:
                at = op[1] % len(stack)
                stack[at][0].rollback()
                pending = dict(stack[at][1])
                del stack[at + 1:]
            elif name == "release" and stack:
                at = op[1] % len(stack)
                stack[at][0].release()
                del stack[at:]
            elif name == "commit":
                txn.commit()
                committed = dict(pending)
                stack = []
                txn = db.write()
            assert list(txn.range()) == sorted(pending.items())
        txn.commit()
        committed = dict(pending)
    with ordo.open(path) as db:
        with db.read() as r:
            assert list(r.range()) == sorted(committed.items())
        assert db.check()["problems"] == []
