// The choice of meta slot and the checks of Options made before a file is
// touched, each on its own.
#include "meta_slots.h"

#include <gtest/gtest.h>

#include "options_check.h"

namespace ordo::engine {
namespace {

MetaSlots slots(MetaProblem p0, uint64_t txn0, MetaProblem p1, uint64_t txn1) {
  MetaSlots s;
  s.problem[0] = p0;
  s.problem[1] = p1;
  s.meta[0].txn_id = txn0;
  s.meta[1].txn_id = txn1;
  return s;
}

TEST(MetaSlotsTest, NewestValidIsTheValidSlotWithTheHigherTxn) {
  EXPECT_EQ(slots(MetaProblem::kNone, 4, MetaProblem::kNone, 5).newest_valid(), 1);
  EXPECT_EQ(slots(MetaProblem::kNone, 6, MetaProblem::kNone, 5).newest_valid(), 0);
  // A damaged slot loses whatever its txn id says.
  EXPECT_EQ(slots(MetaProblem::kNone, 4, MetaProblem::kBadChecksum, 9).newest_valid(), 0);
  EXPECT_EQ(slots(MetaProblem::kBadFields, 9, MetaProblem::kNone, 4).newest_valid(), 1);
  EXPECT_EQ(slots(MetaProblem::kNoMagic, 0, MetaProblem::kBadVersion, 3).newest_valid(), -1);
}

TEST(MetaSlotsTest, FallbackNoteNamesANewerSlotWrittenWholeButUnusable) {
  MetaSlots s = slots(MetaProblem::kBeyondFile, 8, MetaProblem::kNone, 7);
  s.text[0] = "txn 8 has page high-water 9000";
  EXPECT_EQ(s.newest_valid(), 1);
  EXPECT_EQ(s.fallback_note(1),
            "meta 0 (txn 8) is unusable: txn 8 has page high-water 9000; using meta 1 (txn 7)");
  EXPECT_TRUE(s.newest_beyond_file());
  // Torn (bad checksum) or older: nothing to say.
  EXPECT_EQ(slots(MetaProblem::kBadChecksum, 8, MetaProblem::kNone, 7).fallback_note(1), "");
  EXPECT_EQ(slots(MetaProblem::kNone, 8, MetaProblem::kBadFields, 7).fallback_note(0), "");
  EXPECT_FALSE(slots(MetaProblem::kNone, 8, MetaProblem::kBeyondFile, 7).newest_beyond_file());
  EXPECT_FALSE(slots(MetaProblem::kNone, 8, MetaProblem::kNone, 7).newest_beyond_file());
}

TEST(MetaSlotsTest, CheckMetaInFileWantsTheSlotParityAndThePagesInTheFile) {
  Meta m;
  m.page_size = 4096;
  m.txn_id = 4;
  m.log_epoch = 5;  // checkpoint 5: slot 1, whatever its txn id
  m.page_high_water = 10;
  std::string text;
  EXPECT_EQ(check_meta_in_file(m, 1, 10 * 4096, &text), MetaProblem::kNone);
  EXPECT_EQ(check_meta_in_file(m, 0, 10 * 4096, &text), MetaProblem::kBadFields);
  EXPECT_NE(text.find("even"), std::string::npos) << text;
  EXPECT_EQ(check_meta_in_file(m, 1, 10 * 4096 - 1, &text), MetaProblem::kBeyondFile);
  EXPECT_NE(text.find("truncated"), std::string::npos) << text;
  m.page_high_water = ~uint64_t{0};  // no overflow
  EXPECT_EQ(check_meta_in_file(m, 1, 10 * 4096, &text), MetaProblem::kBeyondFile);
  // The meta of a log record is never a slot's.
  m.page_high_water = 10;
  m.flags = kMetaFlagLogged;
  EXPECT_EQ(check_meta_in_file(m, 1, 10 * 4096, &text), MetaProblem::kBadFields);
}

TEST(OptionsCheckTest, DefaultsPassAndEachBadFieldIsNamed) {
  EXPECT_TRUE(check_options(Options{}).is_ok());
  Options o;
  o.page_size_bytes = 65536;
  EXPECT_TRUE(check_options(o).is_ok());

  const auto named = [](Options bad, const char* field) {
    Status s = check_options(bad);
    EXPECT_TRUE(s.is_invalid_argument()) << field << ": " << s.to_string();
    EXPECT_NE(s.message().find(field), std::string::npos) << s.to_string();
  };
  Options page;
  page.page_size_bytes = 6000;
  named(page, "page size");
  page.page_size_bytes = 2048;
  named(page, "page size");
  Options budget;
  budget.txn_memory_budget_bytes = (1u << 20) - 1;
  named(budget, "txn_memory_budget_bytes");
  Options fill;
  fill.append_fill = 0.49;
  named(fill, "append_fill");
  fill.append_fill = 1.01;
  named(fill, "append_fill");
  Options node;
  node.id_node = 1024;
  named(node, "id_node");
}

}  // namespace
}  // namespace ordo::engine
