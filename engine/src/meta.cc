#include "meta.h"

#include <xxhash.h>

#include <cstring>

#include "ordo/btree/endian.h"
#include "ordo/btree/page_format.h"

namespace ordo::engine {

using btree::load_u32;
using btree::load_u64;
using btree::store_u32;
using btree::store_u64;

void encode_tree_root(const btree::TreeRoot& root, std::byte* out) {
  store_u64(out, root.root);
  store_u64(out + 8, root.root_checksum);
  store_u64(out + 16, root.entries);
  store_u32(out + 24, root.depth);
  store_u32(out + 28, 0);
}

btree::TreeRoot decode_tree_root(const std::byte* in) {
  btree::TreeRoot r;
  r.root = load_u64(in);
  r.root_checksum = load_u64(in + 8);
  r.entries = load_u64(in + 16);
  r.depth = load_u32(in + 24);
  return r;
}

void encode_meta(const Meta& m, std::byte* page) {
  std::memset(page, 0, m.page_size);
  std::memcpy(page, kMagic, sizeof kMagic);
  store_u32(page + 8, kFormatVersion);
  store_u32(page + 12, m.page_size);
  store_u64(page + 16, m.txn_id);
  store_u64(page + 24, m.page_high_water);
  store_u64(page + 32, m.file_bytes);
  encode_tree_root(m.default_tree, page + 40);
  encode_tree_root(m.catalog, page + 72);
  encode_tree_root(m.free_tree, page + 104);
  std::memcpy(page + 136, m.last_uuid.bytes.data(), 16);
  store_u64(page + 152, m.last_id64);
  store_u64(page + 160, m.tree_count);
  store_u64(page + 168, m.free_pages);
  store_u64(page + kMetaChecksumOffset, XXH3_64bits(page, kMetaChecksumOffset));
}

namespace {

bool tree_root_sane(const btree::TreeRoot& r, uint64_t high_water) {
  if (r.root == btree::kNoPage) return r.depth == 0 && r.entries == 0;
  return r.root >= kFirstDataPage && r.root < high_water && r.depth >= 1 &&
         r.depth <= btree::kMaxDepth;
}

}  // namespace

MetaProblem decode_meta(const std::byte* p, Meta* m, std::string* text) {
  if (std::memcmp(p, kMagic, sizeof kMagic) != 0) {
    *text = "no ordo magic";
    return MetaProblem::kNoMagic;
  }
  uint32_t version = load_u32(p + 8);
  if (load_u64(p + kMetaChecksumOffset) != XXH3_64bits(p, kMetaChecksumOffset)) {
    *text = "meta checksum mismatch";
    return MetaProblem::kBadChecksum;
  }
  if (version != kFormatVersion) {
    *text = "format version " + std::to_string(version) + " (this build reads version " +
            std::to_string(kFormatVersion) + ")";
    return MetaProblem::kBadVersion;
  }
  m->page_size = load_u32(p + 12);
  if (!btree::valid_page_size(m->page_size)) {
    *text = "unsupported page size " + std::to_string(m->page_size);
    return MetaProblem::kBadPageSize;
  }
  m->txn_id = load_u64(p + 16);
  m->page_high_water = load_u64(p + 24);
  m->file_bytes = load_u64(p + 32);
  m->default_tree = decode_tree_root(p + 40);
  m->catalog = decode_tree_root(p + 72);
  m->free_tree = decode_tree_root(p + 104);
  std::memcpy(m->last_uuid.bytes.data(), p + 136, 16);
  m->last_id64 = load_u64(p + 152);
  m->tree_count = load_u64(p + 160);
  m->free_pages = load_u64(p + 168);
  if (m->page_high_water < kFirstDataPage ||
      m->page_high_water > m->file_bytes / m->page_size ||
      !tree_root_sane(m->default_tree, m->page_high_water) ||
      !tree_root_sane(m->catalog, m->page_high_water) ||
      !tree_root_sane(m->free_tree, m->page_high_water) ||
      m->free_pages > m->page_high_water) {
    *text = "meta fields out of range";
    return MetaProblem::kBadFields;
  }
  text->clear();
  return MetaProblem::kNone;
}

}  // namespace ordo::engine
