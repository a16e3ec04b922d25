"""Loads the compiled module ordo._ordo, and when it does not load because it
was built for another interpreter, says so, naming both."""

import importlib
import importlib.machinery
import os
import platform
import sys


def _this_interpreter():
    return (f"{platform.python_implementation()} {platform.python_version()} "
            f"({sys.executable}, which loads compiled modules named "
            f"_ordo{importlib.machinery.EXTENSION_SUFFIXES[0]})")


def load_compiled_module():
    """Imports and returns ordo._ordo. ImportError naming the interpreter the
    module was built for and this one when they differ."""
    try:
        return importlib.import_module("ordo._ordo")
    except ImportError as error:
        here = os.path.dirname(os.path.abspath(__file__))
        built = sorted(f for f in os.listdir(here) if f.startswith("_ordo.") and
                       f.endswith((".so", ".pyd")))
        try:
            from ordo import _build_info
            built_for = (f"CPython {_build_info.PYTHON_VERSION} ({_build_info.PYTHON_EXECUTABLE}, "
                         f"{', '.join(built) or 'no compiled module found'})")
        except ImportError:
            built_for = ", ".join(built) or "no compiled module found"
        loadable = {"_ordo" + suffix for suffix in importlib.machinery.EXTENSION_SUFFIXES}
        if built and not loadable.intersection(built):
            raise ImportError(
                f"ordo's compiled module was built for {built_for}; this interpreter is "
                f"{_this_interpreter()}: install ordo with this interpreter "
                "(python -m pip install ./python)") from error
        raise
