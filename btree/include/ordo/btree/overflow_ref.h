// The overflow reference: the 16 bytes a leaf cell holds in place of a value
// that lives in an overflow run (page_format.h): u64 first page of the run,
// u64 XXH3-64 of the whole run (header, value, zero padding).
//
// Decoding never trusts the bytes: a damaged reference is Corruption naming
// the leaf page, never a read outside the cell or the file.
// Thread-safety: plain functions over caller-owned bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ordo/btree/node.h"
#include "ordo/btree/page_access.h"
#include "ordo/btree/page_format.h"
#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::btree {

struct OverflowRef {
  PageNo first = kNullPage;  // first page of the run
  uint64_t checksum = 0;     // XXH3-64 of all the run's pages
  bool operator==(const OverflowRef&) const = default;
};

// Writes `ref` into the kOverflowRefBytes bytes at `out`.
void encode_overflow_ref(const OverflowRef& ref, std::byte* out);

// Decodes the reference bytes a leaf cell holds. Corruption naming
// `leaf_page` when they are not kOverflowRefBytes long or name a meta page
// (or kNullPage) as the run's first page.
Result<OverflowRef> decode_overflow_ref(ByteView bytes, PageNo leaf_page);

// The run behind an overflow leaf entry: its reference and its extent.
struct OverflowRun {
  OverflowRef ref;
  uint64_t value_len = 0;  // bytes of the value
  uint64_t pages = 0;      // pages of the run, overflow_pages(value_len)
};

// Leaf entry i's run. REQUIRES: leaf.is_overflow(i). Corruption naming
// `leaf_page` for a damaged cell or reference, or a value length above
// kMaxValueBytes.
Result<OverflowRun> leaf_overflow_run(const NodeView& leaf, uint32_t i, PageNo leaf_page);

// Whether the first page of a run carries the overflow page type.
bool starts_overflow_run(const std::byte* run);

// XXH3-64 of the `pages` pages of a run at `run`.
uint64_t overflow_run_checksum(const std::byte* run, uint64_t pages, uint32_t page_size);

// Reads `run` through `pages` and checks its first page's type and, when
// `verify`, its checksum against the reference. Returns the run's bytes (the
// value starts kHeaderSize bytes in). Corruption naming the run's first page;
// errors of PageReader::read_run.
Result<const std::byte*> read_overflow_run(PageReader& pages, const OverflowRun& run,
                                           PageNo leaf_page, bool verify);

}  // namespace ordo::btree
