"""DataFrames in and out through numpy: Txn.to_pandas and Txn.from_pandas.

Any pandas works (Debian's 1.5 included): columns go through numpy and
Txn.put_columns / Txn.scan_columns, without pyarrow. A pandas column of bytes
is an object array, whose memory holds pointers: from_pandas joins its values
into one buffer with offsets, which is what put_columns takes.

Integer keys are stored big-endian with the sign bit flipped, so that their
bytes sort as the numbers do (as Txn.put_arrow stores integer keys);
to_pandas(key_dtype=...) reads them back. numpy and pandas are imported at
the first call: ordo needs neither.
"""


def _key_bytes(column, name):
    """put_columns keyword arguments for a key column: fixed-width rows for
    integers, else data with offsets."""
    import numpy as np

    array = np.asarray(column)
    if array.dtype.kind in "iu":
        width = array.dtype.itemsize
        raw = array.astype(f"i{width}" if array.dtype.kind == "i" else f"u{width}")
        raw = raw.view(f"u{width}")
        if array.dtype.kind == "i":
            raw = raw ^ np.uint64(1 << (8 * width - 1)).astype(f"u{width}")
        big = np.ascontiguousarray(raw.astype(f">u{width}"))
        return {"keys": big.view(np.uint8).reshape(len(array), width)}
    data, offsets = _joined(array, name)
    return {"keys": data, "key_offsets": offsets}


def _joined(array, name):
    """(data, int64 offsets) of a column of bytes or str values."""
    import numpy as np

    if array.dtype.kind not in "OSU":
        raise TypeError(f"from_pandas: the {name} column has dtype {array.dtype}: it must hold "
                        "bytes or str" + (" (or integers)" if name == "key" else ""))
    cells = []
    for i, cell in enumerate(array.tolist()):
        if isinstance(cell, bytes):
            cells.append(cell)
        elif isinstance(cell, str):
            cells.append(cell.encode())
        elif isinstance(cell, (bytearray, memoryview)):
            cells.append(bytes(cell))
        elif cell is None or (isinstance(cell, float) and cell != cell):
            raise ValueError(f"from_pandas: row {i}: the {name} is missing (None or NaN)")
        else:
            raise TypeError(f"from_pandas: row {i}: the {name} is a {type(cell).__name__}, "
                            "not bytes or str")
    offsets = np.zeros(len(cells) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, cells), dtype=np.int64, count=len(cells)), out=offsets[1:])
    return b"".join(cells), offsets


def from_pandas(txn, frame, *, key="key", value="value", tree=None, append=False):
    """Puts the rows of a pandas DataFrame: column `key` (bytes, str, or an
    integer dtype) and column `value` (bytes or str). Returns the row count.
    Goes in through put_columns: in chunks with the GIL released, an
    interrupt rolls the txn back. A missing value (None, NaN) is a
    ValueError naming the row."""
    keys = _key_bytes(frame[key].to_numpy(), "key")
    values, value_offsets = _joined(frame[value].to_numpy(), "value")
    return txn.put_columns(values=values, value_offsets=value_offsets, tree=tree, append=append,
                           **keys)


def _decoded_keys(batch, key_dtype):
    import numpy as np

    dtype = np.dtype(key_dtype)
    width = dtype.itemsize
    if dtype.kind not in "iu" or batch.key_width != width:
        raise ValueError(f"to_pandas: key_dtype {dtype} needs keys of {width} bytes "
                         f"(this batch's: {batch.key_width})")
    raw = np.frombuffer(batch.key_data, dtype=f">u{width}").astype(f"u{width}")
    if dtype.kind == "i":
        raw = (raw ^ np.uint64(1 << (8 * width - 1)).astype(f"u{width}")).view(f"i{width}")
    return raw.astype(dtype)


def to_pandas(txn, start=None, stop=None, *, tree=None, key_dtype=None, batch_bytes=1 << 20):
    """A pandas DataFrame of the entries in [start, stop) (None: unbounded),
    in key order: columns key and value of bytes objects, or with key_dtype
    (an integer dtype) the keys decoded as from_pandas and put_arrow store
    integers."""
    import numpy as np
    import pandas as pd

    keys, values = [], []
    for batch in txn.scan_columns(start, stop, tree=tree, batch_bytes=batch_bytes):
        keys.append(_decoded_keys(batch, key_dtype) if key_dtype is not None
                    else np.array(batch.key_list(), dtype=object))
        values.append(np.array(batch.value_list(), dtype=object))
    empty = np.empty(0, dtype=object if key_dtype is None else np.dtype(key_dtype))
    return pd.DataFrame({
        "key": np.concatenate(keys) if keys else empty,
        "value": np.concatenate(values) if values else np.empty(0, dtype=object),
    })
