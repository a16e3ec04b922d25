// An in-memory PageWriter for testing the tree without files: committed pages
// are immutable; a "txn" copies on write and commit() publishes its pages.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "ordo/btree/page_access.h"

namespace ordo::btree::testing {

class MemPages : public PageWriter {
 public:
  explicit MemPages(uint32_t page_size) : page_size_(page_size) {}

  uint32_t page_size() const override { return page_size_; }
  uint64_t txn_id() const override { return txn_; }
  Result<const std::byte*> read(PageNo pg) override {
    auto it = pages_.find(pg);
    if (it == pages_.end()) return Status::corruption("no such page", pg);
    return static_cast<const std::byte*>(it->second.get());
  }
  bool is_dirty(PageNo pg) const override { return dirty_.count(pg) != 0; }
  std::byte* writable(PageNo pg) override {
    // The tree must copy a page before writing it.
    if (!is_dirty(pg)) ADD_FAILURE() << "writable() on page " << pg << " that is not dirty";
    return pages_.at(pg).get();
  }
  Result<PageNo> make_dirty(PageNo pg) override {
    if (is_dirty(pg)) return pg;
    ORDO_ASSIGN_OR_RETURN(PageNo copy, allocate());
    std::memcpy(pages_[copy].get(), pages_.at(pg).get(), page_size_);
    free_page(pg);
    return copy;
  }
  Result<PageNo> allocate() override {
    PageNo pg = next_++;
    pages_[pg] = std::make_unique<std::byte[]>(page_size_);
    std::memset(pages_[pg].get(), 0, page_size_);
    dirty_.insert(pg);
    return pg;
  }
  void free_page(PageNo pg) override {
    if (is_dirty(pg)) {
      dirty_.erase(pg);
      pages_.erase(pg);
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
    PageNo first = next_;
    next_ += pages;
    std::vector<std::byte> run;
    for (auto part : parts) run.insert(run.end(), part.begin(), part.end());
    run.resize(pages * page_size_);
    runs_[first] = std::move(run);
    return first;
  }
  void free_run(PageNo first, uint64_t pages) override {
    freed_runs_.push_back(first);
    (void)pages;
  }
  size_t live_runs() const { return runs_.size(); }

  // Publishes the txn: old versions of copied pages are dropped.
  void commit() {
    for (PageNo pg : freed_) pages_.erase(pg);
    freed_.clear();
    for (PageNo pg : freed_runs_) runs_.erase(pg);
    freed_runs_.clear();
    dirty_.clear();
    ++txn_;
  }
  size_t live_pages() const { return pages_.size(); }

 private:
  uint32_t page_size_;
  uint64_t txn_ = 1;
  PageNo next_ = 2;
  std::map<PageNo, std::unique_ptr<std::byte[]>> pages_;
  std::set<PageNo> dirty_;
  std::vector<PageNo> freed_;
  std::map<PageNo, std::vector<std::byte>> runs_;
  std::vector<PageNo> freed_runs_;
};

}  // namespace ordo::btree::testing
