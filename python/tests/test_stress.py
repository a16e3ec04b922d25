"""Random calls from four threads on shared handles, in a child process so that
a crash fails this test with its output (misuse_stress.py). Seeded; the seed
is printed (ORDO_STRESS_SEED picks one, ORDO_STRESS_SECONDS the duration)."""

import os
import subprocess
import sys
import time


def test_random_calls_from_threads_raise_or_return(tmp_path):
    seed = int(os.environ.get("ORDO_STRESS_SEED", str(int(time.time()) % 100000)))
    seconds = os.environ.get("ORDO_STRESS_SECONDS", "3")
    print("seed", seed)
    script = os.path.join(os.path.dirname(__file__), "misuse_stress.py")
    child = subprocess.run(
        [sys.executable, "-X", "faulthandler", script, str(tmp_path / "s.ordo"), str(seed), seconds],
        capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, f"seed {seed}: exit {child.returncode}\n{child.stdout}{child.stderr}"
    assert child.stdout.endswith("ok %d\n" % seed)
