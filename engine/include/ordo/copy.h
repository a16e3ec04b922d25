// Options and outcome of a consistent copy of a database (ReadTxn::copy_to,
// ReadTxn::copy_to_fd, Database::copy_to in database.h).
#pragma once

#include <cstdint>
#include <functional>

namespace ordo {

struct CopyOptions {
  // false: every page below the snapshot's high-water mark is copied as it
  // is, at the same page number, and the free tree with it; free pages are
  // written as zeros. true: every tree is rewritten densely (leaves and
  // branches filled to the page, bottom-up, in key order), so the copy has
  // no free page and no free-tree entry; overflow values keep their bytes.
  bool compact = false;

  // ReadTxn::copy_to / Database::copy_to only: replace a file already at the
  // target path (atomically, by rename). false: an existing target is
  // InvalidArgument and stays as it is.
  bool overwrite = false;

  // Called every few hundred pages and once at the end with the pages
  // written so far and the pages the copy will have (for a compact copy,
  // the source snapshot's pages in use: an upper bound). On the calling
  // thread; may be empty.
  std::function<void(uint64_t pages_done, uint64_t pages_total)> progress = {};
};

struct CopyResult {
  uint64_t txn_id = 0;      // the snapshot copied: the copy's last commit
  uint64_t pages = 0;       // pages in the copy (its high-water mark), meta pages included
  uint64_t bytes = 0;       // bytes of the copy (pages x page size)
  uint64_t free_pages = 0;  // pages recorded as free in the copy (0 when compact)
  uint64_t trees = 0;       // named trees copied
  uint64_t entries = 0;     // entries of the default tree and every named tree
};

}  // namespace ordo
