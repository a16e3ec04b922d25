"""Builds the compiled module ordo._ordo with CMake for the interpreter that
runs this (pip's), from the repository this directory is in: a Release build
without ORDO_DCHECK (NDEBUG), stripped, only the libraries and the module, in
unity batches.
pyproject.toml holds the rest of the package's metadata.

Environment: CMAKE names the cmake to run (default: cmake on PATH);
ORDO_CMAKE_ARGS adds arguments to its configure step (split on spaces);
ORDO_CMAKE_BUILD_DIR puts CMake's build directory there (default: under
setuptools' build_temp), so that builds after the first are incremental.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent  # the repository: CMakeLists.txt at its root


def version():
    text = (SOURCE / "CMakeLists.txt").read_text()
    match = re.search(r"project\(ordo VERSION ([0-9.]+)", text)
    if not match:
        sys.exit(f"setup.py: no `project(ordo VERSION ...)` in {SOURCE / 'CMakeLists.txt'}")
    return match.group(1)


class CMakeBuild(build_ext):
    """Configures and builds the target _ordo, then copies the module and
    the _build_info.py CMake writes into the package."""

    def build_extension(self, ext):
        cmake = os.environ.get("CMAKE", "cmake")
        if shutil.which(cmake) is None:
            sys.exit(f"setup.py: {cmake} not found: ordo's module is built with CMake "
                     "(apt-get install cmake)")
        build = Path(os.environ.get("ORDO_CMAKE_BUILD_DIR") or
                     Path(self.build_temp) / "cmake").resolve()
        configure = [
            cmake, "-S", str(SOURCE), "-B", str(build),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DORDO_DCHECKS=OFF",
            "-DORDO_PYTHON=ON",
            f"-DPython_EXECUTABLE={sys.executable}",
            "-DORDO_BUILD_TESTS=OFF", "-DORDO_BUILD_BENCH=OFF", "-DORDO_BUILD_TOOLS=OFF",
            "-DORDO_BUILD_REPLICA=OFF", "-DORDO_INSTALL=OFF",
            # The libraries and the module compiled in batches of 8 sources
            # (unity builds): 0.6x the CPU time of one object per source.
            "-DCMAKE_UNITY_BUILD=ON", "-DCMAKE_UNITY_BUILD_BATCH_SIZE=8",
            "-DORDO_UNITY_BUILD=ON", "-DORDO_UNITY_BUILD_BATCH_SIZE=8",
        ]
        if shutil.which("ninja") is not None and not (build / "CMakeCache.txt").exists():
            configure += ["-G", "Ninja"]
        configure += os.environ.get("ORDO_CMAKE_ARGS", "").split()
        subprocess.check_call(configure)
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call([cmake, "--build", str(build), "--target", "_ordo", "-j", jobs])
        package = build / "python" / "ordo"
        built = sorted(package.glob("_ordo*.so")) + sorted(package.glob("_ordo*.pyd"))
        if len(built) != 1:
            sys.exit(f"setup.py: expected one compiled module in {package}, found {built}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)
        shutil.copyfile(package / "_build_info.py", target.parent / "_build_info.py")


setup(
    version=version(),
    ext_modules=[Extension("ordo._ordo", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
