"""The write operations the model tests draw, applied to a write txn and to
the dict that models it."""


def apply_write(txn, pending, op):
    """Applies `op` (a tuple: name, then arguments) to `txn` and `pending`,
    asserting what the call returns against the model. False when `op` is
    not one of put, delete, delete_range, put_many."""
    name = op[0]
    if name == "put":
        txn.put(op[1], op[2])
        pending[op[1]] = op[2]
    elif name == "delete":
        assert txn.delete(op[1]) == (op[1] in pending)
        pending.pop(op[1], None)
    elif name == "delete_range":
        gone = [k for k in pending if op[1] <= k < op[2]]
        assert txn.delete_range(op[1], op[2]) == len(gone)
        for k in gone:
            del pending[k]
    elif name == "put_many":
        assert txn.put_many(op[1]) == len(op[1])
        pending.update(op[1])
    else:
        return False
    return True
