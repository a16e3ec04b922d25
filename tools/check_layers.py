#!/usr/bin/env python3
"""Fails when an #include crosses a layer the wrong way (docs/CODE.md).

Every source and header file belongs to one part (a layer, or one side of a
layer: its public headers or its sources). Each `#include "..."` is resolved to
the file it names: beside the including file first, then under each part's
include directories. A part may include itself and the parts listed for it
below; anything else is reported with the file, line and both parts.

Usage: tools/check_layers.py [REPO_ROOT]   (exit status 1 on a violation)
"""

import os
import re
import sys

# (path prefix, part, include directories the part's headers are found under).
# The longest matching prefix names a file's part.
PARTS = [
    ("base/include/", "base", ["base/include"]),
    ("base/internal/", "base_internal", ["base/internal"]),
    ("base/src/", "base_internal", []),
    ("idgen/", "idgen", ["idgen/include"]),
    ("io/testing/", "io_testing", ["io/testing/include"]),
    ("io/", "io", ["io/include"]),
    ("btree/testing/", "btree_testing", ["btree/testing/include"]),
    ("btree/", "btree", ["btree/include"]),
    ("engine/include/", "engine_api", ["engine/include"]),
    ("engine/", "engine", []),
    ("sys/", "sys", ["sys/include"]),
    ("replica/include/", "replica_api", ["replica/include"]),
    ("replica/", "replica", []),
    ("tools/ordo-node/", "node", []),
    ("tools/", "tool", []),
    ("bench/", "bench", []),
    ("python/", "python", []),
    ("tests/", "tests", []),
]

# Directories a target may add to its include path to reach a layer's private
# headers by bare name.
PRIVATE_DIRS = ["base/src", "idgen/src", "io/src", "btree/src", "engine/src", "sys/src",
                "replica/src"]

PUBLIC = {"base", "idgen", "engine_api"}
INTERNAL_BASE = PUBLIC | {"base_internal"}

# What each part may include besides itself. The library's public API is
# base + idgen + engine_api; above the engine, parts see only that, the
# internal base, the system plumbing and the replica's public header.
ALLOWED = {
    "base": set(),
    "base_internal": {"base"},
    "idgen": {"base"},
    "io": {"base", "base_internal"},
    "io_testing": {"base", "base_internal", "io"},
    "btree": {"base", "base_internal"},
    "btree_testing": {"base", "base_internal", "btree"},
    "engine_api": {"base", "idgen"},
    "engine": INTERNAL_BASE | {"io", "btree"},
    "sys": {"base", "base_internal"},
    "replica_api": PUBLIC,
    "replica": INTERNAL_BASE | {"sys", "replica_api"},
    "tool": INTERNAL_BASE | {"sys"},  # temp dirs (check's scratch copy)
    "node": INTERNAL_BASE | {"sys", "replica_api"},
    "bench": PUBLIC | {"sys", "replica_api", "node"},  # a client: no internal header
    "python": PUBLIC,  # the Python package: a client of the public API only
    "tests": None,  # the tests may reach any part
}

SOURCE_DIRS = ["base", "idgen", "io", "btree", "engine", "sys", "replica", "tools", "bench", "python",
               "tests"]
EXTENSIONS = (".h", ".cc", ".c", ".cpp")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def part_of(path):
    best = None
    for prefix, part, _ in PARTS:
        if path.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, part)
    return best[1] if best else None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    files = []
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(EXTENSIONS):
                    files.append(os.path.relpath(os.path.join(dirpath, name), root))
    # Public include directories, then the layers' private source directories: a
    # bare "meta.h" from outside engine/src is found there and reported.
    include_dirs = [d for _, _, dirs in PARTS for d in dirs] + PRIVATE_DIRS
    violations = []
    checked = 0
    for path in files:
        part = part_of(path)
        allowed = ALLOWED.get(part)
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            name = m.group(1)
            candidates = [os.path.normpath(os.path.join(os.path.dirname(path), name))]
            candidates += [os.path.join(d, name) for d in include_dirs]
            target = next((c for c in candidates if os.path.isfile(os.path.join(root, c))), None)
            if target is None:
                # Generated headers and files outside the repository's parts.
                continue
            checked += 1
            target_part = part_of(target)
            if allowed is None or target_part in (part, None) or target_part in allowed:
                continue
            violations.append(f"{path}:{number}: {part} includes {target} ({target_part})")
    for v in violations:
        print(v)
    if violations:
        print(f"{len(violations)} include(s) cross a layer the wrong way; the layers are in "
              "docs/CODE.md and tools/check_layers.py")
        return 1
    print(f"layers: {checked} includes in {len(files)} files, none crosses a layer the wrong way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
