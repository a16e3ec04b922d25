// Writes the seed corpus: small valid databases of several shapes. Run by
// hand (`build/tests/fuzz/ordo_make_fuzz_corpus tests/fuzz/corpus`) when the
// format changes; the output is committed.
#include <cstdio>
#include <string>

#include "ordo/database.h"

using ordo::Database;
using ordo::Options;

namespace {

bool make(const std::string& path, int keys, int named, int big_values, bool rewrite) {
  std::remove(path.c_str());
  Options o;
  o.extent_bytes = 4096;
  o.max_extent_bytes = 4096;
  o.sync_commits = false;
  o.log_bytes = 64 << 10;  // the smallest log area: small seeds
  auto db = Database::open(path, o);
  if (!db.is_ok()) return false;
  for (int round = 0; round < (rewrite ? 3 : 1); ++round) {
    auto w = (*db)->begin_write();
    if (!w.is_ok()) return false;
    for (int i = 0; i < keys; ++i) {
      if (!w->put(w->default_tree(), "k" + std::to_string(i), std::to_string(i * round)).is_ok()) {
        return false;
      }
    }
    for (int t = 0; t < named; ++t) {
      auto tree = w->create_tree("tree" + std::to_string(t));
      if (!tree.is_ok()) return false;
      for (int i = 0; i < keys / 4; ++i) (void)w->put(*tree, std::to_string(i), "v");
      for (int i = 0; i < big_values; ++i)
        (void)w->put(*tree, "big" + std::to_string(i), std::string(3000, 'b'));
    }
    if (!w->commit().is_ok()) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  bool ok = make(dir + "/empty.ordo", 0, 0, 0, false) &&
            make(dir + "/one_leaf.ordo", 20, 0, 0, false) &&
            make(dir + "/branches.ordo", 600, 0, 0, false) &&
            make(dir + "/named_trees.ordo", 100, 3, 0, false) &&
            make(dir + "/overflow.ordo", 40, 1, 3, false) &&
            make(dir + "/free_pages.ordo", 300, 1, 1, true);
  return ok ? 0 : 1;
}
