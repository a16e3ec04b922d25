"""A model test: random sequences of put, delete, delete_range, commit and
abort against a dict, checked after every step. Derandomized (the same
examples on every run), so CI is deterministic."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ordo
from model_ops import apply_write

keys = st.binary(min_size=0, max_size=3).map(lambda k: b"k" + k)
values = st.binary(max_size=40) | st.binary(min_size=1500, max_size=3000)  # inline and overflow
ops = st.lists(
    st.one_of(
        st.tuples(st.just("put"), keys, values),
        st.tuples(st.just("delete"), keys),
        st.tuples(st.just("delete_range"), keys, keys),
        st.tuples(st.just("put_many"), st.lists(st.tuples(keys, values), max_size=8)),
        st.tuples(st.just("commit")),
        st.tuples(st.just("abort")),
    ),
    max_size=40,
)


@settings(derandomize=True, max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops)
def test_matches_a_dict(tmp_path_factory, sequence):
    path = str(tmp_path_factory.mktemp("model") / "m.ordo")
    committed = {}
    with ordo.open(path, sync_commits=False) as db:
        pending = dict(committed)
        txn = db.write()
        for op in sequence:
            name = op[0]
            if apply_write(txn, pending, op):
                pass
            elif name == "commit":
                txn.commit()
                committed = dict(pending)
                txn = db.write()
            else:
                txn.abort()
                pending = dict(committed)
                txn = db.write()
            assert list(txn.range()) == sorted(pending.items())
        txn.abort()
        with db.read() as r:
            assert list(r.range()) == sorted(committed.items())
    with ordo.open(path) as db, db.read() as r:  # and after reopening
        assert list(r.range()) == sorted(committed.items())
