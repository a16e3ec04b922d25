"""kill -9 of a Python process in the middle of a write txn: after reopening,
what it committed is there and what it had not committed is not."""

import os
import signal
import subprocess
import sys

import ordo

CHILD = r"""
import sys
import ordo

db = ordo.open(sys.argv[1])
for i in range(50):
    with db.write() as txn:
        txn.put(b"committed-%03d" % i, b"x" * (i * 37))
txn = db.write()
txn.put_many((b"uncommitted-%03d" % i, b"y" * 100) for i in range(1000))
txn.put(b"committed-000", b"overwritten, never committed")
print("ready", flush=True)
sys.stdin.read()  # killed here, the txn open
"""


def test_kill9_mid_transaction(path):
    env = dict(os.environ)
    child = subprocess.Popen([sys.executable, "-c", CHILD, path], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, env=env)
    try:
        assert child.stdout.readline() == b"ready\n"
        child.send_signal(signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    with ordo.open(path) as db:
        assert db.check()["clean"]
        with db.read() as txn:
            assert [k for k, _ in txn.prefix(b"uncommitted")] == []
            got = dict(txn.prefix(b"committed-"))
    assert len(got) == 50
    assert all(got[b"committed-%03d" % i] == b"x" * (i * 37) for i in range(50))
