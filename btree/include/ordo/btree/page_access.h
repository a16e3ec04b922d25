// The seam between the B+-tree and whatever stores pages. The tree knows
// pages, not files: the engine implements these over its mapped file and a
// write txn's dirty pages; tests implement them in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ordo/btree/page_format.h"
#include "ordo/status.h"

namespace ordo::btree {

// Read access to the pages of one snapshot.
// Thread-safety: as the implementation documents (the engine's are per txn).
class PageReader {
 public:
  virtual ~PageReader() = default;
  virtual uint32_t page_size() const = 0;
  // The bytes of page `page_number` (page_size() bytes), valid until the txn
  // ends or, in a write txn, until the page is freed. Corruption when the page
  // number lies outside the snapshot's pages.
  virtual Result<const std::byte*> read(PageNo page_number) = 0;
  // The bytes of the overflow run of `pages` adjacent pages starting at
  // `first`, contiguous. Corruption when the run lies outside the snapshot.
  virtual Result<const std::byte*> read_run(PageNo first, uint64_t pages) = 0;
  // Whether every page read is checked against the checksum its parent (or
  // the tree root record) holds; a mismatch is Corruption.
  virtual bool verify_checksums() const { return false; }
  // True when this txn already owns a private (dirty) copy of the page; its
  // parent's checksum is then not yet computed, so it is not verified.
  virtual bool is_dirty(PageNo page_number) const { return false; }

  // Pages [first, end) that read() would return as base + page * page_size(),
  // none of them dirty. A reader of committed pages in one mapping says so,
  // and a descent then reads those pages without a call per level; the range
  // holds for as long as read() would return those pointers. Default: none.
  struct Mapping {
    const std::byte* base = nullptr;
    PageNo first = 0;
    PageNo end = 0;
  };
  virtual Mapping mapping() const { return {}; }
};

// Copy-on-write access for the one write txn.
class PageWriter : public PageReader {
 public:
  // Id of the writing txn, stamped into every page it writes.
  virtual uint64_t txn_id() const = 0;
  bool is_dirty(PageNo page_number) const override = 0;
  // Writable bytes of a page that is dirty. REQUIRES: is_dirty(page_number).
  virtual std::byte* writable(PageNo page_number) = 0;
  // True when `data` is what writable(page_number) returns now and a write
  // through it needs nothing from writable() first (no read-back of a spilled
  // page, no copy kept for a savepoint). Changes nothing: debug checks of
  // bytes kept from an earlier writable() call use it.
  virtual bool writable_in_place(PageNo page_number, const std::byte* data) const = 0;
  // writable(page_number) when is_dirty(page_number), else nullptr: one
  // lookup among the dirty pages for both.
  virtual std::byte* writable_if_dirty(PageNo page_number) = 0;
  // The committed bytes of a page this txn has not written, as read() gives
  // them, without looking among the dirty pages. REQUIRES:
  // !is_dirty(page_number). Corruption as read().
  virtual Result<const std::byte*> read_clean(PageNo page_number) = 0;
  // A dirty page and its writable bytes (what writable(page) returns).
  struct DirtyPage {
    PageNo page;
    std::byte* data;
  };
  // Copies page `page_number`, which this txn has not written and whose
  // bytes `clean` came from read_clean(page_number), to a newly allocated
  // page and frees the original. Returns the copy; Full/IOError as
  // allocate().
  virtual Result<DirtyPage> copy_clean(PageNo page_number, const std::byte* clean) = 0;
  // A new dirty page with undefined contents (format it with
  // NodeEditor::init). Full when no page number is left.
  virtual Result<PageNo> allocate() = 0;
  // Gives a page back: a dirty page is reusable at once; a committed one once
  // no snapshot can reach it.
  virtual void free_page(PageNo page_number) = 0;
  // Stores an overflow run of `pages` adjacent pages no snapshot in use
  // reaches (reused or new) holding the bytes of `parts` in order,
  // zero-padded. Returns the first page. Full/IOError.
  virtual Result<PageNo> write_run(std::span<const std::span<const std::byte>> parts,
                                   uint64_t pages) = 0;
  // Gives back a run written by write_run (in this or an earlier txn).
  virtual void free_run(PageNo first, uint64_t pages) = 0;
};

}  // namespace ordo::btree
