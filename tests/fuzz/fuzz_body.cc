#include "fuzz_body.h"

#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "ordo/database.h"

namespace ordo::fuzz {

namespace {

// Walks a tree both ways, a bounded number of steps, touching every value.
void scan(Txn& txn, const Tree& tree) {
  auto c = txn.cursor(tree);
  if (!c.is_ok()) return;
  size_t steps = 0;
  for (Status s = c->first(); s.is_ok() && c->valid() && steps < 100000; s = c->next(), ++steps) {
    (void)c->key().size();
    (void)c->value().size();
  }
  steps = 0;
  for (Status s = c->last(); s.is_ok() && c->valid() && steps < 1000; s = c->prev(), ++steps) {
    auto got = txn.get(tree, c->key());
    (void)got.is_ok();
  }
  (void)c->seek("m");
  (void)txn.tree_stats(tree);
}

}  // namespace

void open_check_and_scan(const uint8_t* data, size_t size) {
  if (size > kMaxInputBytes) return;
  int fd = memfd_create("ordo-fuzz", MFD_CLOEXEC);
  if (fd < 0) return;
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  Options options;
  options.read_only = true;
  options.map_reserve_bytes = 64ull << 20;
  // Half the inputs read with checksum verification, half without, so
  // mutations also reach the structural checks behind the checksums.
  options.verify_checksums = size % 2 == 0;
  auto db = Database::open("/proc/self/fd/" + std::to_string(fd), options);
  if (db.is_ok()) {
    (void)(*db)->info();
    auto txn = (*db)->begin_read();
    if (txn.is_ok()) {
      (void)txn->check();
      (void)txn->free_space();
      scan(*txn, txn->default_tree());
      auto names = txn->list_trees();
      if (names.is_ok()) {
        for (size_t i = 0; i < names->size() && i < 16; ++i) {
          auto tree = txn->open_tree((*names)[i]);
          if (tree.is_ok()) scan(*txn, *tree);
        }
      }
    }
  }
  close(fd);
}

}  // namespace ordo::fuzz
