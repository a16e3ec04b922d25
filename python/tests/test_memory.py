"""Memory given back: after a big write txn and close(), the process's
anonymous memory (RssAnon, /proc/self/status) is back within 8 MiB of where
it was before open. Measured in a fresh process."""

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import gc, sys
    import ordo

    def rss_anon_kib():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])

    rows = [(i.to_bytes(16, "big"), b"v" * 100) for i in range(300000)]
    gc.collect()
    before = rss_anon_kib()
    db = ordo.open(sys.argv[1])
    with db.write() as txn:
        txn.put_many(rows)
    committed = rss_anon_kib()
    db.close()
    del db, txn
    gc.collect()
    print(committed - before, rss_anon_kib() - before)
""")


def test_memory_after_close(tmp_path):
    result = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "m.ordo")],
                            capture_output=True, text=True, check=True)
    committed_kib, closed_kib = map(int, result.stdout.split())
    assert committed_kib > 16 << 10  # the txn's pages were in memory
    assert closed_kib <= 8 << 10, f"{closed_kib / 1024:.0f} MiB kept after close"
