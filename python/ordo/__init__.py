"""ordo: an embedded persistent key-value store (one file of named B+-trees,
copy-on-write transactions), for Python.

    import ordo

    with ordo.open("graph.ordo") as db:
        with db.write() as txn:            # commits on normal exit
            txn.put(b"key", b"value")
        with db.read() as txn:             # a snapshot
            assert txn.get(b"key") == b"value"

Keys and values are bytes (any bytes-like object is accepted). docs/PYTHON.md
describes the API, zero-copy reads (read(buffers=True)), the bulk paths
(put_many, put_columns, scan_columns), errors and threads.
"""

from ordo._errors import (
    BusyError,
    ClosedError,
    CorruptionError,
    Error,
    FullError,
    InvalidArgumentError,
    IOError,
    NeedsRecoveryError,
    NotFoundError,
    NotOrdoFileError,
    TxnEndedError,
    VersionMismatchError,
)
from ordo._ordo import ColumnBatch, Cursor, Database, Savepoint, Tree, Txn, __version__, open

__all__ = [
    "__version__",
    "open",
    "Database",
    "Txn",
    "Cursor",
    "Tree",
    "ColumnBatch",
    "Savepoint",
    "Error",
    "NotFoundError",
    "InvalidArgumentError",
    "CorruptionError",
    "IOError",
    "BusyError",
    "FullError",
    "NotOrdoFileError",
    "VersionMismatchError",
    "TxnEndedError",
    "NeedsRecoveryError",
    "ClosedError",
]
