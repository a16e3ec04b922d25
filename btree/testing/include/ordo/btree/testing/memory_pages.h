// An in-memory PageWriter, for building and testing trees without a file:
// the tests of the tree algorithms and the ordo-micro benchmarks share it.
//
// Pages written in the current txn are dirty and edited in place; commit()
// makes them immutable, so the next txn copies on write, as a file-backed
// txn does. Without commit() every page stays dirty (what a benchmark that
// builds one tree wants). Overflow runs are kept whole, one buffer each.
// Page numbers start at 2 (0 and 1 are the meta pages of a file).
// Thread-safety: one thread. Reads stay valid until the page is freed and the
// freeing txn committed (or, for a dirty page, until it is freed).
#pragma once

#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "ordo/btree/page_access.h"

namespace ordo::btree::testing {

class MemoryPages : public PageWriter {
 public:
  explicit MemoryPages(uint32_t page_size) : page_size_(page_size) {}

  uint32_t page_size() const override { return page_size_; }
  uint64_t txn_id() const override { return txn_; }
  Result<const std::byte*> read(PageNo pg) override {
    if (pg >= pages_.size() || pages_[pg] == nullptr) return Status::corruption("no such page", pg);
    return static_cast<const std::byte*>(pages_[pg].get());
  }
  bool is_dirty(PageNo pg) const override { return pg < dirty_.size() && dirty_[pg]; }
  // The tree writes only pages it made dirty; writes to another page are
  // counted in misuses() (a test checks it is 0), and still allowed.
  std::byte* writable(PageNo pg) override {
    if (!is_dirty(pg)) ++misuses_;
    return pages_.at(pg).get();
  }
  bool writable_in_place(PageNo pg, const std::byte* data) const override {
    return is_dirty(pg) && pages_[pg].get() == data;
  }
  std::byte* writable_if_dirty(PageNo pg) override {
    return is_dirty(pg) ? pages_[pg].get() : nullptr;
  }
  // A dirty page given to read_clean or copy_clean is a misuse too.
  Result<const std::byte*> read_clean(PageNo pg) override {
    if (is_dirty(pg)) ++misuses_;
    return read(pg);
  }
  Result<DirtyPage> copy_clean(PageNo pg, const std::byte* clean) override {
    if (is_dirty(pg)) ++misuses_;
    ORDO_ASSIGN_OR_RETURN(PageNo copy, allocate());
    std::memcpy(pages_[copy].get(), clean, page_size_);
    free_page(pg);
    return DirtyPage{copy, pages_[copy].get()};
  }
  Result<PageNo> allocate() override {
    const PageNo pg = next_++;
    pages_.resize(next_);
    dirty_.resize(next_, false);
    pages_[pg] = std::make_unique<std::byte[]>(page_size_);
    std::memset(pages_[pg].get(), 0, page_size_);
    dirty_[pg] = true;
    ++live_pages_;
    return pg;
  }
  void free_page(PageNo pg) override {
    if (is_dirty(pg)) {
      dirty_[pg] = false;
      pages_[pg].reset();
      --live_pages_;
    } else {
      freed_.push_back(pg);
    }
  }
  Result<const std::byte*> read_run(PageNo first, uint64_t pages) override {
    auto it = runs_.find(first);
    if (it == runs_.end() || it->second.size() != pages * page_size_) {
      return Status::corruption("no such run", first);
    }
    return static_cast<const std::byte*>(it->second.data());
  }
  Result<PageNo> write_run(std::span<const std::span<const std::byte>> parts,
                           uint64_t pages) override {
    const PageNo first = next_;
    next_ += pages;
    std::vector<std::byte> run;
    for (auto part : parts) run.insert(run.end(), part.begin(), part.end());
    run.resize(pages * page_size_);
    runs_[first] = std::move(run);
    return first;
  }
  void free_run(PageNo first, uint64_t pages) override { freed_runs_.push_back(first); }

  // Ends the txn: pages and runs freed in it are dropped, the rest immutable.
  void commit() {
    for (PageNo pg : freed_) {
      if (pages_[pg] != nullptr) --live_pages_;
      pages_[pg].reset();
    }
    freed_.clear();
    for (PageNo pg : freed_runs_) runs_.erase(pg);
    freed_runs_.clear();
    dirty_.assign(dirty_.size(), false);
    ++txn_;
  }
  size_t live_pages() const { return live_pages_; }
  size_t live_runs() const { return runs_.size(); }
  uint64_t misuses() const { return misuses_; }

 private:
  uint32_t page_size_;
  uint64_t txn_ = 1;
  PageNo next_ = 2;
  std::vector<std::unique_ptr<std::byte[]>> pages_;  // by page number
  std::vector<bool> dirty_;                          // by page number
  size_t live_pages_ = 0;
  uint64_t misuses_ = 0;
  std::vector<PageNo> freed_;
  std::map<PageNo, std::vector<std::byte>> runs_;
  std::vector<PageNo> freed_runs_;
};

}  // namespace ordo::btree::testing
