"""A compiled module built for another interpreter fails at import with a
message naming both (ordo/_loader.py)."""

import platform
import shutil
import subprocess
import sys
from pathlib import Path

import ordo


def test_module_built_for_another_interpreter(tmp_path):
    """The package as an install for CPython 3.99 would leave it: the module
    under that interpreter's name, and its build record."""
    copy = tmp_path / "ordo"
    shutil.copytree(Path(ordo.__file__).parent, copy)
    for module in copy.glob("_ordo*.so"):
        module.rename(copy / "_ordo.cpython-399-x86_64-linux-gnu.so")
    (copy / "_build_info.py").write_text(
        'PYTHON_VERSION = "3.99.0"\nPYTHON_EXECUTABLE = "/opt/python3.99/bin/python3"\n')
    result = subprocess.run([sys.executable, "-c", "import ordo"], cwd=tmp_path,
                            env={"PYTHONPATH": str(tmp_path)}, capture_output=True, text=True)
    assert result.returncode != 0
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith("ImportError: ordo's compiled module was built for CPython 3.99.0 "
                              "(/opt/python3.99/bin/python3, _ordo.cpython-399-x86_64-linux-gnu.so)")
    assert f"this interpreter is CPython {platform.python_version()} ({sys.executable}" in message
    assert "pip install ./python" in message


def test_other_import_errors_are_not_renamed(tmp_path):
    """A module this interpreter would load, but that fails to load, keeps its
    own error (here: not a shared object at all)."""
    copy = tmp_path / "ordo"
    shutil.copytree(Path(ordo.__file__).parent, copy)
    for module in copy.glob("_ordo*.so"):
        module.write_bytes(b"not an ELF file")
    result = subprocess.run([sys.executable, "-c", "import ordo"], cwd=tmp_path,
                            env={"PYTHONPATH": str(tmp_path)}, capture_output=True, text=True)
    assert result.returncode != 0
    assert "built for" not in result.stderr and "ImportError" in result.stderr
