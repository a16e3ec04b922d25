// The model the linkbench workload is checked against (linkbench_graph.h)
// and the prefix scan that reads a group of links (rows.h), on ordo.
#include <gtest/gtest.h>

#include <set>

#include "kv_registry.h"
#include "linkbench_graph.h"
#include "rows.h"
#include "tools_test_util.h"

namespace ordo {
namespace {

using bench::LinkGroup;
using bench::LinkModel;

TEST(LinkModelTest, PreloadedLinksAreSeededOlderAndDistinct) {
  const LinkModel model(42, 1000), same(42, 1000), other(43, 1000);
  uint64_t links = 0;
  bool differs = false;
  for (uint64_t i = 0; i < 1000; ++i) {
    const auto l = model.preload_links(i);
    EXPECT_EQ(l, same.preload_links(i));
    differs = differs || l != other.preload_links(i);
    ASSERT_FALSE(l.empty());
    EXPECT_LE(l.size(), 9u);
    EXPECT_EQ(std::set(l.begin(), l.end()).size(), l.size());
    for (const auto& [type, id2] : l) {
      EXPECT_LT(type, bench::kLinkTypes);
      EXPECT_LE(id2, i);
    }
    links += l.size();
  }
  EXPECT_TRUE(differs);
  EXPECT_GT(links, 4000u);  // about 5 per node
  EXPECT_LT(links, 6000u);
}

TEST(LinkModelTest, AddsAndRemovesChangeOnlyTheirGroup) {
  LinkModel model(7, 100);
  const LinkGroup g{50, 1};
  std::set<uint64_t> want = model.links(g);
  model.add(g, 99);
  model.add(g, 99);  // an overwrite
  want.insert(99);
  EXPECT_EQ(model.links(g), want);
  const uint64_t first = *want.begin();
  model.remove(g, first);
  want.erase(first);
  EXPECT_EQ(model.links(g), want);
  EXPECT_EQ(model.touched().size(), 1u);
  EXPECT_TRUE(model.links({100, 0}).empty());  // an added node has no links until added
}

TEST(ScanPrefixTest, VisitsExactlyTheGroupWhateverItsSize) {
  testing::TempDir dir;
  auto db = bench::open_engine("ordo", dir.file("db"), {});
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  auto table = (*db)->open_table("t");
  ASSERT_TRUE(table.is_ok());
  {
    bench::BatchWriter writer(**db, 7);
    for (char p : {'a', 'b', 'c'}) {
      const int count = p == 'b' ? 100 : 3;  // longer than several scan chunks
      for (int i = 0; i < count; ++i) {
        const std::string key = std::string(1, p) + bench::row_key(i, 8);
        ASSERT_TRUE(writer.put(*table, key, "v").is_ok());
      }
    }
    ASSERT_TRUE(writer.finish().is_ok());
  }
  auto read = (*db)->begin_read();
  ASSERT_TRUE(read.is_ok());
  for (const auto& [prefix, want] : {std::pair{"a", 3}, {"b", 100}, {"c", 3}, {"d", 0}}) {
    uint64_t visited = 0;
    auto n = bench::scan_prefix(**read, *table, prefix, [&](ByteView key, ByteView) {
      EXPECT_EQ(key.view().substr(0, 1), prefix);
      ++visited;
    });
    ASSERT_TRUE(n.is_ok());
    EXPECT_EQ(*n, static_cast<uint64_t>(want)) << prefix;
    EXPECT_EQ(visited, static_cast<uint64_t>(want));
  }
}

}  // namespace
}  // namespace ordo
