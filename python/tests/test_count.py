"""Txn.count, Txn.rank and Txn.at against a sorted list, in write and read txns."""

import bisect
import os
import random

import pytest

import ordo


def test_count_rank_at_match_a_sorted_model(db):
    seed = int(os.environ.get("ORDO_TEST_SEED", random.randrange(1 << 32)))
    print("seed", seed, "(set ORDO_TEST_SEED to replay)")
    rng = random.Random(seed)
    model = {}
    with db.write() as txn:
        tree = txn.create_tree("t")
        for _ in range(6000):
            key = b"k%05d" % rng.randrange(20000)
            txn.put(key, b"v" + key, tree=tree)
            model[key] = b"v" + key
        for _ in range(1000):
            key = b"k%05d" % rng.randrange(20000)
            txn.delete(key, tree="t")
            model.pop(key, None)
        keys = sorted(model)
        assert txn.count(tree="t") == len(keys)  # the txn's own writes
    with db.read() as txn:
        assert txn.count(tree="t") == len(keys)
        for _ in range(200):
            a = b"k%05d" % rng.randrange(20000)
            b = b"k%05d" % rng.randrange(20000)
            lo = bisect.bisect_left(keys, a)
            assert txn.rank(a, tree="t") == lo
            assert txn.count(a, b, tree="t") == max(0, bisect.bisect_left(keys, b) - lo)
            assert txn.count(a, tree="t") == len(keys) - lo
            p = a[:4]
            assert txn.count(tree="t", prefix=p) == sum(1 for k in keys if k.startswith(p))
            i = rng.randrange(len(keys))
            c = txn.at(i, tree="t")
            assert c.key() == keys[i] and c.value() == model[keys[i]]
            assert next(iter(c)) == (keys[i], model[keys[i]])  # iteration starts there
        with pytest.raises(IndexError):
            txn.at(len(keys), tree="t")
        with pytest.raises(ordo.InvalidArgumentError):
            txn.count(b"a", prefix=b"k", tree="t")
        assert txn.count(tree="missing") == 0
        assert txn.count() == 0 and txn.rank(b"x") == 0


def test_a_tree_gone_in_the_txn_counts_zero(db):
    with db.write() as txn:
        txn.create_tree("t")
        txn.put(b"a", b"1", tree="t")
    with db.write() as txn:
        assert txn.count(tree="t") == 1
        with txn.savepoint() as sp:
            txn.drop_tree("t")
            assert txn.count(tree="t") == 0 and txn.rank(b"b", tree="t") == 0
            sp.rollback()
        assert txn.count(tree="t") == 1 and txn.rank(b"b", tree="t") == 1
        txn.rename_tree("t", "u")
        assert txn.count(tree="t") == 0 and txn.count(tree="u") == 1
