#!/usr/bin/env python3
"""Fails when product code decides something from an error message's text.

A Status's code is stable; its message() (and to_string(), which holds it) is
for people and may be reworded at any time (base/include/ordo/status.h). So no
product source may take `.message()` or `.to_string()` and then search or
compare it: `.find(`, `.rfind(`, `.starts_with(`, `.ends_with(`, `.compare(`,
`.contains(`, `==` or `!=`, either straight on the call or on a local variable
initialised from it a few lines above. In the Python package the same holds
for an exception's `.message` or `str(exc)`. Comments and string literals are
not looked at. Tests may check wording; they are not scanned.

Usage: tools/check_status_text.py [REPO_ROOT]   (exit status 1 on a finding)
       tools/check_status_text.py --self-test   (the detector against known
                                                 lines; exit status 1 on a miss)
"""

import os
import re
import sys

# The product's folders (tools/dev PRODUCT_DIRS); tests and the bench are clients.
PRODUCT_DIRS = ["base", "idgen", "io", "btree", "engine", "sys", "replica", "tools", "python"]
CPP_SUFFIXES = (".cc", ".h", ".c")

SEARCH = r"(?:\.|->)(?:find|rfind|starts_with|ends_with|compare|contains)\s*\("
TEXT_CALL = r"(?:\.|->)(?:message|to_string)\s*\(\s*\)"
# `x.message().rfind(...)`, `s.to_string() == ...`
STRAIGHT = re.compile(TEXT_CALL + r"\s*(?:" + SEARCH + r"|[!=]=)")
# `... == s.message()`
REVERSED = re.compile(r"[!=]=\s*[\w:.\->()\[\]]*" + TEXT_CALL)
# `std::string m = s.message();` and the like: the variable is followed.
HELD = re.compile(r"\b(\w+)\s*(?:=|\{)\s*[^;=]*" + TEXT_CALL + r"\s*\}?\s*;")
# How many lines after such a variable a search or comparison of it counts.
HELD_LINES = 30

PY_TEXT = r"(?:\.message\b|\bstr\(\s*\w+\s*\))"
PY_STRAIGHT = re.compile(PY_TEXT + r"\s*(?:\.(?:find|rfind|startswith|endswith)\s*\(|[!=]=)")
PY_REVERSED = re.compile(r"(?:[!=]=|\bin)\s*" + PY_TEXT)


def blank_cpp(text):
    """`text` with comments and the insides of string and char literals
    replaced by spaces (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            end = text.find(")" + delim + '"', open_paren)
            end = n if end < 0 else end + len(delim) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:end]))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            out.append(c + " " * (end - i - 2) + c if end - i >= 2 else c)
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blank_py(text):
    """As blank_cpp for Python: comments and string contents become spaces."""
    out = []
    for line in text.split("\n"):
        line = re.sub(r"(\"\"\"|'''|\"|')(?:\\.|(?!\1).)*\1",
                      lambda m: m.group(1) + " " * (len(m.group(0)) - 2 * len(m.group(1)))
                      + m.group(1), line)
        hash_at = line.find("#")
        out.append(line if hash_at < 0 else line[:hash_at])
    return "\n".join(out)


def findings_cpp(text):
    """(line number, line) of each decision from message text in C/C++ `text`."""
    lines = blank_cpp(text).split("\n")
    found = []
    for i, line in enumerate(lines):
        if STRAIGHT.search(line) or REVERSED.search(line):
            found.append(i + 1)
        for held in HELD.finditer(line):
            name = re.escape(held.group(1))
            use = re.compile(r"\b" + name + r"\s*(?:" + SEARCH + r"|[!=]=)|[!=]=\s*" + name +
                             r"\b")
            if use.search(line[held.end():]):
                found.append(i + 1)
            for later in range(i + 1, min(i + 1 + HELD_LINES, len(lines))):
                if use.search(lines[later]):
                    found.append(later + 1)
    return sorted(set(found))


def findings_py(text):
    lines = blank_py(text).split("\n")
    return [n for n, line in enumerate(lines, 1)
            if PY_STRAIGHT.search(line) or PY_REVERSED.search(line)]


def scan(root):
    problems = []
    for top in PRODUCT_DIRS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d not in ("tests", "__pycache__"))
            for name in sorted(files):
                path = os.path.join(folder, name)
                if name.endswith(CPP_SUFFIXES):
                    check = findings_cpp
                elif name.endswith(".py"):
                    check = findings_py
                else:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                raw = text.split("\n")
                for number in check(text):
                    problems.append("%s:%d: %s" % (os.path.relpath(path, root), number,
                                                   raw[number - 1].strip()))
    return problems


# Lines the detector must flag, and lines it must let through.
MUST_FLAG_CPP = [
    'return status.is_invalid_argument() && status.message().rfind("compare failed", 0) == 0;',
    'if (s.message() == "connection closed")',
    'if (got > 0 && n.status().message() == "connection closed") {',
    'if (s.message().rfind("TLS: ", 0) == 0) {',
    'if (s->message().starts_with("TLS")) return;',
    'bool same = "timed out" != r.status().to_string();',
    'const std::string m = s.message();\nint x = 0;\nif (m.find("in use") != std::string::npos) {}',
    'std::string text{st.to_string()};\nreturn text == "OK";',
]
MUST_PASS_CPP = [
    'if (s.is_io_error() && s.errno_value() == EADDRINUSE) return;',
    'return failed(s.message());',
    'std::string out = s.to_string() + "\\n";',
    'EXPECT_EQ(std::to_string(n) == "1", true);',
    '// a comment: s.message() == "x" decides nothing',
    'log("if (s.message() == \\"x\\")");',
    'std::string msg = s.message();\nmsg += " (more)";\nreturn Status::busy(msg);',
    'if (reply.code == ReplyCode::kCompareFailed) r.message = w.status.message();',
]
MUST_FLAG_PY = [
    'if e.message.startswith("compare failed"):',
    'if "not found" in str(exc):',
    'assert err.message == "closed"',
]
MUST_PASS_PY = [
    'raise cls(message)',
    'self.message = message',
    '# if e.message == "x"',
]


def self_test():
    misses = []
    for lines, check, want in ((MUST_FLAG_CPP, findings_cpp, True),
                               (MUST_PASS_CPP, findings_cpp, False),
                               (MUST_FLAG_PY, findings_py, True),
                               (MUST_PASS_PY, findings_py, False)):
        for text in lines:
            if bool(check(text)) != want:
                misses.append(("missed: " if want else "flagged: ") + text.replace("\n", " | "))
    for miss in misses:
        print(miss, file=sys.stderr)
    total = len(MUST_FLAG_CPP) + len(MUST_PASS_CPP) + len(MUST_FLAG_PY) + len(MUST_PASS_PY)
    print("self-test: %d of %d samples as expected" % (total - len(misses), total))
    return 1 if misses else 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = scan(os.path.abspath(root))
    if problems:
        print("decisions from an error message's text (branch on the Status code, errno or a "
              "structured result instead; base/include/ordo/status.h):", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print("no decision from an error message's text")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
