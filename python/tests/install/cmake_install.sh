#!/bin/sh
# The documented install, run from outside the source tree: a venv that sees
# the system's packages, `cmake --install --component python` into it, then
# python/examples/quickstart.py with the venv's python. Also checks that the
# README's Python example is that file.
# Usage: install_test.sh PYTHON CMAKE BUILD_DIR SOURCE_DIR
set -eu
python="$1" cmake="$2" build="$3" source="$4"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" - "$source/README.md" "$source/python/examples/quickstart.py" <<'PY'
import re, sys
readme, example = (open(p).read() for p in sys.argv[1:3])
m = re.search(r"<!-- readme-python-example: begin -->\n```python\n(.*?)```\n", readme, re.S)
if not m or m.group(1) != example:
    sys.exit("README.md's Python example differs from python/examples/quickstart.py")
PY
"$python" -m venv --system-site-packages --without-pip "$work/venv"
"$cmake" --install "$build" --component python --prefix "$work/venv" > "$work/install.log"
cp "$source/python/examples/quickstart.py" "$work/"
cd "$work"
PYTHONPATH= "$work/venv/bin/python" -c 'import ordo, sys; assert ordo.__file__.startswith(sys.prefix), ordo.__file__'
PYTHONPATH= "$work/venv/bin/python" quickstart.py "$work/quickstart.ordo"
