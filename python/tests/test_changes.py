"""Changes between snapshots: Txn.changes against a model of two snapshots,
kept snapshots across reopen, delta copies."""

import os
import pathlib
import random

import pytest

import ordo


def model_diff(before, after):
    out = []
    for k in sorted(set(before) | set(after)):
        old, new = before.get(k), after.get(k)
        if old != new:
            out.append((k, old, new))
    return out


def test_changes_match_a_model_of_two_snapshots(db):
    seed = int(os.environ.get("ORDO_TEST_SEED", "5"))
    print("seed", seed)
    rng = random.Random(seed)
    state = {}
    for _ in range(4):
        held = db.read()
        before = dict(state)
        with db.write() as txn:
            for _ in range(1500):
                k = b"k%05d" % rng.randrange(2000)
                if rng.random() < 0.6:
                    v = bytes(rng.randrange(97, 123) for _ in range(rng.choice([5, 30, 2000])))
                    txn.put(k, v)
                    state[k] = v
                else:
                    txn.delete(k)
                    state.pop(k, None)
        with db.read() as now:
            got = list(now.changes(None, held.id))
        held.abort()
        assert got == model_diff(before, state)


def test_not_held_snapshot_is_an_error(db):
    for i in range(3):
        with db.write() as txn:
            txn.put(b"k", b"%d" % i)
    with db.read() as txn:
        with pytest.raises(ordo.NotFoundError, match="is not held"):
            list(txn.changes(None, txn.id - 1))


def test_kept_snapshot_reopen_and_delta_copy(tmp_path):
    src = str(tmp_path / "src.ordo")
    with ordo.open(src) as db:
        with db.write() as txn:
            nodes = txn.create_tree("nodes")
            for i in range(500):
                txn.put(b"n%04d" % i, b"v", tree=nodes)
        kept = db.keep_snapshot()
        assert db.kept_snapshots() == [kept]
        db.copy(str(tmp_path / "base.ordo"))  # txn kept + 1: no change to the trees
    with ordo.open(src) as db:
        assert db.kept_snapshots() == [kept]
        with db.write() as txn:
            txn.put(b"n0001", b"changed", tree="nodes")
            txn.delete(b"n0002", tree="nodes")
        with db.read() as txn:
            assert list(txn.changes("nodes", kept)) == [
                (b"n0001", b"v", b"changed"),
                (b"n0002", b"v", None),
            ]
            delta = str(tmp_path / "d.odl")
            r = txn.copy_delta(pathlib.Path(delta), kept)  # any os.PathLike
            assert (r["base_txn"], r["puts"], r["deletes"]) == (kept, 1, 1)
        # The copy is at txn kept + 1 (the keep's own commit), not the base.
        with ordo.open(str(tmp_path / "base.ordo")) as base:
            with pytest.raises(ordo.InvalidArgumentError, match="applies to txn"):
                base.apply_delta(pathlib.Path(delta))
        # The kept snapshot reads as it was; a txn id not held is refused.
        with db.read(at=kept) as old:
            assert old.id == kept
            assert old.get(b"n0001", tree="nodes") == b"v"
            assert old.get(b"n0002", tree="nodes") == b"v"
        with pytest.raises(ordo.NotFoundError, match="is not held"):
            db.read(at=kept + 1)
        with pytest.raises(ValueError, match="null byte"):
            db.apply_delta(delta + "\0junk")
        db.release_snapshot(kept)
        assert db.kept_snapshots() == []
        with pytest.raises(ordo.NotFoundError):
            db.release_snapshot(kept)
