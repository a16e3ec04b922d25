#include "ordo/btree/overflow_ref.h"

#include <xxhash.h>

#include <string>

#include "ordo/assert.h"
#include "ordo/btree/endian.h"

namespace ordo::btree {

void encode_overflow_ref(const OverflowRef& ref, std::byte* out) {
  store_u64(out, ref.first);
  store_u64(out + 8, ref.checksum);
}

Result<OverflowRef> decode_overflow_ref(ByteView bytes, PageNo leaf_page) {
  if (bytes.size() != kOverflowRefBytes) {
    return Status::corruption("bad overflow reference", leaf_page);
  }
  OverflowRef ref{load_u64(bytes.data()), load_u64(bytes.data() + 8)};
  if (ref.first < kFirstDataPage) return Status::corruption("bad overflow reference", leaf_page);
  return ref;
}

Result<OverflowRun> leaf_overflow_run(const NodeView& leaf, uint32_t i, PageNo leaf_page) {
  ORDO_ASSERT(leaf.is_leaf());  // Its callers loaded it as a leaf.
  const ByteView bytes = leaf.value(i);
  if (leaf.damaged()) return Status::corruption("cell out of bounds", leaf_page);
  OverflowRun run;
  ORDO_ASSIGN_OR_RETURN(run.ref, decode_overflow_ref(bytes, leaf_page));
  run.value_len = leaf.value_len(i);
  if (run.value_len > kMaxValueBytes) {
    return Status::corruption("overflow value longer than the maximum", leaf_page);
  }
  run.pages = overflow_pages(run.value_len, leaf.page_size());
  ORDO_ASSERT(run.pages >= 1);  // The header takes a page even for no value.
  return run;
}

bool starts_overflow_run(const std::byte* run) {
  ORDO_ASSERT(run != nullptr);
  return static_cast<PageType>(run[kOffType]) == PageType::kOverflow;
}

uint64_t overflow_run_checksum(const std::byte* run, uint64_t pages, uint32_t page_size) {
  ORDO_ASSERT(run != nullptr && pages >= 1);
  return XXH3_64bits(run, pages * page_size);
}

Result<const std::byte*> read_overflow_run(PageReader& pages, const OverflowRun& run,
                                           PageNo leaf_page, bool verify) {
  ORDO_ASSERT(run.pages == overflow_pages(run.value_len, pages.page_size()));
  ORDO_ASSIGN_OR_RETURN(const std::byte* bytes, pages.read_run(run.ref.first, run.pages));
  if (!starts_overflow_run(bytes)) {
    return Status::corruption("overflow run does not start with an overflow page", run.ref.first);
  }
  if (verify && overflow_run_checksum(bytes, run.pages, pages.page_size()) != run.ref.checksum) {
    return Status::corruption(
        "overflow run checksum mismatch (referenced by page " + std::to_string(leaf_page) + ")",
        run.ref.first);
  }
  return bytes;
}

}  // namespace ordo::btree
