// Delta copies (delta_format.h): ReadTxn::copy_delta_to writes the changes
// since a held snapshot; Database::apply_delta applies them in one write txn.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "delta_format.h"
#include "ordo/assert.h"
#include "ordo/base/errno_status.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/tree_diff.h"
#include "ordo/database.h"
#include "txn_impl.h"
#include "txn_internals.h"

namespace ordo {

namespace engine {

void encode_delta_header(const DeltaHeader& h, std::byte* out) {
  ORDO_ASSERT(h.target_txn >= h.base_txn);  // a delta goes forward
  std::memset(out, 0, kDeltaHeaderBytes);
  std::memcpy(out, kDeltaMagic, sizeof kDeltaMagic);
  btree::store_u32(out + 8, kDeltaVersion);
  btree::store_u64(out + 16, h.base_txn);
  btree::store_u64(out + 24, h.target_txn);
  btree::store_u64(out + 32, h.base_fingerprint);
  btree::store_u64(out + 40, h.target_fingerprint);
  std::memcpy(out + 48, h.target_uuid.bytes.data(), 16);
  btree::store_u64(out + 64, h.target_id64);
  btree::store_u64(out + 72, h.body_bytes);
  btree::store_u64(out + 80, h.body_checksum);
  btree::store_u64(out + 88, XXH3_64bits(out, 88));
}

uint64_t delta_fingerprint(const StateSummary& s) {
  ORDO_DCHECK(std::is_sorted(s.named.begin(), s.named.end()));  // catalog order
  std::string bytes;
  auto add_u64 = [&](uint64_t v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  add_u64(s.default_entries);
  for (const auto& [name, entries] : s.named) {
    add_u64(name.size());
    bytes += name;
    add_u64(entries);
  }
  bytes.append(reinterpret_cast<const char*>(s.last_uuid.bytes.data()), 16);
  add_u64(s.last_id64);
  return XXH3_64bits(bytes.data(), bytes.size());
}

}  // namespace engine

namespace {

using engine::DeltaHeader;
using engine::DeltaTreeAction;

uint64_t value_hash(ByteView v) { return XXH3_64bits(v.data(), v.size()); }

// The summary of committed state `m`, read through `pages`.
Result<engine::StateSummary> summary_of(btree::PageReader& pages, const engine::Meta& m) {
  engine::StateSummary s;
  s.default_entries = m.default_tree.entries;
  s.last_uuid = m.last_uuid;
  s.last_id64 = m.last_id64;
  btree::Cursor c(pages, m.catalog);
  Status st = c.first();
  while (st.is_ok() && c.valid()) {
    if (c.value().size() != engine::kTreeRootBytes) {
      return Status::corruption("catalog entry has a bad size", m.catalog.root);
    }
    s.named.emplace_back(c.key().str(), engine::decode_tree_root(c.value().data()).entries);
    st = c.next();
  }
  ORDO_RETURN_IF_ERROR(st);
  return s;
}

// Writes a delta file: a temporary file beside the target, renamed into
// place once complete and synced.
class DeltaWriter {
 public:
  ~DeltaWriter() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(tmp_.c_str());
    }
  }

  Status open(const std::string& path) {
    path_ = path;
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      return Status::invalid_argument("'" + path + "' exists: a delta is written to a new file");
    }
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    tmp_ = (slash == std::string::npos ? "" : dir) + "." + base + ".ordo-delta-XXXXXX";
    fd_ = ::mkostemp(tmp_.data(), O_CLOEXEC);
    if (fd_ < 0) {
      const int err = errno;
      if (err == ENOENT) return Status::not_found("directory of '" + path + "' does not exist");
      return base::write_error("create " + tmp_, err);
    }
    dir_ = dir;
    // mkostemp makes it 0600; a delta is read as a database file is (0644).
    if (::fchmod(fd_, 0644) != 0) return base::os_error("chmod " + tmp_, errno);
    if (hash_ == nullptr) return Status::io_error("out of memory for a hash state", ENOMEM);
    buf_.assign(engine::kDeltaHeaderBytes, '\0');  // the header, written last
    XXH3_64bits_reset(hash_.get());
    return Status::ok();
  }

  void u8(uint8_t v) { body(&v, 1); }
  void u32(uint32_t v) {
    std::byte b[4];
    btree::store_u32(b, v);
    body(b, 4);
  }
  void u64(uint64_t v) {
    std::byte b[8];
    btree::store_u64(b, v);
    body(b, 8);
  }
  void bytes(ByteView v) {
    u32(static_cast<uint32_t>(v.size()));
    body(v.data(), v.size());
  }
  Status flush_if_full() {
    ORDO_ASSERT(fd_ >= 0);  // open() succeeded
    return buf_.size() >= (1u << 20) ? flush() : Status::ok();
  }

  Result<uint64_t> finish(DeltaHeader h) {
    ORDO_ASSERT(fd_ >= 0 &&
                body_bytes_ + engine::kDeltaHeaderBytes >= buf_.size());  // open() succeeded
    ORDO_RETURN_IF_ERROR(flush());
    h.body_bytes = body_bytes_;
    h.body_checksum = XXH3_64bits_digest(hash_.get());
    std::byte header[engine::kDeltaHeaderBytes];
    engine::encode_delta_header(h, header);
    if (::pwrite(fd_, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) {
      return base::write_error("write " + tmp_, errno);
    }
    if (::fsync(fd_) != 0) return base::write_error("fsync " + tmp_, errno);
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
      return base::write_error("rename to " + path_, errno);
    }
    ::close(fd_);
    fd_ = -1;
    const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      (void)::fsync(dfd);
      ::close(dfd);
    }
    return engine::kDeltaHeaderBytes + body_bytes_;
  }

 private:
  void body(const void* p, size_t n) {
    ORDO_ASSERT(hash_ != nullptr);  // open() checked it
    XXH3_64bits_update(hash_.get(), p, n);
    buf_.append(static_cast<const char*>(p), n);
    body_bytes_ += n;
  }
  Status flush() {
    ORDO_ASSERT(fd_ >= 0);
    size_t done = 0;
    while (done < buf_.size()) {
      const ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return base::write_error("write " + tmp_, n < 0 ? errno : EIO);
      done += static_cast<size_t>(n);
    }
    buf_.clear();
    return Status::ok();
  }

  std::string path_, tmp_, dir_;
  int fd_ = -1;
  std::string buf_;
  struct FreeState {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  std::unique_ptr<XXH3_state_t, FreeState> hash_{XXH3_createState()};
  uint64_t body_bytes_ = 0;
};

// The records of one tree's changes, old root to new root.
Status write_tree_changes(btree::PageReader& pages, const btree::TreeRoot& old_root,
                          const btree::TreeRoot& new_root, DeltaWriter& out, DeltaResult& r) {
  ORDO_DCHECK(!(old_root == new_root));  // the caller skips unchanged trees
  btree::TreeDiff diff(pages, old_root, new_root);
  btree::TreeChange c;
  for (;;) {
    ORDO_ASSIGN_OR_RETURN(bool more, diff.next(&c));
    if (!more) return Status::ok();
    if (c.has_new) {
      out.u8('P');
      out.bytes(c.key);
      out.bytes(c.new_value);
      out.u8(c.had_old ? 1 : 0);
      out.u64(c.had_old ? value_hash(c.old_value) : 0);
      r.puts++;
    } else {
      out.u8('D');
      out.bytes(c.key);
      out.u64(value_hash(c.old_value));
      r.deletes++;
    }
    ORDO_RETURN_IF_ERROR(out.flush_if_full());
  }
}

void tree_record(DeltaWriter& out, ByteView name, DeltaTreeAction action) {
  out.u8('T');
  out.bytes(name);
  out.u8(static_cast<uint8_t>(action));
}

}  // namespace

Result<DeltaResult> ReadTxn::copy_delta_to(const std::string& path, uint64_t since_txn) {
  ORDO_ASSIGN_OR_RETURN(TxnImpl * txn, TxnInternals::impl(*this));
  if (path.empty()) return Status::invalid_argument("the delta file's path is empty");
  if (since_txn > txn->txn_id()) {
    return Status::invalid_argument("snapshot " + std::to_string(since_txn) +
                                    " is newer than this txn's snapshot " +
                                    std::to_string(txn->txn_id()));
  }
  DatabaseImpl& db = txn->db();
  ORDO_ASSIGN_OR_RETURN(engine::Meta old, db.register_held_reader(since_txn));
  struct Unregister {
    DatabaseImpl& db;
    uint64_t txn;
    ~Unregister() { db.unregister_reader(txn); }
  } guard{db, since_txn};
  const engine::Meta& now = txn->snapshot();
  btree::PageReader& pages = txn->pages();
  DeltaResult r;
  r.base_txn = since_txn;
  r.target_txn = now.txn_id;
  DeltaHeader h;
  h.base_txn = since_txn;
  h.target_txn = now.txn_id;
  ORDO_ASSIGN_OR_RETURN(engine::StateSummary base_summary, summary_of(pages, old));
  ORDO_ASSIGN_OR_RETURN(engine::StateSummary target_summary, summary_of(pages, now));
  h.base_fingerprint = engine::delta_fingerprint(base_summary);
  h.target_fingerprint = engine::delta_fingerprint(target_summary);
  h.target_uuid = now.last_uuid;
  h.target_id64 = now.last_id64;

  DeltaWriter out;
  ORDO_RETURN_IF_ERROR(out.open(path));
  if (!(old.default_tree == now.default_tree)) {
    tree_record(out, ByteView(), DeltaTreeAction::kChanged);
    r.trees++;
    ORDO_RETURN_IF_ERROR(write_tree_changes(pages, old.default_tree, now.default_tree, out, r));
  }
  // The catalogs' own diff names the trees whose root changed.
  btree::TreeDiff catalog(pages, old.catalog, now.catalog);
  btree::TreeChange c;
  for (;;) {
    ORDO_ASSIGN_OR_RETURN(bool more, catalog.next(&c));
    if (!more) break;
    if ((c.had_old && c.old_value.size() != engine::kTreeRootBytes) ||
        (c.has_new && c.new_value.size() != engine::kTreeRootBytes)) {
      return Status::corruption("catalog entry has a bad size", now.catalog.root);
    }
    const btree::TreeRoot from =
        c.had_old ? engine::decode_tree_root(c.old_value.data()) : btree::TreeRoot{};
    const btree::TreeRoot to =
        c.has_new ? engine::decode_tree_root(c.new_value.data()) : btree::TreeRoot{};
    const DeltaTreeAction action = !c.had_old   ? DeltaTreeAction::kCreated
                                   : !c.has_new ? DeltaTreeAction::kDropped
                                                : DeltaTreeAction::kChanged;
    tree_record(out, c.key, action);
    r.trees++;
    // A tree created or renamed empty has no keys to write.
    if (action != DeltaTreeAction::kDropped && !(from == to)) {
      ORDO_RETURN_IF_ERROR(write_tree_changes(pages, from, to, out, r));
    }
  }
  ORDO_ASSIGN_OR_RETURN(r.bytes, out.finish(h));
  return r;
}

namespace {

// Reads the records of a delta body, every field bounds-checked.
class DeltaReader {
 public:
  explicit DeltaReader(ByteView body) : body_(body) {}
  bool done() const {
    ORDO_ASSERT(at_ <= body_.size());  // need() keeps every read inside
    return at_ == body_.size();
  }
  Result<uint8_t> u8() {
    ORDO_RETURN_IF_ERROR(need(1));
    return std::to_integer<uint8_t>(body_.data()[at_++]);
  }
  Result<uint64_t> u64() {
    ORDO_RETURN_IF_ERROR(need(8));
    const uint64_t v = btree::load_u64(body_.data() + at_);
    at_ += 8;
    return v;
  }
  Result<ByteView> bytes() {
    ORDO_RETURN_IF_ERROR(need(4));
    const uint32_t n = btree::load_u32(body_.data() + at_);
    at_ += 4;
    ORDO_RETURN_IF_ERROR(need(n));
    ByteView v(body_.data() + at_, n);
    at_ += n;
    return v;
  }
  uint64_t offset() const { return at_; }

 private:
  Status need(uint64_t n) const {
    ORDO_ASSERT(at_ <= body_.size());
    if (body_.size() - at_ < n) {
      return Status::corruption("delta record runs past the end of the body at byte " +
                                std::to_string(engine::kDeltaHeaderBytes + at_));
    }
    return Status::ok();
  }
  ByteView body_;
  uint64_t at_ = 0;
};

// The bytes of the delta file at `path`: a regular file only (a FIFO or a
// device could be endless), its header first, so that a file without a
// delta's magic costs no more than those bytes; then the rest of its length.
Result<std::string> read_delta_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::not_found("no delta file '" + path + "'");
    return base::os_error("open " + path, err);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return base::os_error("fstat " + path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::invalid_argument("'" + path + "' is not a regular file (a delta file is)");
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  std::string out;
  // Reads until `want` bytes are in `out` or the file ends.
  auto read_to = [&](uint64_t want) -> Status {
    char buf[1 << 16];
    while (out.size() < want) {
      const ssize_t n = ::read(fd, buf, std::min<uint64_t>(sizeof buf, want - out.size()));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int err = errno;  // before the message's allocation can change it
        return base::os_error("read " + path, err);
      }
      if (n == 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return Status::ok();
  };
  Status s = read_to(std::min<uint64_t>(size, engine::kDeltaHeaderBytes));
  if (s.is_ok() && out.size() == engine::kDeltaHeaderBytes &&
      std::memcmp(out.data(), engine::kDeltaMagic, sizeof engine::kDeltaMagic) == 0) {
    out.reserve(size);
    s = read_to(size);
  }
  ::close(fd);
  if (!s.is_ok()) return s;
  return out;
}

// The header of the delta in `file`, after checking both checksums and the
// length: a truncated or damaged delta is refused before anything changes.
Result<DeltaHeader> check_delta(const std::string& path, const std::string& file) {
  const auto* p = reinterpret_cast<const std::byte*>(file.data());
  // A file that starts as a delta does (as much of the magic as it holds)
  // but ends inside the header is a delta cut short.
  const size_t magic_bytes = std::min(file.size(), sizeof engine::kDeltaMagic);
  const bool magic = !file.empty() && std::memcmp(p, engine::kDeltaMagic, magic_bytes) == 0;
  if (magic && file.size() < engine::kDeltaHeaderBytes) {
    return Status::corruption("'" + path + "': delta is truncated inside its header (" +
                              std::to_string(file.size()) + " of " +
                              std::to_string(engine::kDeltaHeaderBytes) + " bytes)");
  }
  if (!magic) {
    return Status::corruption("'" + path + "' is not an ordo delta file (no delta header)");
  }
  if (btree::load_u64(p + 88) != XXH3_64bits(p, 88)) {
    return Status::corruption("'" + path + "': delta header checksum mismatch (damaged)");
  }
  if (btree::load_u32(p + 8) != engine::kDeltaVersion) {
    return Status::version_mismatch("'" + path + "': delta format version " +
                                    std::to_string(btree::load_u32(p + 8)) + ", this build reads " +
                                    std::to_string(engine::kDeltaVersion));
  }
  if (btree::load_u32(p + 12) != 0) {
    return Status::corruption("'" + path + "': unknown delta flags " +
                              std::to_string(btree::load_u32(p + 12)));
  }
  DeltaHeader h;
  h.base_txn = btree::load_u64(p + 16);
  h.target_txn = btree::load_u64(p + 24);
  h.base_fingerprint = btree::load_u64(p + 32);
  h.target_fingerprint = btree::load_u64(p + 40);
  std::memcpy(h.target_uuid.bytes.data(), p + 48, 16);
  h.target_id64 = btree::load_u64(p + 64);
  h.body_bytes = btree::load_u64(p + 72);
  h.body_checksum = btree::load_u64(p + 80);
  ORDO_ASSERT(file.size() >= engine::kDeltaHeaderBytes);  // checked above
  const uint64_t have = file.size() - engine::kDeltaHeaderBytes;
  if (have != h.body_bytes) {
    return Status::corruption("'" + path + "': delta is " +
                              std::string(have < h.body_bytes ? "truncated" : "too long") +
                              ": the header says " + std::to_string(h.body_bytes) +
                              " body bytes, the file has " + std::to_string(have));
  }
  if (XXH3_64bits(p + engine::kDeltaHeaderBytes, have) != h.body_checksum) {
    return Status::corruption("'" + path + "': delta body checksum mismatch (damaged)");
  }
  if (h.target_txn < h.base_txn) {
    return Status::corruption("'" + path + "': delta target txn before its base txn");
  }
  return h;
}

// `key` for a message: printable ASCII as it is, other bytes as \xNN, the
// first 64 bytes at most.
std::string shown_key(ByteView key) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  const size_t shown = std::min<size_t>(key.size(), 64);
  for (size_t i = 0; i < shown; ++i) {
    const auto c = static_cast<unsigned char>(key.data()[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (shown < key.size()) out += "... (" + std::to_string(key.size()) + " bytes)";
  return out;
}

// Applies the records to `w` (the write txn at the delta's base).
Status apply_records(WriteTxn& w, DeltaReader& in, DeltaResult& r) {
  std::optional<Tree> tree;
  auto mismatch = [&](ByteView key, const char* what) {
    return Status::invalid_argument("the database is not at the delta's base: key '" +
                                    shown_key(key) + "' in tree '" +
                                    (tree ? tree->name() : std::string()) + "' " + what);
  };
  while (!in.done()) {
    ORDO_ASSIGN_OR_RETURN(uint8_t kind, in.u8());
    if (kind == 'T') {
      ORDO_ASSIGN_OR_RETURN(ByteView name, in.bytes());
      ORDO_ASSIGN_OR_RETURN(uint8_t action, in.u8());
      r.trees++;
      if (name.empty()) {
        if (action != static_cast<uint8_t>(DeltaTreeAction::kChanged)) {
          return Status::corruption("delta: the default tree cannot be created or dropped");
        }
        tree = w.default_tree();
        continue;
      }
      const std::string n = name.str();
      auto existing = w.open_tree(n);
      if (!existing.is_ok() && !existing.status().is_not_found()) return existing.status();
      const bool exists = existing.is_ok();
      if (action == static_cast<uint8_t>(DeltaTreeAction::kCreated)) {
        if (exists)
          return Status::invalid_argument("the database is not at the delta's base: tree '" + n +
                                          "' exists");
        ORDO_ASSIGN_OR_RETURN(Tree t, w.create_tree(n));
        tree = t;
      } else if (action == static_cast<uint8_t>(DeltaTreeAction::kDropped) ||
                 action == static_cast<uint8_t>(DeltaTreeAction::kChanged)) {
        if (!exists)
          return Status::invalid_argument("the database is not at the delta's base: no tree '" + n +
                                          "'");
        if (action == static_cast<uint8_t>(DeltaTreeAction::kDropped)) {
          ORDO_RETURN_IF_ERROR(w.drop_tree(n));
          tree.reset();
        } else {
          tree = *existing;
        }
      } else {
        return Status::corruption("delta: unknown tree action " + std::to_string(action));
      }
      continue;
    }
    if (kind != 'P' && kind != 'D') {
      return Status::corruption("delta: unknown record kind " + std::to_string(kind) +
                                " at body byte " + std::to_string(in.offset() - 1));
    }
    if (!tree) return Status::corruption("delta: a key record outside a tree");
    ORDO_ASSIGN_OR_RETURN(ByteView key, in.bytes());
    ByteView value;
    uint8_t had_old = 1;
    if (kind == 'P') {
      ORDO_ASSIGN_OR_RETURN(value, in.bytes());
      ORDO_ASSIGN_OR_RETURN(had_old, in.u8());
    }
    ORDO_ASSIGN_OR_RETURN(uint64_t old_hash, in.u64());
    auto current = w.get(*tree, key);
    if (!current.is_ok() && !current.status().is_not_found()) return current.status();
    if (had_old != 0) {
      if (!current.is_ok()) return mismatch(key, "is absent, the delta changes it");
      if (value_hash(*current) != old_hash) return mismatch(key, "holds another value");
    } else if (current.is_ok()) {
      return mismatch(key, "exists, the delta inserts it");
    }
    ORDO_DCHECK(kind == 'P' || kind == 'D');
    if (kind == 'P') {
      ORDO_RETURN_IF_ERROR(w.put(*tree, key, value));
      r.puts++;
    } else {
      ORDO_RETURN_IF_ERROR(w.del(*tree, key));
      r.deletes++;
    }
  }
  return Status::ok();
}

// The summary of the state write txn `w` sees now.
Result<engine::StateSummary> summary_in(WriteTxn& w, WriteTxnImpl& impl) {
  engine::StateSummary s;
  ORDO_ASSIGN_OR_RETURN(btree::TreeRoot d, impl.root_of(w.default_tree()));
  s.default_entries = d.entries;
  ORDO_ASSIGN_OR_RETURN(std::vector<std::string> names, w.list_trees());
  for (const std::string& n : names) {
    ORDO_ASSIGN_OR_RETURN(Tree t, w.open_tree(n));
    ORDO_ASSIGN_OR_RETURN(btree::TreeRoot root, impl.root_of(t));
    s.named.emplace_back(n, root.entries);
  }
  return s;
}

}  // namespace

Result<DeltaResult> Database::apply_delta(const std::string& path) {
  ORDO_RETURN_IF_ERROR(impl_->check_writable());
  ORDO_ASSIGN_OR_RETURN(std::string file, read_delta_file(path));
  ORDO_ASSIGN_OR_RETURN(DeltaHeader h, check_delta(path, file));
  ORDO_ASSIGN_OR_RETURN(WriteTxn w, begin_write());
  ORDO_ASSIGN_OR_RETURN(TxnImpl * txn, TxnInternals::impl(w));
  ORDO_ASSERT(txn->is_write());  // begin_write() made it
  auto& impl = static_cast<WriteTxnImpl&>(*txn);
  const engine::Meta& base = impl.snapshot();
  if (base.txn_id != h.base_txn) {
    return Status::invalid_argument("'" + path + "' applies to txn " + std::to_string(h.base_txn) +
                                    " (to give txn " + std::to_string(h.target_txn) +
                                    "); the database is at txn " + std::to_string(base.txn_id));
  }
  ORDO_ASSIGN_OR_RETURN(engine::StateSummary before, summary_of(impl.pages(), base));
  if (engine::delta_fingerprint(before) != h.base_fingerprint) {
    return Status::invalid_argument(
        "'" + path + "': the database is at txn " + std::to_string(base.txn_id) +
        " but not the delta's base state (its trees' entry counts or ID marks differ: a copy of "
        "another database?)");
  }
  DeltaResult r;
  r.base_txn = h.base_txn;
  r.target_txn = h.target_txn;
  r.bytes = file.size();
  DeltaReader in(ByteView(file.data() + engine::kDeltaHeaderBytes, h.body_bytes));
  ORDO_RETURN_IF_ERROR(apply_records(w, in, r));
  if (h.target_txn == h.base_txn) {
    // A delta from a txn to itself changes nothing: records in one are forged.
    if (r.trees + r.puts + r.deletes != 0) {
      return Status::corruption("'" + path + "': a delta from txn " + std::to_string(h.base_txn) +
                                " to itself carries changes");
    }
    return r;  // nothing changed; the txn aborts
  }
  impl.db().uuid_generator().observe(h.target_uuid);
  impl.db().id64_generator().observe(Id64{h.target_id64});
  ORDO_ASSIGN_OR_RETURN(engine::StateSummary after, summary_in(w, impl));
  after.last_uuid = impl.db().uuid_generator().last();
  after.last_id64 = impl.db().id64_generator().last().value;
  if (engine::delta_fingerprint(after) != h.target_fingerprint) {
    return Status::corruption("'" + path +
                              "': the state after applying the delta does not match the one it "
                              "was made from (nothing was committed)");
  }
  if (h.target_txn > impl.txn_id()) impl.commit_as(h.target_txn);
  ORDO_RETURN_IF_ERROR(w.commit());
  return r;
}

}  // namespace ordo
