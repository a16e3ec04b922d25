#!/usr/bin/env python3
"""Uses ordo from Python through its C API (ordo/ordo.h) with ctypes only.

    python3 consumer.py /path/to/libordo.so DIRECTORY

Creates DIRECTORY/consumer.ordo, writes two trees, reads them back, commits,
checks that a call on the committed txn returns ORDO_TXN_ENDED, closes,
reopens and reads again. Exits 0 when every call returned what it should,
1 (naming the call, the code and the message) otherwise.
"""
import ctypes
import os
import sys
from ctypes import (CFUNCTYPE, POINTER, Structure, byref, c_bool, c_char, c_char_p, c_double,
                    c_int, c_size_t, c_uint8, c_uint32, c_uint64, c_void_p)

# Codes of ordo.h.
ORDO_OK = 0
ORDO_NOT_FOUND = 1
ORDO_TXN_ENDED = 9
ORDO_UUID_BYTES = 16
ORDO_UUID_STRING_SIZE = 37


class Error(Structure):
    _fields_ = [("code", c_int), ("sys_errno", c_int), ("page_number", c_uint64),
                ("message", c_char * 512)]


class Options(Structure):
    _fields_ = [("struct_size", c_size_t), ("page_size_bytes", c_uint32),
                ("writer_wait_ms", c_uint32), ("extent_bytes", c_uint64),
                ("max_extent_bytes", c_uint64), ("map_reserve_bytes", c_uint64),
                ("txn_memory_budget_bytes", c_uint64), ("append_fill", c_double),
                ("id_node", c_uint32), ("commit_protocol", c_int), ("io_backend", c_int),
                ("create_if_missing", c_bool), ("read_only", c_bool), ("sync_commits", c_bool),
                ("verify_checksums", c_bool), ("trim_on_close", c_bool), ("log_bytes", c_uint64)]


SCAN_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t, c_void_p, c_size_t)
TREE_LIST_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t)  # a name may hold NUL bytes
ERR = POINTER(Error)
HANDLE = c_void_p
OUT_HANDLE = POINTER(c_void_p)


def load(path):
    lib = ctypes.CDLL(path)
    sigs = {
        "ordo_version": (c_char_p, []),
        "ordo_code_name": (c_char_p, [c_int]),
        "ordo_options_init": (c_int, [POINTER(Options), c_size_t, ERR]),
        "ordo_open": (c_int, [c_char_p, POINTER(Options), OUT_HANDLE, ERR]),
        "ordo_db_close": (None, [HANDLE]),
        "ordo_begin_read": (c_int, [HANDLE, OUT_HANDLE, ERR]),
        "ordo_begin_write": (c_int, [HANDLE, OUT_HANDLE, ERR]),
        "ordo_txn_commit": (c_int, [HANDLE, ERR]),
        "ordo_txn_abort": (c_int, [HANDLE, ERR]),
        "ordo_txn_free": (None, [HANDLE]),
        "ordo_tree_create": (c_int, [HANDLE, c_void_p, c_size_t, OUT_HANDLE, ERR]),
        "ordo_tree_open": (c_int, [HANDLE, c_void_p, c_size_t, OUT_HANDLE, ERR]),
        "ordo_tree_free": (None, [HANDLE]),
        "ordo_tree_list": (c_int, [HANDLE, TREE_LIST_FN, c_void_p, ERR]),
        "ordo_get": (c_int, [HANDLE, HANDLE, c_void_p, c_size_t, POINTER(c_void_p),
                             POINTER(c_size_t), ERR]),
        "ordo_put": (c_int, [HANDLE, HANDLE, c_void_p, c_size_t, c_void_p, c_size_t, ERR]),
        "ordo_scan": (c_int, [HANDLE, HANDLE, c_void_p, c_size_t, c_void_p, c_size_t, SCAN_FN,
                              c_void_p, ERR]),
        "ordo_next_id": (c_int, [HANDLE, POINTER(c_uint8 * ORDO_UUID_BYTES), ERR]),
        "ordo_uuid_format": (c_int, [POINTER(c_uint8 * ORDO_UUID_BYTES), c_void_p, c_size_t,
                                     ERR]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


class Consumer:
    def __init__(self, lib):
        self.lib = lib
        self.err = Error()

    def expect(self, rc, want, what):
        if rc != want:
            name = self.lib.ordo_code_name(rc).decode()
            sys.exit(f"consumer.py: {what}: got {name} (want "
                     f"{self.lib.ordo_code_name(want).decode()}): {self.err.message.decode()}")

    def check(self, rc, what):
        self.expect(rc, ORDO_OK, what)

    def handle(self, fn, *args, what):
        out = c_void_p()
        self.check(fn(*args, byref(out), byref(self.err)), what)
        return out

    def get(self, txn, tree, key):
        value = c_void_p()
        size = c_size_t()
        self.check(self.lib.ordo_get(txn, tree, key, len(key), byref(value), byref(size),
                                     byref(self.err)), f"get {key!r}")
        return ctypes.string_at(value, size.value)

    def put(self, txn, tree, key, value):
        self.check(self.lib.ordo_put(txn, tree, key, len(key), value, len(value),
                                     byref(self.err)), f"put {key!r}")

    def expect_value(self, txn, tree, key, want):
        got = self.get(txn, tree, key)
        if got != want:
            sys.exit(f"consumer.py: {key!r} is {got!r}, want {want!r}")

    def read_back(self, db, id_key, id_text):
        lib = self.lib
        txn = self.handle(lib.ordo_begin_read, db, what="ordo_begin_read")
        people = self.handle(lib.ordo_tree_open, txn, b"people", 6, what="open people")
        cities = self.handle(lib.ordo_tree_open, txn, b"cities", 6, what="open cities")
        self.expect_value(txn, people, b"ada", b"London")
        self.expect_value(txn, people, id_key, id_text)
        self.expect_value(txn, cities, b"Paris", b"France")
        self.expect_value(txn, None, b"greeting", b"hello")
        value, size = c_void_p(), c_size_t()
        self.expect(lib.ordo_get(txn, people, b"nobody", 6, byref(value), byref(size),
                                 byref(self.err)), ORDO_NOT_FOUND, "get nobody")

        seen = []

        @SCAN_FN
        def visit(ctx, key, key_len, value, value_len):
            seen.append((ctypes.string_at(key, key_len), ctypes.string_at(value, value_len)))
            return 0

        self.check(lib.ordo_scan(txn, cities, None, 0, None, 0, visit, None, byref(self.err)),
                   "ordo_scan")
        if seen != [(b"London", b"UK"), (b"Paris", b"France")]:
            sys.exit(f"consumer.py: scan of cities gave {seen!r}")

        names = []

        @TREE_LIST_FN
        def tree(ctx, name, name_len):
            names.append(ctypes.string_at(name, name_len))
            return 0

        self.check(lib.ordo_tree_list(txn, tree, None, byref(self.err)), "ordo_tree_list")
        if names != [b"cities", b"people"]:
            sys.exit(f"consumer.py: trees {names!r}")
        lib.ordo_tree_free(people)
        lib.ordo_tree_free(cities)
        self.check(lib.ordo_txn_abort(txn, byref(self.err)), "ordo_txn_abort")
        lib.ordo_txn_free(txn)

    def run(self, directory):
        lib = self.lib
        path = os.path.join(directory, "consumer.ordo").encode()
        options = Options()
        self.check(lib.ordo_options_init(byref(options), ctypes.sizeof(options), byref(self.err)),
                   "ordo_options_init")
        options.verify_checksums = True
        db = self.handle(lib.ordo_open, path, byref(options), what="ordo_open")

        txn = self.handle(lib.ordo_begin_write, db, what="ordo_begin_write")
        people = self.handle(lib.ordo_tree_create, txn, b"people", 6, what="create people")
        cities = self.handle(lib.ordo_tree_create, txn, b"cities", 6, what="create cities")
        self.put(txn, people, b"ada", b"London")
        self.put(txn, people, b"grace", b"New York")
        self.put(txn, cities, b"Paris", b"France")
        self.put(txn, cities, b"London", b"UK")
        self.put(txn, None, b"greeting", b"hello")  # None: the default tree
        uuid = (c_uint8 * ORDO_UUID_BYTES)()
        self.check(lib.ordo_next_id(txn, byref(uuid), byref(self.err)), "ordo_next_id")
        text = ctypes.create_string_buffer(ORDO_UUID_STRING_SIZE)
        self.check(lib.ordo_uuid_format(byref(uuid), text, len(text), byref(self.err)),
                   "ordo_uuid_format")
        id_key, id_text = bytes(uuid), text.value
        self.put(txn, people, id_key, id_text)
        self.expect_value(txn, people, b"grace", b"New York")  # its own writes
        self.check(lib.ordo_txn_commit(txn, byref(self.err)), "ordo_txn_commit")

        # Misuse: the committed txn's handle is still valid, its calls report TxnEnded.
        rc = lib.ordo_put(txn, people, b"k", 1, b"v", 1, byref(self.err))
        self.expect(rc, ORDO_TXN_ENDED, "put on a committed txn")
        if b"TxnEnded" not in self.err.message:
            sys.exit(f"consumer.py: message {self.err.message!r}")
        self.expect(lib.ordo_txn_commit(txn, byref(self.err)), ORDO_TXN_ENDED, "commit again")
        lib.ordo_txn_free(txn)
        lib.ordo_tree_free(people)
        lib.ordo_tree_free(cities)

        self.read_back(db, id_key, id_text)
        lib.ordo_db_close(db)
        db = self.handle(lib.ordo_open, path, byref(options), what="ordo_open again")
        self.read_back(db, id_key, id_text)
        lib.ordo_db_close(db)
        print(f"consumer.py: ok (ordo {lib.ordo_version().decode()}, id {id_text.decode()})")


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} LIBORDO.so DIRECTORY")
    Consumer(load(sys.argv[1])).run(sys.argv[2])


if __name__ == "__main__":
    main()
