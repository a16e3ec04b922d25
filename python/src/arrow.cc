// Arrow without pyarrow: the PyCapsule interface of ordo's columns
// (arrow.apache.org/docs/format/CDataInterface/PyCapsuleInterface.html).
//
// Out: ColumnBatch.__arrow_c_array__ (a struct array, a record batch, of
// `key` and `value` columns, both large_binary, over the batch's own
// buffers: no copy) and the scan_columns iterator's __arrow_c_stream__ (its
// batches as a stream). The exported arrays hold the buffers through
// shared_ptrs, so their release callbacks need no GIL; the stream's
// get_next takes the GIL to read the next batch.
//
// In: Txn.put_arrow takes any object with __arrow_c_stream__ or
// __arrow_c_array__ (a table, record batch or reader of pyarrow, polars,
// DuckDB, ...): a key column of binary, large_binary, string, large_string,
// fixed_size_binary or integer type, and a value column of one of the first
// five; each batch inserted as Txn.put_columns inserts columns.
#include "arrow.h"

#include <bit>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "bulk.h"
#include "byte_columns.h"
#include "column_batch.h"
#include "errors.h"
#include "native.h"
#include "ordo/assert.h"
#include "state.h"

namespace ordo::python {
namespace {

// --- out ----------------------------------------------------------------------

// A schema whose strings and children it owns.
struct SchemaOwner {
  std::string format, name;
  std::vector<std::unique_ptr<ArrowSchema>> children;
  std::vector<ArrowSchema*> child_pointers;
};

void release_schema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  auto* owner = static_cast<SchemaOwner*>(schema->private_data);
  for (ArrowSchema* child : owner->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  delete owner;
  schema->release = nullptr;
}

void fill_schema(ArrowSchema* out, std::string format, std::string name,
                 std::vector<std::unique_ptr<ArrowSchema>> children) {
  auto* owner = new SchemaOwner{std::move(format), std::move(name), std::move(children), {}};
  for (auto& c : owner->children) owner->child_pointers.push_back(c.get());
  *out = ArrowSchema{owner->format.c_str(),
                     owner->name.c_str(),
                     nullptr,
                     0,  // not nullable: every key and value is present
                     static_cast<int64_t>(owner->child_pointers.size()),
                     owner->child_pointers.empty() ? nullptr : owner->child_pointers.data(),
                     nullptr,
                     release_schema,
                     owner};
}

// The schema of every exported batch: struct<key: large_binary, value: large_binary>.
void batch_schema(ArrowSchema* out) {
  std::vector<std::unique_ptr<ArrowSchema>> children;
  for (const char* name : {"key", "value"}) {
    children.push_back(std::make_unique<ArrowSchema>());
    fill_schema(children.back().get(), "Z", name, {});
  }
  fill_schema(out, "+s", "", std::move(children));
}

// An array's buffers and children, and the storage its buffers point into.
struct ArrayOwner {
  std::vector<StoragePtr> storage;
  std::vector<const void*> buffers;
  std::vector<std::unique_ptr<ArrowArray>> children;
  std::vector<ArrowArray*> child_pointers;
};

void release_array(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  auto* owner = static_cast<ArrayOwner*>(array->private_data);
  // A child the consumer moved out has a null release: it is its own now.
  for (ArrowArray* child : owner->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  delete owner;
  array->release = nullptr;
}

void fill_array(ArrowArray* out, int64_t length, std::unique_ptr<ArrayOwner> owner) {
  for (auto& c : owner->children) owner->child_pointers.push_back(c.get());
  ArrayOwner* o = owner.release();
  *out = ArrowArray{length,
                    0,  // no nulls
                    0,
                    static_cast<int64_t>(o->buffers.size()),
                    static_cast<int64_t>(o->child_pointers.size()),
                    o->buffers.data(),
                    o->child_pointers.empty() ? nullptr : o->child_pointers.data(),
                    nullptr,
                    release_array,
                    o};
}

// A large_binary child over an offsets storage and a bytes storage. Each
// child holds its storage itself: a consumer may keep it past its parent.
std::unique_ptr<ArrowArray> binary_child(int64_t length, const StoragePtr& offsets,
                                         const StoragePtr& bytes) {
  // Arrow wants a data buffer even when every value is empty.
  static const uint8_t kNoBytes[8] = {};
  auto owner = std::make_unique<ArrayOwner>();
  owner->storage = {offsets, bytes};
  owner->buffers = {nullptr, offsets->offsets.data(),
                    bytes->bytes.empty() ? kNoBytes : bytes->bytes.data()};
  auto child = std::make_unique<ArrowArray>();
  fill_array(child.get(), length, std::move(owner));
  return child;
}

void batch_array(const ColumnBatch& b, ArrowArray* out) {
  const auto length = static_cast<int64_t>(b.count);
  auto owner = std::make_unique<ArrayOwner>();
  owner->buffers = {nullptr};  // the struct's validity: none
  owner->children.push_back(binary_child(length, b.key_offsets_storage, b.keys));
  owner->children.push_back(binary_child(length, b.value_offsets_storage, b.values));
  fill_array(out, length, std::move(owner));
}

// A capsule of a struct it owns: its destructor releases the struct unless a
// consumer moved it out (set its release to null), then frees it.
template <typename T>
py::capsule owning_capsule(std::unique_ptr<T> value, const char* name) {
  PyObject* capsule = PyCapsule_New(value.get(), name, [](PyObject* c) {
    auto* v = static_cast<T*>(PyCapsule_GetPointer(c, PyCapsule_GetName(c)));
    if (v == nullptr) {
      PyErr_Clear();
      return;
    }
    if (v->release != nullptr) v->release(v);
    delete v;
  });
  if (capsule == nullptr) throw py::error_already_set();
  (void)value.release();  // the capsule owns it now
  return py::reinterpret_steal<py::capsule>(capsule);
}

py::tuple batch_c_array(const ColumnBatch& b, const py::object& /*requested_schema*/) {
  auto schema = std::make_unique<ArrowSchema>();
  batch_schema(schema.get());
  py::capsule schema_capsule = owning_capsule(std::move(schema), "arrow_schema");
  auto array = std::make_unique<ArrowArray>();
  batch_array(b, array.get());
  py::capsule array_capsule = owning_capsule(std::move(array), "arrow_array");
  return py::make_tuple(schema_capsule, array_capsule);
}

// The stream over a scan_columns iterator: a reference to it, and the last
// error's message.
struct StreamOwner {
  PyObject* scan;  // a strong reference, dropped with the GIL
  std::string error;
};

int stream_get_schema(ArrowArrayStream* stream, ArrowSchema* out) {
  if (stream->release == nullptr) return EINVAL;
  batch_schema(out);
  return 0;
}

int stream_get_next(ArrowArrayStream* stream, ArrowArray* out) {
  if (stream->release == nullptr) return EINVAL;
  auto* owner = static_cast<StreamOwner*>(stream->private_data);
  // The consumer may call from any thread, with or without the GIL.
  PyGILState_STATE gil = PyGILState_Ensure();
  int code = 0;
  PyObject* next = PyIter_Next(owner->scan);
  if (next != nullptr) {
    try {
      batch_array(py::handle(next).cast<const ColumnBatch&>(), out);
    } catch (const std::exception& e) {
      owner->error = e.what();
      code = EIO;
    }
    Py_DECREF(next);
  } else if (PyErr_Occurred() != nullptr) {
    py::error_already_set e;  // takes the error
    owner->error = e.what();
    code = EIO;
  } else {
    out->release = nullptr;  // the end of the stream
  }
  PyGILState_Release(gil);
  return code;
}

const char* stream_last_error(ArrowArrayStream* stream) {
  if (stream->release == nullptr) return nullptr;
  const auto* owner = static_cast<StreamOwner*>(stream->private_data);
  return owner->error.empty() ? nullptr : owner->error.c_str();
}

void stream_release(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  auto* owner = static_cast<StreamOwner*>(stream->private_data);
  if (Py_IsInitialized() != 0) {
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF(owner->scan);
    PyGILState_Release(gil);
  }
  delete owner;
  stream->release = nullptr;
}

py::capsule scan_c_stream(const py::object& scan, const py::object& /*requested_schema*/) {
  auto stream = std::make_unique<ArrowArrayStream>();
  auto* owner = new StreamOwner{py::object(scan).release().ptr(), {}};
  *stream = ArrowArrayStream{stream_get_schema, stream_get_next, stream_last_error, stream_release,
                             owner};
  return owning_capsule(std::move(stream), "arrow_array_stream");
}

// --- in -----------------------------------------------------------------------

// Moves the struct out of a capsule named `name` (the PyCapsule interface's
// rule: the capsule's struct is then released, its release set to null).
template <typename T>
T move_out(const py::object& capsule, const char* name) {
  auto* p = static_cast<T*>(PyCapsule_GetPointer(capsule.ptr(), name));
  if (p == nullptr) throw py::error_already_set();
  if (p->release == nullptr)
    throw py::value_error(std::string("put_arrow: the ") + name + " was released already");
  T moved = *p;
  p->release = nullptr;
  return moved;
}

// Releases an imported struct when it goes out of scope.
template <typename T>
struct Imported {
  T value{};
  Imported() { value.release = nullptr; }
  explicit Imported(T v) : value(v) {}
  Imported(const Imported&) = delete;
  Imported& operator=(const Imported&) = delete;
  ~Imported() {
    if (value.release != nullptr) value.release(&value);
  }
};

const char* type_name(const std::string& format) {
  if (format == "z") return "binary";
  if (format == "Z") return "large_binary";
  if (format == "u") return "string";
  if (format == "U") return "large_string";
  if (format.rfind("w:", 0) == 0) return "fixed_size_binary";
  if (format == "c") return "int8";
  if (format == "C") return "uint8";
  if (format == "s") return "int16";
  if (format == "S") return "uint16";
  if (format == "i") return "int32";
  if (format == "I") return "uint32";
  if (format == "l") return "int64";
  if (format == "L") return "uint64";
  return nullptr;
}

// Bytes per integer for the integer formats, 0 for others.
int integer_bytes(const std::string& f) {
  if (f == "c" || f == "C") return 1;
  if (f == "s" || f == "S") return 2;
  if (f == "i" || f == "I") return 4;
  if (f == "l" || f == "L") return 8;
  return 0;
}

// One column of one imported batch, as a ByteColumn: its bytes in place, or
// for integers big-endian copies in `encoded` with the sign bit flipped, so
// that keys sort as the numbers do.
ByteColumn import_column(const ArrowSchema& schema, const ArrowArray& array, int64_t offset,
                         int64_t length, bool integers_allowed, const std::string& what,
                         std::vector<uint8_t>& encoded) {
  const std::string format = schema.format == nullptr ? "" : schema.format;
  const char* name = type_name(format);
  const int int_bytes = integer_bytes(format);
  if (name == nullptr || (int_bytes != 0 && !integers_allowed) || schema.dictionary != nullptr) {
    throw py::type_error(
        "put_arrow: the " + what + " column has Arrow format '" + format + "': " + what +
        (integers_allowed ? "s must be binary, large_binary, string, large_string, "
                            "fixed_size_binary or an integer type"
                          : "s must be binary, large_binary, string, large_string "
                            "or fixed_size_binary"));
  }
  const int64_t start = offset + array.offset;
  // Nulls: a key or value must be present.
  if (array.null_count != 0 && array.n_buffers > 0 && array.buffers[0] != nullptr) {
    const auto* validity = static_cast<const uint8_t*>(array.buffers[0]);
    for (int64_t i = 0; i < length; ++i) {
      const int64_t bit = start + i;
      if ((validity[bit / 8] & (1u << (bit % 8))) == 0) {
        throw py::value_error("put_arrow: row " + std::to_string(i) + ": the " + what + " is null");
      }
    }
  }
  const auto rows = static_cast<size_t>(length);
  if (format == "z" || format == "u" || format == "Z" || format == "U") {
    const bool large = format == "Z" || format == "U";
    if (array.n_buffers != 3)
      throw py::value_error("put_arrow: a " + std::string(name) + " array without 3 buffers");
    Offsets o;
    o.width = large ? 8 : 4;
    o.is_signed = true;
    o.data = static_cast<const std::byte*>(array.buffers[1]) + start * o.width;
    o.count = rows + 1;
    const int64_t last = o.at(rows);
    return ByteColumn::delimited(static_cast<const std::byte*>(array.buffers[2]),
                                 static_cast<size_t>(last < 0 ? 0 : last), o);
  }
  if (array.n_buffers != 2)
    throw py::value_error("put_arrow: a " + std::string(name) + " array without 2 buffers");
  const auto* data = static_cast<const std::byte*>(array.buffers[1]);
  if (int_bytes == 0) {
    const size_t width = std::stoul(format.substr(2));
    return ByteColumn::fixed(data + start * static_cast<int64_t>(width), rows, width);
  }
  const bool is_signed = format == "c" || format == "s" || format == "i" || format == "l";
  const auto w = static_cast<size_t>(int_bytes);
  encoded.resize(rows * w);
  const std::byte* from = data + start * int_bytes;
  // Arrow's buffers are in the host's byte order: reversed on a little-endian host.
  const bool reverse = std::endian::native == std::endian::little;
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < w; ++j) {
      encoded[i * w + j] = static_cast<uint8_t>(from[i * w + (reverse ? w - 1 - j : j)]);
    }
    if (is_signed) encoded[i * w] ^= 0x80;
  }
  return ByteColumn::fixed(reinterpret_cast<const std::byte*>(encoded.data()), rows, w);
}

// The index of the child a `key=` / `value=` argument names: a name or a position.
int64_t child_index(const ArrowSchema& schema, py::handle which, const char* what) {
  if (PyLong_Check(which.ptr())) {
    const auto i = which.cast<int64_t>();
    if (i < 0 || i >= schema.n_children) {
      throw py::index_error("put_arrow: " + std::string(what) + "=" + std::to_string(i) +
                            " but the data has " + std::to_string(schema.n_children) + " columns");
    }
    return i;
  }
  const std::string name = which.cast<std::string>();
  for (int64_t i = 0; i < schema.n_children; ++i) {
    const char* n = schema.children[i]->name;
    if (n != nullptr && name == n) return i;
  }
  throw py::key_error("put_arrow: no column named '" + name + "' for the " + what);
}

const ColumnNames kArrowKeyNames{"put_arrow", "keys", "key offsets", "key width"};
const ColumnNames kArrowValueNames{"put_arrow", "values", "value offsets", "value width"};

// Inserts one record batch (a struct array); returns its rows.
uint64_t put_batch(TxnCall& call, WriteTxn& w, const Tree& t, const ArrowSchema& schema,
                   const ArrowArray& array, int64_t key, int64_t value, bool append) {
  if (array.n_children != schema.n_children) {
    throw py::value_error("put_arrow: a batch of " + std::to_string(array.n_children) +
                          " columns for a schema of " + std::to_string(schema.n_children));
  }
  std::vector<uint8_t> encoded_keys, encoded_values;
  const ByteColumn k = import_column(*schema.children[key], *array.children[key], array.offset,
                                     array.length, true, "key", encoded_keys);
  const ByteColumn v = import_column(*schema.children[value], *array.children[value], array.offset,
                                     array.length, false, "value", encoded_values);
  return insert_columns(call, w, t, k, v, append, kArrowKeyNames, kArrowValueNames);
}

void require_struct(const ArrowSchema& schema) {
  if (schema.format == nullptr || std::strcmp(schema.format, "+s") != 0) {
    throw py::type_error(std::string("put_arrow: expected a table or record batch (Arrow format "
                                     "'+s'), got format '") +
                         (schema.format == nullptr ? "" : schema.format) + "'");
  }
}

uint64_t put_arrow(TxnState& s, const py::object& data, py::handle key, py::handle value,
                   py::handle tree, bool append) {
  TxnCall call(s);
  WriteTxn& w = call.writer("put_arrow");
  Tree t = require_tree(call, tree);
  uint64_t rows = 0;
  if (py::hasattr(data, "__arrow_c_stream__")) {
    Imported<ArrowArrayStream> stream(
        move_out<ArrowArrayStream>(data.attr("__arrow_c_stream__")(), "arrow_array_stream"));
    Imported<ArrowSchema> schema;
    auto stream_error = [&](int code) {
      const char* message = stream.value.get_last_error(&stream.value);
      throw py::value_error(std::string("put_arrow: the stream failed: ") +
                            (message != nullptr ? message : "error " + std::to_string(code)));
    };
    if (int code = stream.value.get_schema(&stream.value, &schema.value); code != 0) {
      stream_error(code);
    }
    require_struct(schema.value);
    const int64_t k = child_index(schema.value, key, "key");
    const int64_t v = child_index(schema.value, value, "value");
    for (;;) {
      Imported<ArrowArray> batch;
      if (int code = stream.value.get_next(&stream.value, &batch.value); code != 0) {
        stream_error(code);
      }
      if (batch.value.release == nullptr) break;  // the end
      rows += put_batch(call, w, t, schema.value, batch.value, k, v, append);
    }
    return rows;
  }
  if (py::hasattr(data, "__arrow_c_array__")) {
    py::tuple pair = data.attr("__arrow_c_array__")();
    Imported<ArrowSchema> schema(move_out<ArrowSchema>(pair[0], "arrow_schema"));
    Imported<ArrowArray> array(move_out<ArrowArray>(pair[1], "arrow_array"));
    require_struct(schema.value);
    return put_batch(call, w, t, schema.value, array.value, child_index(schema.value, key, "key"),
                     child_index(schema.value, value, "value"), append);
  }
  throw py::type_error(std::string("put_arrow: ") + Py_TYPE(data.ptr())->tp_name +
                       " has neither __arrow_c_stream__ nor __arrow_c_array__");
}

}  // namespace

void init_arrow(py::module_& m) {
  def_method(m.attr("ColumnBatch"), "__arrow_c_array__", &batch_c_array,
             py::arg("requested_schema") = py::none(),
             "The Arrow PyCapsule interface: (schema, array) capsules of a record batch "
             "struct<key: large_binary, value: large_binary> over this batch's buffers (no "
             "copy). requested_schema is not used.");
  def_method(m.attr("_ColumnScan"), "__arrow_c_stream__", &scan_c_stream,
             py::arg("requested_schema") = py::none(),
             "The Arrow PyCapsule interface: a stream capsule of the scan's remaining batches, "
             "each a record batch struct<key: large_binary, value: large_binary>. The stream "
             "reads the txn: it fails once the txn ended.");
  def_method(m.attr("Txn"), "put_arrow", &put_arrow, py::arg("data"), py::kw_only(),
             py::arg("key") = 0, py::arg("value") = 1, py::arg("tree") = py::none(),
             py::arg("append") = false,
             R"(Puts the rows of any Arrow table, record batch or stream exported through
the PyCapsule interface (__arrow_c_stream__ or __arrow_c_array__: pyarrow,
polars, DuckDB, ordo's own scans) and returns how many. key and value name the
columns (a name, or a position: 0 and 1 by default). Keys: binary,
large_binary, string, large_string, fixed_size_binary, or an integer type,
stored big-endian with the sign bit flipped so that byte order is numeric
order. Values: binary, large_binary, string, large_string or
fixed_size_binary. A null key or value is a ValueError. Each batch goes in as
put_columns puts columns (in chunks, the GIL released; an interrupt rolls the
txn back).)");
}

}  // namespace ordo::python
