// The keys of every command's --json output, exactly (docs/TOOL.md): one
// name per concept across commands (high_water_pages, page_size_bytes,
// named_trees, user_entries, txn_id, run_first, ...). A key renamed, lost
// or added without this table fails here.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "ordo/database.h"
#include "ordo_util.h"
#include "v2_fixture.h"

namespace ordo {
namespace {

using nlohmann::json;
using testing::ordo_tool;
using testing::parse_json;
using testing::ProcessResult;
using testing::TempDir;
using Keys = std::set<std::string>;

Keys keys_of(const json& j) {
  Keys out;
  if (!j.is_object()) return out;
  for (const auto& [key, value] : j.items()) out.insert(key);
  return out;
}

// `ordo ARGS` as JSON; exit code 0 expected.
json run_json(const std::vector<std::string>& args) {
  const ProcessResult r = ordo_tool(args);
  EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
  return parse_json(r);
}

// The object at `pointer` ("" for the whole document, "/metas/0") has
// exactly `want`.
void expect_keys(const json& j, const std::string& pointer, const Keys& want) {
  SCOPED_TRACE(pointer.empty() ? "top level" : pointer);
  const json::json_pointer p(pointer);
  ASSERT_TRUE(j.contains(p)) << j.dump(2);
  EXPECT_EQ(keys_of(j.at(p)), want) << j.at(p).dump(2);
}

// The default tree with a small value and one in an overflow run, a named
// tree, and a second commit that frees pages.
class ToolJsonKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("db.ordo");
    auto db = Database::open(path_);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    for (int round = 0; round < 2; ++round) {
      auto w = (*db)->begin_write();
      ASSERT_TRUE(w.is_ok());
      ASSERT_TRUE(w->put(w->default_tree(), "a", "value " + std::to_string(round)).is_ok());
      if (round == 0) {
        ASSERT_TRUE(w->put(w->default_tree(), "big", std::string(3000, 'b')).is_ok());
        auto t1 = w->create_tree("t1");
        ASSERT_TRUE(t1.is_ok());
        ASSERT_TRUE(w->put(*t1, "x", "y").is_ok());
      }
      ASSERT_TRUE(w->commit().is_ok());
    }
  }
  TempDir dir_;
  std::string path_;
};

const Keys kMetaKeys = {"valid",      "problem",     "txn_id",    "high_water_pages",
                        "free_pages", "named_trees", "file_bytes"};

TEST_F(ToolJsonKeysTest, Info) {
  const json j = run_json({"info", "--json", path_});
  expect_keys(j, "",
              {"path", "file_bytes", "page_size_bytes", "format_version", "io_backend", "txn_id",
               "current_meta", "used_pages", "used_bytes", "uuid_high_water", "id64_high_water",
               "user_trees", "named_trees", "kept_snapshots", "user_entries", "recovery", "current",
               "log", "metas"});
  expect_keys(j, "/current", kMetaKeys);
  Keys meta = kMetaKeys;
  meta.insert({"meta_page", "current"});
  expect_keys(j, "/metas/0", meta);
  expect_keys(j, "/metas/1", meta);
  expect_keys(j, "/log",
              {"first_page", "area_bytes", "epoch", "checkpoint_txn", "records", "tail_bytes",
               "head_bytes", "last_txn", "replayed", "replayed_records", "replayed_bytes"});
}

TEST_F(ToolJsonKeysTest, StatCheckAndTrees) {
  const json stat = run_json({"stat", "--json", path_});
  expect_keys(stat, "",
              {"path", "page_size_bytes", "txn_id", "user_trees", "user_entries", "free_pages",
               "pending_free_pages", "free_tree_entries", "trees", "internal_trees"});
  expect_keys(stat, "/trees/0",
              {"name", "default", "entries", "depth", "leaf_pages", "branch_pages",
               "overflow_pages", "overflow_values", "leaf_fill", "key_bytes", "value_bytes"});
  expect_keys(stat, "/internal_trees/0", {"kind", "entries", "depth"});

  const json check = run_json({"check", "--json", path_});
  expect_keys(
      check, "",
      {"path", "clean", "txn_id", "recovery", "high_water_pages", "tree_pages", "overflow_pages",
       "free_pages", "log_pages", "log_records", "log_record_bytes", "user_trees", "user_entries",
       "catalog_entries", "free_tree_entries", "problems_truncated", "problems"});

  const json trees = run_json({"trees", "--json", path_});
  expect_keys(trees, "",
              {"path", "txn_id", "user_trees", "user_entries", "trees", "internal_trees"});
  expect_keys(trees, "/trees/0", {"kind", "entries", "depth", "root_page"});
  expect_keys(trees, "/trees/1", {"kind", "name", "name_hex", "entries", "depth", "root_page"});
  expect_keys(trees, "/internal_trees/0", {"kind", "entries", "depth", "root_page"});
}

TEST_F(ToolJsonKeysTest, PagesPageAndFree) {
  const json pages = run_json({"pages", "--json", path_});
  expect_keys(pages, "",
              {"path", "txn_id", "page_size_bytes", "high_water_pages", "pages", "problems"});
  // One row of each kind the file has, and the leaf holding "big".
  std::set<std::string> kinds;
  int64_t leaf_with_run = -1;
  for (const json& row : pages["pages"]) {
    const std::string kind = row["kind"];
    if (kind == "meta") expect_keys(row, "", {"page", "kind"});
    if (kind == "leaf" || kind == "branch") {
      expect_keys(row, "",
                  {"page", "kind", "tree", "level", "entries", "fill", "overflow_refs", "txn_id"});
      if (row["tree"] == "(default)" && row["overflow_refs"] == 1) leaf_with_run = row["page"];
    }
    if (kind == "overflow") {
      expect_keys(row, "", {"page", "kind", "tree", "run_first", "run_pages", "txn_id"});
    }
    if (kind == "free") expect_keys(row, "", {"page", "kind", "freed_by", "txn_id"});
    kinds.insert(kind);
  }
  for (const char* kind : {"meta", "leaf", "overflow", "free", "log"}) {
    EXPECT_EQ(kinds.count(kind), 1u) << kind;
  }
  ASSERT_GE(leaf_with_run, 0);

  // The default tree's root leaf: its checksum as the meta records it.
  const json page = run_json({"page", "--json", "--hex", path_, std::to_string(leaf_with_run)});
  expect_keys(page, "",
              {"path", "txn_id", "page", "kind", "owner", "header", "level", "parent",
               "expected_checksum", "actual_checksum", "checksum_ok", "cells", "problem", "hex"});
  expect_keys(page, "/header", {"type", "flags", "count", "cell_start", "txn_id", "cell_bytes"});
  ASSERT_EQ(page["cells"].size(), 2u);  // "a" and "big", in key order
  expect_keys(page, "/cells/0", {"key", "value_bytes", "value"});
  expect_keys(page, "/cells/1", {"key", "value_bytes", "run_first", "run_checksum"});

  const json free = run_json({"free", "--json", path_});
  expect_keys(free, "",
              {"path", "txn_id", "free_pages", "reusable_pages", "recent_pages", "pinned_pages",
               "entries"});
  expect_keys(free, "/entries/0", {"freed_by", "written_by", "chunk", "state", "pages"});
}

TEST_F(ToolJsonKeysTest, Readers) {
  auto ro = Database::open(path_, Options{.read_only = true});
  ASSERT_TRUE(ro.is_ok()) << ro.status().to_string();
  auto reader = (*ro)->begin_read();  // holds a reader slot
  ASSERT_TRUE(reader.is_ok());
  const json j = run_json({"readers", "--json", path_});
  expect_keys(j, "", {"path", "txn_id", "readers"});
  expect_keys(j, "/readers/0", {"snapshot_txn", "processes"});
  expect_keys(j, "/readers/0/processes/0", {"pid", "command"});
}

TEST_F(ToolJsonKeysTest, GetKeysScanDumpAndLoad) {
  expect_keys(run_json({"get", "--json", path_, "a"}), "",
              {"key", "value", "value_bytes", "key_format", "value_format"});
  const json keys = run_json({"keys", "--json", path_});
  expect_keys(keys, "", {"path", "tree", "txn_id", "count", "key_format", "entries"});
  expect_keys(keys, "/entries/0", {"key"});
  const json scan = run_json({"scan", "--json", path_});
  expect_keys(scan, "",
              {"path", "tree", "txn_id", "count", "key_format", "value_format", "entries"});
  expect_keys(scan, "/entries/0", {"key", "value"});

  const std::string dump = dir_.file("all.dump");
  expect_keys(run_json({"dump", "--json", "--all", path_, "-o", dump}), "",
              {"path", "output", "txn_id", "format", "trees", "records"});
  expect_keys(run_json({"load", "--json", dir_.file("loaded.ordo"), "-i", dump}), "",
              {"path", "input", "blocks", "records", "txn_id"});
}

TEST_F(ToolJsonKeysTest, CopySnapshotsDiffAndRestore) {
  const std::string base = dir_.file("base.ordo");
  expect_keys(run_json({"copy", "--json", path_, base}), "",
              {"source", "target", "compact", "txn_id", "high_water_pages", "bytes", "free_pages",
               "named_trees", "user_entries"});
  const json kept = run_json({"snapshot", "keep", "--json", path_});
  expect_keys(kept, "", {"kept"});
  expect_keys(run_json({"snapshot", "list", "--json", path_}), "", {"kept_snapshots"});
  {
    auto db = Database::open(path_);
    ASSERT_TRUE(db.is_ok());
    auto w = (*db)->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "a", "changed").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  const std::string since = std::to_string(kept["kept"].get<uint64_t>());
  const json diff = run_json({"diff", "--json", path_, "--since", since});
  expect_keys(diff, "",
              {"since_txn", "txn_id", "tree", "key_format", "value_format", "inserted", "updated",
               "deleted", "pages_read", "changes"});
  expect_keys(diff, "/changes/0", {"key", "old", "new"});

  const Keys delta = {"file", "base_txn", "target_txn", "trees", "puts", "deletes", "bytes"};
  const std::string delta_file = dir_.file("d.delta");
  expect_keys(run_json({"copy", "--json", path_, delta_file, "--since", since}), "", delta);
  expect_keys(run_json({"restore", "--json", base, delta_file}), "", delta);
  expect_keys(run_json({"snapshot", "release", "--json", path_, since}), "", {"released"});
}

TEST(ToolJsonKeysUpgradeTest, Upgrade) {
  TempDir dir;
  const std::string path = dir.file("v2.ordo");
  testing::copy_v2_fixture(path);
  expect_keys(run_json({"upgrade", "--json", path}), "",
              {"path", "upgraded", "format_version", "txn_id", "page_size_bytes", "log_first_page",
               "log_bytes", "file_bytes", "recovery"});
}

}  // namespace
}  // namespace ordo
