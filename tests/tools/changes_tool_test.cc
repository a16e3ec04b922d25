// `ordo snapshot`, `ordo diff`, `ordo copy --since/--at` and `ordo restore`:
// a delta restored onto a copy at its base dumps as the source does.
#include <gtest/gtest.h>

#include <string>

#include "ordo/database.h"
#include "ordo_util.h"

namespace ordo {
namespace {

using testing::ordo_tool;
using testing::parse_json;
using testing::ProcessResult;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

void commit_changes(const std::string& path, int round) {
  auto db = Database::open(path);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  auto w = (*db)->begin_write();
  ASSERT_TRUE(w.is_ok());
  auto nodes = w->create_tree("nodes");
  ASSERT_TRUE(nodes.is_ok());
  for (int i = 0; i < 2000; ++i) {
    const std::string k = "n" + std::to_string(1000 + i);
    if (round == 0 || i % 37 == round) {
      ASSERT_TRUE(w->put(*nodes, k, std::string(i % 100 == 0 ? 3000 : 20, 'a' + round)).is_ok());
    }
    if (round > 0 && i % 41 == round) {
      Status s = w->del(*nodes, k);
      ASSERT_TRUE(s.is_ok() || s.is_not_found());
    }
  }
  ASSERT_TRUE(w->put(w->default_tree(), "round", std::to_string(round)).is_ok());
  if (round == 1) {
    auto edges = w->create_tree("edges");
    ASSERT_TRUE(edges.is_ok());
    ASSERT_TRUE(w->put(*edges, "e", "1").is_ok());
  }
  if (round == 2) {
    ASSERT_TRUE(w->drop_tree("edges").is_ok());
  }
  ASSERT_TRUE(w->commit().is_ok());
}

uint64_t keep(const std::string& path) {
  ProcessResult r = ordo_tool({"snapshot", "keep", path, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return parse_json(r)["kept"].get<uint64_t>();
}

std::string dump_all(const std::string& path) {
  ProcessResult r = ordo_tool({"dump", "--all", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(ToolChangesTest, DiffAndChainedDeltasMatchDump) {
  TempDir dir;
  const std::string src = dir.file("src.ordo");
  const std::string copy = dir.file("copy.ordo");
  commit_changes(src, 0);
  const uint64_t base = keep(src);
  ProcessResult c = ordo_tool({"copy", src, copy, "--at", std::to_string(base)});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  uint64_t since = base;
  for (int round = 1; round <= 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    commit_changes(src, round);
    ProcessResult d =
        ordo_tool({"diff", src, "--since", std::to_string(since), "--tree", "nodes", "--json"});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    auto j = parse_json(d);
    EXPECT_GT(j["updated"].get<uint64_t>(), 0u);
    EXPECT_GT(j["deleted"].get<uint64_t>(), 0u);
    EXPECT_EQ(j["changes"].size(), j["inserted"].get<uint64_t>() + j["updated"].get<uint64_t>() +
                                       j["deleted"].get<uint64_t>());
    ProcessResult text = ordo_tool({"diff", src, "--since", std::to_string(since)});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.out, (since == base ? "~\tround\t0\t1\n" : "~\tround\t1\t2\n")) << text.out;
    const uint64_t next = keep(src);
    const std::string delta = dir.file("d" + std::to_string(round) + ".odl");
    ProcessResult w = ordo_tool(
        {"copy", src, delta, "--since", std::to_string(since), "--at", std::to_string(next)});
    ASSERT_EQ(w.exit_code, 0) << w.err;
    // The source's dump at the kept snapshot, from a copy of it.
    const std::string want = dir.file("want" + std::to_string(round) + ".ordo");
    ASSERT_EQ(ordo_tool({"copy", src, want, "--at", std::to_string(next)}).exit_code, 0);
    ProcessResult r = ordo_tool({"restore", copy, delta, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(parse_json(r)["target_txn"].get<uint64_t>(), next);
    EXPECT_EQ(dump_all(copy), dump_all(want));
    EXPECT_EQ(ordo_tool({"check", copy}).exit_code, 0);
    // Applied once: the copy is past the delta's base now.
    ProcessResult again = ordo_tool({"restore", copy, delta});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find("applies to txn " + std::to_string(since)), std::string::npos)
        << again.err;
    ASSERT_EQ(ordo_tool({"snapshot", "release", src, std::to_string(since)}).exit_code, 0);
    since = next;
  }
  ProcessResult list = ordo_tool({"snapshot", "list", src});
  EXPECT_EQ(list.out, std::to_string(since) + "\n");
  ProcessResult info = ordo_tool({"info", src, "--json"});
  EXPECT_EQ(parse_json(info)["kept_snapshots"], nlohmann::json::array({since}));
}

TEST(ToolChangesTest, NotHeldAndDamagedDeltaAreErrors) {
  TempDir dir;
  const std::string src = dir.file("src.ordo");
  commit_changes(src, 0);
  commit_changes(src, 1);
  ProcessResult d = ordo_tool({"diff", src, "--since", "1"});
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_NE(d.err.find("snapshot 1 is not held"), std::string::npos) << d.err;
  const uint64_t base = keep(src);
  const std::string copy = dir.file("copy.ordo");
  ASSERT_EQ(ordo_tool({"copy", src, copy, "--at", std::to_string(base)}).exit_code, 0);
  commit_changes(src, 2);
  const std::string delta = dir.file("d.odl");
  ASSERT_EQ(ordo_tool({"copy", src, delta, "--since", std::to_string(base)}).exit_code, 0);
  const std::string before = dump_all(copy);
  std::string bytes = read_file(delta);
  write_file(dir.file("cut.odl"), bytes.substr(0, bytes.size() - 1));
  ProcessResult cut = ordo_tool({"restore", copy, dir.file("cut.odl")});
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_NE(cut.err.find("truncated"), std::string::npos) << cut.err;
  // Cut inside its header: truncated too, not "not a delta".
  for (size_t cut_at : {size_t{1}, size_t{8}, size_t{40}, size_t{95}}) {
    write_file(dir.file("head.odl"), bytes.substr(0, cut_at));
    ProcessResult head = ordo_tool({"restore", copy, dir.file("head.odl")});
    EXPECT_EQ(head.exit_code, 1);
    EXPECT_NE(head.err.find("truncated inside its header"), std::string::npos)
        << cut_at << ": " << head.err;
  }
  write_file(dir.file("other.odl"),
             "not a delta at all, longer than its header would be" + std::string(100, '.'));
  ProcessResult other = ordo_tool({"restore", copy, dir.file("other.odl")});
  EXPECT_NE(other.err.find("is not an ordo delta file"), std::string::npos) << other.err;
  bytes[bytes.size() - 3] ^= 0x20;
  write_file(dir.file("bad.odl"), bytes);
  ProcessResult bad = ordo_tool({"restore", copy, dir.file("bad.odl")});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("checksum mismatch"), std::string::npos) << bad.err;
  EXPECT_EQ(dump_all(copy), before);
  EXPECT_EQ(ordo_tool({"restore", copy, delta}).exit_code, 0);
  EXPECT_EQ(dump_all(copy), dump_all(src));
}

// The current txn is readable as any kept snapshot: a diff since it is
// empty, a copy at it is the current state, a delta since it changes nothing.
TEST(ToolChangesTest, TheCurrentTxnIsAlwaysHeld) {
  TempDir dir;
  const std::string src = dir.file("src.ordo");
  commit_changes(src, 0);
  ProcessResult info = ordo_tool({"info", src, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const std::string now = std::to_string(parse_json(info)["txn_id"].get<uint64_t>());
  ProcessResult d = ordo_tool({"diff", src, "--since", now});
  EXPECT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.out, "");
  const std::string copy = dir.file("copy.ordo");
  ProcessResult c = ordo_tool({"copy", src, copy, "--at", now});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(dump_all(copy), dump_all(src));
  ProcessResult older = ordo_tool({"copy", src, dir.file("old.ordo"), "--at", "0"});
  EXPECT_EQ(older.exit_code, 1);
  EXPECT_NE(older.err.find("snapshot 0 is not held"), std::string::npos) << older.err;
}

// A tree created empty (or renamed while empty) since the kept snapshot: the
// delta holds it, and the restored copy has it.
TEST(ToolChangesTest, DeltaOfAnEmptyTree) {
  TempDir dir;
  const std::string src = dir.file("src.ordo");
  {
    auto db = Database::open(src);
    ASSERT_TRUE(db.is_ok());
    auto w = (*db)->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "a", "1").is_ok());
    ASSERT_TRUE(w->create_tree("was_empty").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  const uint64_t base = keep(src);
  const std::string copy = dir.file("copy.ordo");
  ASSERT_EQ(ordo_tool({"copy", src, copy, "--at", std::to_string(base)}).exit_code, 0);
  {
    auto db = Database::open(src);
    ASSERT_TRUE(db.is_ok());
    auto w = (*db)->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "b", "2").is_ok());
    ASSERT_TRUE(w->create_tree("empty").is_ok());
    ASSERT_TRUE(w->rename_tree("was_empty", "renamed").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  const std::string delta = dir.file("d.odl");
  ProcessResult w = ordo_tool({"copy", src, delta, "--since", std::to_string(base)});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  ProcessResult r = ordo_tool({"restore", copy, delta});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult trees = ordo_tool({"trees", copy});
  EXPECT_NE(trees.out.find("empty"), std::string::npos) << trees.out;
  EXPECT_NE(trees.out.find("renamed"), std::string::npos) << trees.out;
  EXPECT_EQ(trees.out.find("was_empty"), std::string::npos) << trees.out;
  EXPECT_EQ(dump_all(copy), dump_all(src));
  EXPECT_EQ(ordo_tool({"check", copy}).exit_code, 0);
}

}  // namespace
}  // namespace ordo
