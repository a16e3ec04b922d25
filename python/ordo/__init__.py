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
(put_many, put_columns, get_many, scan_columns), Arrow and pandas, errors and
threads.
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
from ordo._loader import load_compiled_module

_ordo = load_compiled_module()
from ordo._ordo import (  # noqa: E402 - after the check that the module loads
    ColumnBatch,
    Cursor,
    Database,
    Savepoint,
    Tree,
    Txn,
    __version__,
    open,
)
from ordo import _frames  # noqa: E402

Txn.to_pandas = _frames.to_pandas
Txn.from_pandas = _frames.from_pandas

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
