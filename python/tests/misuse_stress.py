"""Four threads making random calls on shared databases, txns, cursors,
iterators and views, closing and reopening the database now and then: every
call returns or raises an ordo error, nothing crashes or hangs. Run by
test_stress.py in a child process.
Usage: misuse_stress.py PATH SEED SECONDS"""

import os
import random
import sys
import threading
import time

import ordo

path = sys.argv[1]
seed = int(sys.argv[2])
dur = float(sys.argv[3])
print("seed", seed, flush=True)
rng = random.Random(seed)
db = ordo.open(path, sync_commits=False)
shared = {"txns": [], "cursors": [], "views": [], "iters": []}
lock = threading.Lock()
stop = time.time() + dur
def pick(name):
    with lock:
        l = shared[name]
        return rng.choice(l) if l else None
def add(name, x):
    with lock:
        shared[name].append(x)
        if len(shared[name]) > 20: shared[name].pop(0)
def worker(n):
    global db
    r = random.Random(seed * 100 + n)
    while time.time() < stop:
        op = r.randrange(20)
        try:
            if op == 0: add("txns", db.read(buffers=r.random() < 0.5))
            elif op == 1: add("txns", db.write(timeout=0.01))
            elif op == 2:
                t = pick("txns")
                if t: t.put(b"k%d" % r.randrange(100), os.urandom(r.randrange(3000)))
            elif op == 3:
                t = pick("txns")
                if t: add("views", t.get(b"k%d" % r.randrange(100)))
            elif op == 4:
                t = pick("txns")
                if t: (t.commit if r.random() < 0.5 else t.abort)()
            elif op == 5:
                t = pick("txns")
                if t: add("cursors", t.cursor())
            elif op == 6:
                c = pick("cursors")
                if c: r.choice([c.first, c.last, c.next, c.prev, c.key, c.value, c.item])()
            elif op == 7:
                v = pick("views")
                if v is not None: bytes(v)
            elif op == 8:
                t = pick("txns")
                if t: add("iters", iter(t.range()) if r.random() < 0.5 else t.scan_columns(batch_bytes=2000))
            elif op == 9:
                it = pick("iters")
                if it: next(it)
            elif op == 10:
                t = pick("txns")
                if t: t.put_many((b"m%d" % i, b"v") for i in range(r.randrange(50)))
            elif op == 11 and r.random() < 0.05:
                db.close(); db = ordo.open(path, sync_commits=False, writer_wait_ms=1000)
            elif op == 12:
                db.batch(lambda txn: txn.put(b"b%d" % r.randrange(100), b"x"))
            elif op == 13:
                t = pick("txns")
                if t: t.delete_range(b"k1", b"k5")
            elif op == 14:
                t = pick("txns")
                if t and not t.write: (t.reset if r.random() < 0.5 else t.renew)()
            elif op == 15:
                c = pick("cursors")
                if c: c.delete()
            elif op == 16:
                t = pick("txns")
                if t: t.put_columns(b"abcdabcd", b"xy", [0, 1, 2], key_width=4)
            elif op == 17:
                db.info(); db.stats()
            else:
                t = pick("txns")
                if t: list(t.prefix(b"k"))
        except (ordo.Error, ValueError, StopIteration, TypeError, KeyError) as e:
            pass
ts = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print("ok", seed)
