"""`pip install ./python` into a fresh venv, offline (--no-index
--no-build-isolation, the system's setuptools and wheel): metadata pip and
importlib.metadata know, a stripped module built without ORDO_DCHECK for the
venv's interpreter, the README's example run from outside the source tree, and
`pip uninstall` taking it all away. Run by ctest as PythonPipInstall, with
ORDO_SOURCE_DIR (the repository) and ORDO_PIP_WORK_DIR (a directory kept
between runs: a copy of the sources and CMake's build directory, so a second
run compiles only what changed)."""

import filecmp
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

SOURCE = Path(os.environ.get("ORDO_SOURCE_DIR", Path(__file__).resolve().parents[3]))
WORK = Path(os.environ.get("ORDO_PIP_WORK_DIR", SOURCE / "build" / "python" / "pip-test"))


def sync_sources(target):
    """The repository's files (tracked and new, not ignored) copied into
    `target`, each only when it differs: unchanged files keep their times."""
    listed = subprocess.run(
        ["git", "-C", str(SOURCE), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src, dst = SOURCE / name, target / name
        if not src.is_file():
            continue
        if not dst.exists() or not filecmp.cmp(src, dst, shallow=False):
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)


def section_names(path):
    """The section names of an ELF64 little-endian shared object."""
    data = Path(path).read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "an ELF64 LE file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def header(i):
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
    _, _, _, _, strings_at, strings_size = header(shstrndx)
    strings = data[strings_at:strings_at + strings_size]
    return {strings[h[0]:strings.index(b"\0", h[0])].decode() for h in map(header, range(shnum))}


def run(args, **kwargs):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(kwargs.pop("env", {}))
    return subprocess.run(args, env=env, capture_output=True, text=True, **kwargs)


def test_pip_install_offline_into_a_fresh_venv(tmp_path):
    src = WORK / "src"
    sync_sources(src)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    install = run([python, "-m", "pip", "install", "--no-index", "--no-build-isolation",
                   str(src / "python")], env={"ORDO_CMAKE_BUILD_DIR": str(WORK / "cmake")})
    assert install.returncode == 0, install.stdout + install.stderr

    version = re.search(r"project\(ordo VERSION ([0-9.]+)", (SOURCE / "CMakeLists.txt").read_text())
    show = run([python, "-m", "pip", "show", "ordo"])
    assert show.returncode == 0 and f"Version: {version.group(1)}" in show.stdout, show.stdout
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
               check=True).stdout.strip()
    assert f"Location: {site}" in show.stdout

    # From outside the source tree: the venv's package, built for its
    # interpreter without the O(n) checks, stripped.
    probe = run([python, "-c", (
        "import importlib.metadata, ordo, ordo._ordo as m, sys\n"
        "print(ordo.__file__)\nprint(m.__file__)\nprint(m._dchecks)\n"
        "print(importlib.metadata.version('ordo'))")], cwd=tmp_path)
    assert probe.returncode == 0, probe.stderr
    package_file, module_file, dchecks, metadata_version = probe.stdout.split()
    assert package_file.startswith(site) and module_file.startswith(site)
    assert dchecks == "False"
    assert metadata_version == version.group(1)
    sections = section_names(module_file)
    assert ".symtab" not in sections and ".debug_info" not in sections, sections

    shutil.copy(SOURCE / "python" / "examples" / "quickstart.py", tmp_path)
    example = run([python, "quickstart.py", str(tmp_path / "quickstart.ordo")], cwd=tmp_path)
    assert example.returncode == 0, example.stderr
    assert re.fullmatch(r"[0-9a-f-]+ -> record\n", example.stdout), example.stdout

    uninstall = run([python, "-m", "pip", "uninstall", "-y", "ordo"])
    assert uninstall.returncode == 0, uninstall.stderr
    gone = run([python, "-c", "import ordo"], cwd=tmp_path)
    assert gone.returncode != 0 and "No module named 'ordo'" in gone.stderr
    assert not list(Path(site).glob("ordo*")), list(Path(site).glob("ordo*"))
