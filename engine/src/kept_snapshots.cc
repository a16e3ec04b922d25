#include "kept_snapshots.h"

#include <cstddef>
#include <cstring>

#include "ordo/assert.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/endian.h"

namespace ordo::engine {

std::string kept_key(uint64_t txn_id) {
  std::string k(kKeptKeyBytes, '\0');
  static_assert(kKeptKeyBytes == 8);
  for (int i = 0; i < 8; ++i) k[i] = static_cast<char>((txn_id >> (8 * (7 - i))) & 0xff);
  return k;
}

std::string encode_kept(const Meta& s) {
  ORDO_ASSERT(s.txn_id != 0 && s.page_high_water >= kFirstDataPage);  // a committed meta
  std::string out(kKeptRecordBytes, '\0');
  auto* p = reinterpret_cast<std::byte*>(out.data());
  btree::store_u64(p + 0, s.txn_id);
  btree::store_u64(p + 8, s.page_high_water);
  encode_tree_root(s.default_tree, p + 16);
  encode_tree_root(s.catalog, p + 48);
  encode_tree_root(s.free_tree, p + 80);
  btree::store_u64(p + 112, s.tree_count);
  btree::store_u64(p + 120, s.free_pages);
  std::memcpy(p + 128, s.last_uuid.bytes.data(), 16);
  btree::store_u64(p + 144, s.last_id64);
  encode_tree_root(s.kept, p + 152);
  return out;
}

Result<Meta> decode_kept(ByteView key, ByteView record, const Meta& current, btree::PageNo page) {
  if (key.size() != kKeptKeyBytes || record.size() != kKeptRecordBytes) {
    return Status::corruption("malformed kept snapshot entry", page);
  }
  uint64_t key_txn = 0;
  for (size_t i = 0; i < kKeptKeyBytes; ++i)
    key_txn = (key_txn << 8) | std::to_integer<uint64_t>(key.data()[i]);
  const auto* p = reinterpret_cast<const std::byte*>(record.data());
  Meta m = current;
  m.txn_id = btree::load_u64(p + 0);
  m.page_high_water = btree::load_u64(p + 8);
  m.default_tree = decode_tree_root(p + 16);
  m.catalog = decode_tree_root(p + 48);
  m.free_tree = decode_tree_root(p + 80);
  m.tree_count = btree::load_u64(p + 112);
  m.free_pages = btree::load_u64(p + 120);
  std::memcpy(m.last_uuid.bytes.data(), p + 128, 16);
  m.last_id64 = btree::load_u64(p + 144);
  m.kept = decode_tree_root(p + 152);
  m.from_kept_record = true;
  // A kept snapshot is older than the state holding it and within its pages.
  // (The log area holds records, never tree pages: a root there is damage.)
  const auto sane = [&](const btree::TreeRoot& r) {
    return r.root == btree::kNullPage
               ? r.depth == 0
               : r.root >= kFirstDataPage && r.root < m.page_high_water && r.depth >= 1 &&
                     r.depth <= btree::kMaxDepth && !in_log_area(current, r.root);
  };
  if (m.txn_id != key_txn || m.txn_id >= current.txn_id ||
      m.page_high_water > current.page_high_water || m.page_high_water < kFirstDataPage ||
      !sane(m.default_tree) || !sane(m.catalog) || !sane(m.free_tree) || !sane(m.kept)) {
    return Status::corruption(
        "kept snapshot record out of range (txn " + std::to_string(key_txn) + ")", page);
  }
  return m;
}

Result<std::vector<Meta>> read_kept(btree::PageReader& pages, const Meta& state) {
  std::vector<Meta> out;
  if (state.kept.root == btree::kNullPage) return out;
  btree::Cursor c(pages, state.kept);
  Status s = c.first();
  while (s.is_ok() && c.valid()) {
    ORDO_ASSIGN_OR_RETURN(Meta m, decode_kept(c.key(), c.value(), state, state.kept.root));
    ORDO_DCHECK(out.empty() || out.back().txn_id < m.txn_id);  // keys ascend, equal to txn ids
    out.push_back(m);
    s = c.next();
  }
  ORDO_RETURN_IF_ERROR(s);
  return out;
}

Result<std::vector<uint64_t>> read_kept_txns(btree::PageReader& pages, const Meta& state) {
  ORDO_ASSIGN_OR_RETURN(std::vector<Meta> kept, read_kept(pages, state));
  std::vector<uint64_t> out;
  out.reserve(kept.size());
  for (const Meta& m : kept) out.push_back(m.txn_id);
  return out;
}

}  // namespace ordo::engine
