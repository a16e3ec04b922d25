"""A consumer and a producer of the Arrow C data interface written from its
specification (arrow.apache.org/docs/format/CDataInterface.html, the C stream
interface and the PyCapsule interface) with ctypes, for the tests: no pyarrow.

The consumer moves structs out of capsules, checks what the specification
requires of them (formats, buffer counts, offsets in order and within the
data, release callbacks that set release to NULL), reads the columns into
Python lists and releases every struct exactly once.

The producer builds record batches in ctypes memory with release callbacks
that count their calls, so a test can check that ordo releases what it takes.
"""

import ctypes

ARROW_FLAG_NULLABLE = 2


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                    ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                  ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p),
]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype = ctypes.c_int
_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


class SpecError(AssertionError):
    """Something the specification requires does not hold."""


def require(condition, what):
    if not condition:
        raise SpecError(what)


def move_out(capsule, name, struct):
    """The struct in a capsule named `name`, moved out as the PyCapsule
    interface says: copied, and the capsule's release set to NULL."""
    require(_is_valid(capsule, name.encode()) == 1, f"a capsule named {name!r}")
    pointer = ctypes.cast(_get_pointer(capsule, name.encode()), ctypes.POINTER(struct))
    require(bool(pointer.contents.release), f"the {name} capsule holds a released struct")
    moved = struct()
    ctypes.memmove(ctypes.byref(moved), pointer, ctypes.sizeof(struct))
    pointer.contents.release = type(pointer.contents.release)()  # NULL: ours now
    return moved


def release(struct):
    """Calls the struct's release callback and checks that it marked the
    struct released (release set to NULL), as the specification requires."""
    require(bool(struct.release), "release called on a released struct")
    struct.release(ctypes.byref(struct))
    require(not struct.release, "the release callback did not set release to NULL")


def read_schema(schema):
    """(format, name, [children]) of a schema, checked."""
    require(schema.format is not None, "a schema without a format")
    children = []
    for i in range(schema.n_children):
        child = schema.children[i].contents
        require(bool(child.release), "a child schema without a release callback")
        children.append(read_schema(child))
    return (schema.format.decode(), (schema.name or b"").decode(), children)


def _buffer(array, i, size):
    pointer = array.buffers[i]
    require(pointer is not None, f"buffer {i} is NULL")
    return ctypes.string_at(pointer, size)


def read_binary(array, fmt):
    """The values of a binary / large_binary child array, its offsets checked."""
    require(fmt in ("z", "Z", "u", "U"), f"a binary format, not {fmt!r}")
    require(array.n_buffers == 3, "a binary array has 3 buffers")
    require(array.null_count == 0 or array.buffers[0] is not None,
            "nulls without a validity buffer")
    width = 8 if fmt in ("Z", "U") else 4
    ctype = ctypes.c_int64 if width == 8 else ctypes.c_int32
    n = array.length
    offsets = ctypes.cast(array.buffers[1], ctypes.POINTER(ctype))
    start = array.offset
    values = []
    for i in range(n):
        a, b = offsets[start + i], offsets[start + i + 1]
        require(0 <= a <= b, f"offsets out of order at row {i}: {a} > {b}")
        values.append(ctypes.string_at(array.buffers[2] + a, b - a) if b > a else b"")
    return values


def read_batch(schema, array):
    """{column name: [bytes]} of a record batch (a struct array), checked."""
    fmt, _, children = read_schema(schema)
    require(fmt == "+s", f"a record batch is a struct, not {fmt!r}")
    require(array.n_children == len(children), "children of the schema and the array agree")
    require(array.n_buffers == 1, "a struct array has one buffer (validity)")
    out = {}
    for i, (child_fmt, name, _) in enumerate(children):
        child = array.children[i].contents
        require(bool(child.release), "a child array without a release callback")
        require(child.length >= array.length + array.offset - child.offset,
                "a child shorter than its parent")
        out[name] = read_binary(child, child_fmt)
    return out


def consume_array(obj):
    """The columns of an object's __arrow_c_array__, every struct released."""
    schema_capsule, array_capsule = obj.__arrow_c_array__()
    schema = move_out(schema_capsule, "arrow_schema", ArrowSchema)
    array = move_out(array_capsule, "arrow_array", ArrowArray)
    try:
        return read_batch(schema, array)
    finally:
        release(array)
        release(schema)


def consume_stream(obj):
    """The batches of an object's __arrow_c_stream__, as lists of columns."""
    stream = move_out(obj.__arrow_c_stream__(), "arrow_array_stream", ArrowArrayStream)
    batches = []
    try:
        schema = ArrowSchema()
        code = stream.get_schema(ctypes.byref(stream), ctypes.byref(schema))
        require(code == 0, f"get_schema failed: {code}")
        try:
            while True:
                array = ArrowArray()
                code = stream.get_next(ctypes.byref(stream), ctypes.byref(array))
                if code != 0:
                    error = stream.get_last_error(ctypes.byref(stream))
                    raise OSError(code, (error or b"").decode())
                if not array.release:
                    break  # the end of the stream
                try:
                    batches.append(read_batch(schema, array))
                finally:
                    release(array)
        finally:
            release(schema)
    finally:
        release(stream)
    return batches


# --- a producer -----------------------------------------------------------------


class Producer:
    """Record batches built from Python columns, exported as the PyCapsule
    interface wants, with release callbacks that count their calls.

    columns: [(name, format, values)]; values are bytes for the binary
    formats ('z', 'Z', 'u', 'U', 'w:N'), ints for the integer ones, or None
    for a null."""

    def __init__(self, columns, offset=0):
        self.columns = columns
        self.offset = offset  # rows of each array skipped by ArrowArray.offset
        # Releases of the top-level structs (children are counted apart).
        self.released = {"schema": 0, "array": 0, "stream": 0}
        self.children_released = 0
        self._keep = []  # ctypes objects that must outlive the exported structs
        self._release_schema = ArrowSchema._fields_[7][1](self._on_schema_release)
        self._release_array = ArrowArray._fields_[8][1](self._on_array_release)
        self._release_child_schema = ArrowSchema._fields_[7][1](self._on_child_release)
        self._release_child_array = ArrowArray._fields_[8][1](self._on_child_release)

    def _on_schema_release(self, pointer):
        self.released["schema"] += 1
        schema = pointer.contents
        for i in range(schema.n_children):  # the parent releases its children
            child = schema.children[i].contents
            if child.release:
                child.release(schema.children[i])
        schema.release = type(schema.release)()

    def _on_array_release(self, pointer):
        self.released["array"] += 1
        array = pointer.contents
        for i in range(array.n_children):  # the parent releases its children
            child = array.children[i].contents
            if child.release:
                child.release(array.children[i])
        array.release = type(array.release)()

    def _on_child_release(self, pointer):
        self.children_released += 1
        pointer.contents.release = type(pointer.contents.release)()

    def _keep_alive(self, *objects):
        self._keep.extend(objects)
        return objects[0]

    def schema(self, out):
        children = (ctypes.POINTER(ArrowSchema) * len(self.columns))()
        for i, (name, fmt, _) in enumerate(self.columns):
            child = ArrowSchema(fmt.encode(), name.encode(), None, ARROW_FLAG_NULLABLE, 0, None,
                                None, self._release_child_schema, None)
            self._keep_alive(child)
            children[i] = ctypes.pointer(child)
        self._keep_alive(children)
        out.format, out.name, out.metadata, out.flags = b"+s", b"", None, 0
        out.n_children, out.children, out.dictionary = len(self.columns), children, None
        out.release, out.private_data = self._release_schema, None

    def _child(self, fmt, values):
        skip = [b"" if fmt[0] != "w" and fmt not in "cCsSiIlLg" else None] * self.offset
        rows = skip + list(values)
        n = len(rows)
        validity = (ctypes.c_uint8 * ((n + 7) // 8 + 1))()
        nulls = 0
        for i, v in enumerate(rows):
            if v is None and i >= self.offset:
                nulls += 1
            else:
                validity[i // 8] |= 1 << (i % 8)
        buffers = []
        if fmt in ("z", "Z", "u", "U"):
            ctype = ctypes.c_int64 if fmt in ("Z", "U") else ctypes.c_int32
            offsets = (ctype * (n + 1))()
            data = b""
            for i, v in enumerate(rows):
                data += v or b""
                offsets[i + 1] = len(data)
            blob = ctypes.create_string_buffer(data, len(data) + 1)
            buffers = [validity, offsets, blob]
        elif fmt.startswith("w:"):
            width = int(fmt[2:])
            blob = ctypes.create_string_buffer(b"".join(v or bytes(width) for v in rows), n * width + 1)
            buffers = [validity, blob]
        else:
            ctype = {"c": ctypes.c_int8, "C": ctypes.c_uint8, "s": ctypes.c_int16,
                     "S": ctypes.c_uint16, "i": ctypes.c_int32, "I": ctypes.c_uint32,
                     "l": ctypes.c_int64, "L": ctypes.c_uint64, "g": ctypes.c_double}[fmt]
            ints = (ctype * n)(*[v or 0 for v in rows])
            buffers = [validity, ints]
        pointers = (ctypes.c_void_p * len(buffers))(
            *[ctypes.cast(b, ctypes.c_void_p) for b in buffers])
        array = ArrowArray(n - self.offset, nulls, self.offset, len(buffers), 0, pointers, None,
                           None, self._release_child_array, None)
        self._keep_alive(array, pointers, *buffers)
        return array

    def array(self, out):
        n = len(self.columns[0][2])
        children = (ctypes.POINTER(ArrowArray) * len(self.columns))()
        for i, (_, fmt, values) in enumerate(self.columns):
            children[i] = ctypes.pointer(self._child(fmt, values))
        validity = (ctypes.c_void_p * 1)(None)
        self._keep_alive(children, validity)
        out.length, out.null_count, out.offset, out.n_buffers = n, 0, 0, 1
        out.n_children, out.buffers, out.children, out.dictionary = len(self.columns), validity, children, None
        out.release, out.private_data = self._release_array, None

    def __arrow_c_array__(self, requested_schema=None):
        schema, array = ArrowSchema(), ArrowArray()
        self.schema(schema)
        self.array(array)
        self._keep_alive(schema, array)
        return (_capsule(schema, "arrow_schema"), _capsule(array, "arrow_array"))


class StreamProducer(Producer):
    """As Producer, as a stream of `batches` copies of its record batch."""

    def __init__(self, columns, batches):
        super().__init__(columns)
        self.left = batches
        self._get_schema = ArrowArrayStream._fields_[0][1](self._on_get_schema)
        self._get_next = ArrowArrayStream._fields_[1][1](self._on_get_next)
        self._last_error = ArrowArrayStream._fields_[2][1](lambda s: None)
        self._release_stream = ArrowArrayStream._fields_[3][1](self._on_stream_release)

    def _on_get_schema(self, stream, out):
        self.schema(out.contents)
        return 0

    def _on_get_next(self, stream, out):
        if self.left == 0:
            out.contents.release = type(out.contents.release)()
            return 0
        self.left -= 1
        self.array(out.contents)
        return 0

    def _on_stream_release(self, pointer):
        self.released["stream"] += 1
        pointer.contents.release = type(pointer.contents.release)()

    def __arrow_c_stream__(self, requested_schema=None):
        stream = ArrowArrayStream(self._get_schema, self._get_next, self._last_error,
                                  self._release_stream, None)
        self._keep_alive(stream)
        return _capsule(stream, "arrow_array_stream")


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_names = {}


def _capsule(struct, name):
    """A capsule of `struct` without a destructor: the producer keeps it alive."""
    key = _names.setdefault(name, ctypes.create_string_buffer(name.encode()))
    return _capsule_new(ctypes.addressof(struct), ctypes.cast(key, ctypes.c_char_p), None)
