#!/usr/bin/env python3
"""Counts function definitions and ORDO_ASSERT/ORDO_DCHECK sites, per folder.

For each PATH (a folder, read recursively, or a file; several paths joined by
',' make one group) it reads the .cc and .h files and prints the number of
functions, of assertions, and assertions per function. With --min X it exits 1
when a group has fewer than X assertions per function (docs/CODE.md, "Checks in
the code").

How a function is told (a heuristic over the text, no parser):
- comments, string and character literals and preprocessor lines are removed
  first (so a macro's own #define and a commented-out check do not count);
- the text is then read from brace to brace at namespace and class level. A
  '{' opens a function body when the text before it (since the last ';', or
  the last '{' or '}' of a scope) ends in ')' with only qualifiers after it
  (const, noexcept, override, final, &, a trailing return type), or is a
  constructor's initializer list (`) : a_(x), b_{y}`). Such a body counts as
  one function and is skipped whole: lambdas and local classes inside it are
  not functions of their own. A '{' after namespace, class, struct, union or
  extern "C" opens a scope that is read the same way; any other brace (an
  enum, an initializer) is skipped.
- an assertion is an ORDO_ASSERT( or ORDO_DCHECK( anywhere in the remaining
  text: a macro that asserts counts once, however many functions use it.
Declarations without a body (`= default`, `= delete`, prototypes) do not count,
nor does a function with a trailing requires-clause (none in ordo).

Usage: tools/assertion_density.py [--min X] [-v] PATH[,PATH...]...
  -v  also one line per file
"""

import argparse
import os
import re
import sys

SOURCE_SUFFIXES = (".cc", ".h")

# One alternation so that whatever starts first wins: a '//' inside a string
# is part of the string, a '"' inside a comment part of the comment.
_NOISE = re.compile(
    r"""//[^\n]*
      | /\*.*?\*/
      | R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"
      | "(?:\\.|[^"\\\n])*"
      | (?<![0-9A-Za-z_])'(?:\\.|[^'\\\n])*'
      | ^[ \t]*\#(?:[^\n]*\\\n)*[^\n]*""",
    re.S | re.M | re.X,
)
_DELIM = re.compile(r"[{};]")
_BRACE = re.compile(r"[{}]")
_ASSERTION = re.compile(r"\bORDO_(?:ASSERT|DCHECK)\s*\(")
_ATTRIBUTE = re.compile(r"\[\[.*?\]\]", re.S)
_TEMPLATE = re.compile(r"\btemplate\s*<")
_SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b")
_EXTERN_C = re.compile(r"\bextern\s*\"\"\s*$")
# ')' then only qualifiers, or a trailing return type, up to the '{'.
_SIGNATURE_END = re.compile(
    r"\)\s*(?:(?:const|volatile|noexcept|override|final|mutable|&&|&|"
    r"->\s*[\w:<>,\s*&]+)\s*)*$"
)
# A constructor's initializer list whose last member was initialized with {}.
_INIT_LIST = re.compile(r"\)\s*(?:noexcept\s*)?:(?!:).*\{\}\s*$", re.S)
_LAMBDA = re.compile(r"=\s*\[|\]\s*\(")
_OPERATOR_INDEX = re.compile(r"\boperator\s*\[\s*\]")


def _strip_noise(text):
    return _NOISE.sub(lambda m: '""' if m.group(0)[:1] in "R\"'" else " ", text)


def _matching_braces(code):
    """Maps the offset of each '{' to that of its '}' (len(code) if unmatched)."""
    match, open_at = {}, []
    for m in _BRACE.finditer(code):
        if m.group() == "{":
            open_at.append(m.start())
        elif open_at:
            match[open_at.pop()] = m.start()
    for start in open_at:
        match[start] = len(code)
    return match


def _drop_template_heads(head):
    """Removes `template <...>` parameter lists (nested angle brackets too)."""
    while True:
        m = _TEMPLATE.search(head)
        if not m:
            return head
        depth, i = 1, m.end()
        while i < len(head) and depth:
            depth += {"<": 1, ">": -1}.get(head[i], 0)
            i += 1
        head = head[: m.start()] + head[i:]


def _classify(head):
    """'function', 'scope' or 'other' for the text before a '{'."""
    head = _drop_template_heads(_ATTRIBUTE.sub(" ", head)).strip()
    if _EXTERN_C.search(head):
        return "scope"
    plain = _OPERATOR_INDEX.sub("operator_index", head)
    if "(" in plain and not _LAMBDA.search(plain):
        if _SIGNATURE_END.search(plain) or _INIT_LIST.search(plain):
            return "function"
    m = _SCOPE.search(head)
    if m and "(" not in head[: m.start()]:
        return "other" if m.group(1) == "enum" else "scope"
    return "other"


def count_functions(code):
    """Function definitions in `code` (already stripped of noise)."""
    match = _matching_braces(code)
    count = 0
    # Scopes still to read: (start, end) offsets.
    pending = [(0, len(code))]
    while pending:
        pos, end = pending.pop()
        head = ""
        while True:
            m = _DELIM.search(code, pos, end)
            if not m:
                break
            if m.group() != "{":
                head, pos = "", m.end()
                continue
            start = m.start()
            close = match[start]
            kind = _classify(head + code[pos:start])
            if kind == "function":
                count += 1
                head = ""
            elif kind == "scope":
                pending.append((start + 1, close))
                head = ""
            else:  # An initializer or an enum: keep reading the same declaration.
                head += code[pos:start] + "{}"
            pos = close + 1
    return count


def count_file(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        code = _strip_noise(f.read())
    return count_functions(code), len(_ASSERTION.findall(code))


def source_files(path):
    if os.path.isfile(path):
        return [path]
    found = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        found += [os.path.join(root, f) for f in sorted(files) if f.endswith(SOURCE_SUFFIXES)]
    return found


def main():
    parser = argparse.ArgumentParser(
        description="Functions and ORDO_ASSERT/ORDO_DCHECK sites per folder.")
    parser.add_argument("--min", type=float, default=None,
                        help="exit 1 when a group has fewer assertions per function")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per file too")
    parser.add_argument("groups", nargs="+", metavar="PATH[,PATH...]")
    args = parser.parse_args()

    # (group, [(path, functions, assertions)]) for every group, then the table.
    counted = []
    for group in args.groups:
        files = []
        for part in group.split(","):
            if not os.path.exists(part):
                parser.error(f"no such file or folder: {part}")
            files += [(path, *count_file(path)) for path in source_files(part)]
        counted.append((group, files))
    width = max(len(g) for g in args.groups + ["folder"])
    if args.verbose:
        width = max([width] + [len(p) + 2 for _, files in counted for p, _, _ in files])

    def row(label, functions, assertions):
        ratio = assertions / functions if functions else 0.0
        print(f"{label:<{width}} {functions:>9} {assertions:>10} {ratio:>12.2f}")
        return ratio

    below = []
    print(f"{'folder':<{width}} {'functions':>9} {'assertions':>10} {'per function':>12}")
    for group, files in counted:
        if args.verbose:
            for path, f, a in files:
                row("  " + path, f, a)
        functions = sum(f for _, f, _ in files)
        ratio = row(group, functions, sum(a for _, _, a in files))
        if args.min is not None and functions and ratio < args.min:
            below.append(group)
    if below:
        print(f"below {args.min:.2f} assertions per function: {', '.join(below)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
