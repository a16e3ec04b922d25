"""Many Python threads reading while one writes; calls that wait in the engine
release the GIL."""

import threading

import ordo


def test_readers_see_whole_commits_while_a_writer_commits(db):
    """The writer keeps two keys equal in every commit; each reader's snapshot
    must show them equal, and the counter never goes back."""
    rounds = 200
    with db.write() as txn:
        txn.put(b"a", b"0")
        txn.put(b"b", b"0")
    stop = threading.Event()
    failures = []
    reads = []

    def reader():
        last = 0
        count = 0
        while not stop.is_set():
            with db.read() as txn:
                a, b = int(txn[b"a"]), int(txn[b"b"])
                entries = sum(1 for _ in txn.range())
            if a != b or a < last or entries != 2:
                failures.append((a, b, last, entries))
            last = a
            count += 1
        reads.append(count)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for i in range(1, rounds + 1):
        with db.write() as txn:
            txn.put(b"a", b"%d" % i)
            txn.put(b"b", b"%d" % i)
    stop.set()
    for t in threads:
        t.join()
    assert failures == []
    assert len(reads) == 4 and all(n > 0 for n in reads)
    with db.read() as txn:
        assert txn[b"a"] == b"%d" % rounds


def test_begin_write_waits_without_the_gil(db):
    """A thread waiting in write() for the open write txn does not hold the
    GIL: this thread goes on running Python and ends the txn it waits for."""
    first = db.write()
    first.put(b"k", b"first")
    started = threading.Event()
    got = []

    def second():
        started.set()
        with db.write() as txn:  # waits for `first`
            got.append(txn.get(b"k"))
            txn.put(b"k", b"second")

    t = threading.Thread(target=second)
    t.start()
    started.wait()
    total = sum(range(100000))  # Python runs while the other thread waits
    first.commit()
    t.join()
    assert total == 4999950000
    assert got == [b"first"]
    with db.read() as txn:
        assert txn[b"k"] == b"second"


def test_batch_from_many_threads(db):
    threads_n, per_thread = 8, 25

    def worker(n):
        for i in range(per_thread):
            db.batch(lambda txn: txn.put(b"%d-%d" % (n, i), b"v"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with db.read() as txn:
        assert sum(1 for _ in txn.range()) == threads_n * per_thread
    stats = db.stats()
    assert stats["batch_members"] == threads_n * per_thread
    assert stats["batch_groups"] <= stats["batch_members"]


def test_bulk_calls_from_threads_beside_readers(db):
    stop = threading.Event()
    errors = []

    def reader():
        try:
            while not stop.is_set():
                with db.read() as txn:
                    for batch in txn.scan_columns(batch_bytes=4096):
                        assert batch.count > 0
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for r in range(20):
        with db.write() as txn:
            txn.put_many((b"%03d-%04d" % (r, i), b"x" * 50) for i in range(200))
    stop.set()
    for t in threads:
        t.join()
    assert errors == []
