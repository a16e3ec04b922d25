// The ordo tool's byte formats (print, hex, uuid), terminal-safe text, and
// the mdb_dump text format: round trips and every malformed case, by line.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "byte_format.h"
#include "dump_format.h"
#include "number_text.h"

namespace ordo::tool {
namespace {

TEST(ByteFormatTest, EveryFormatRoundTripsAnyBytes) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 500; ++i) {
    std::string bytes(rng() % 40, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    for (ByteFormat f : {ByteFormat::kPrint, ByteFormat::kHex, ByteFormat::kUuid}) {
      auto back = parse_bytes(format_bytes(bytes, f), f);
      ASSERT_TRUE(back.is_ok()) << byte_format_name(f) << ": " << back.status().to_string();
      EXPECT_EQ(*back, bytes) << byte_format_name(f);
    }
  }
}

TEST(ByteFormatTest, TheFormsLookAsDocumented) {
  EXPECT_EQ(to_print(std::string("a\0b\\c\n~", 7)), "a\\00b\\5cc\\0a~");
  EXPECT_EQ(to_hex("\x01\xab"), "01ab");
  const std::string uuid("\x01\x90\xb3\xc4\x00\x11\x72\x22\x83\x33\x44\x55\x66\x77\x88\x99", 16);
  EXPECT_EQ(to_uuid(uuid), "0190b3c4-0011-7222-8333-445566778899");
  EXPECT_EQ(to_uuid(uuid + "name"), "0190b3c4-0011-7222-8333-445566778899/name");
  EXPECT_EQ(to_uuid("ab"), "0x6162");
  EXPECT_EQ(*from_print("a\\\\b\\41"), "a\\bA");
  EXPECT_EQ(*from_hex("ABcd"), "\xab\xcd");
}

TEST(ByteFormatTest, MalformedInputIsRefusedWithItsPlace) {
  EXPECT_NE(from_hex("abc").status().message().find("odd number of hex digits"), std::string::npos);
  EXPECT_NE(from_hex("zz").status().message().find("offset 0"), std::string::npos);
  EXPECT_NE(from_print("ab\\4").status().message().find("offset 2"), std::string::npos);
  EXPECT_FALSE(from_print("\\xy").is_ok());
  EXPECT_FALSE(from_uuid("0190b3c4-0011-7222-8333").is_ok());
  EXPECT_FALSE(from_uuid("0190b3c4-0011-7222-8333-445566778899x").is_ok());
  // Uuid::parse reads the UUID part, and names the place in it.
  EXPECT_NE(from_uuid("0190b3c4-0011-7222-8333-44556677889g/rest")
                .status()
                .message()
                .find("'g' at position 35"),
            std::string::npos);
  EXPECT_NE(
      from_uuid("0190b3c4-0011-7222+8333-445566778899").status().message().find("position 18"),
      std::string::npos);
}

TEST(ByteFormatTest, SafeTextEscapesControlsAndBadUtf8Only) {
  EXPECT_EQ(safe_text("plain text"), "plain text");
  EXPECT_EQ(safe_text("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");
  EXPECT_EQ(safe_text("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(safe_text("\xff\xfe\n"), "\\xff\\xfe\\x0a");
  EXPECT_EQ(safe_text("\xc3"), "\\xc3");           // truncated sequence
  EXPECT_EQ(safe_text("\xc0\xaf"), "\\xc0\\xaf");  // overlong
  EXPECT_EQ(safe_text("\xc2\x9b"), "\\xc2\\x9b");  // C1 control
}

TEST(ByteFormatTest, ClippedTextShowsABoundedPartAndTheLength) {
  EXPECT_EQ(clipped_text("short"), "short");
  EXPECT_EQ(clipped_text(std::string(64, 'a')), std::string(64, 'a'));
  EXPECT_EQ(clipped_text(std::string(65, 'a')), std::string(64, 'a') + "... (65 bytes)");
  EXPECT_EQ(clipped_text("a\nbcdef", 3), "a\\x0ab... (7 bytes)");
  EXPECT_EQ(clipped_bytes(std::string(100, '\x01'), ByteFormat::kHex, 2), "0101... (100 bytes)");
  EXPECT_EQ(clipped_bytes("ab", ByteFormat::kHex), "6162");
  EXPECT_EQ(tree_label(std::string(70, 't')), "tree '" + std::string(64, 't') + "... (70 bytes)'");
  EXPECT_EQ(tree_label(std::nullopt), "the default tree");
}

TEST(NumberTextTest, OnlyDigitsThatFitTheType) {
  EXPECT_EQ(parse_unsigned<uint64_t>("0"), 0u);
  EXPECT_EQ(parse_unsigned<uint64_t>("007"), 7u);
  EXPECT_EQ(parse_unsigned<uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_unsigned<uint32_t>("4294967295"), UINT32_MAX);
  for (const char* bad : {"", "-1", "-0", "+1", " 1", "1 ", "1x", "0x10", "1e3", "1.0",
                          "18446744073709551616", "99999999999999999999999"}) {
    EXPECT_FALSE(parse_unsigned<uint64_t>(bad).has_value()) << bad;
  }
  EXPECT_FALSE(parse_unsigned<uint32_t>("4294967296").has_value());
}

TEST(DumpFormatTest, WriterNotesWhatMdbLoadCannotLoad) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&text, &size);
  ASSERT_NE(f, nullptr);
  DumpWriter w(f, false);
  ASSERT_TRUE(w.begin(std::string("plain"), 0).is_ok());
  ASSERT_TRUE(w.record("k", "v").is_ok());
  ASSERT_TRUE(w.end().is_ok());
  EXPECT_TRUE(w.lmdb_warnings().empty());
  ASSERT_TRUE(w.begin(std::nullopt, 0).is_ok());
  ASSERT_TRUE(w.record("", "v").is_ok());
  ASSERT_TRUE(w.record("", "w").is_ok());
  ASSERT_TRUE(w.end().is_ok());
  ASSERT_TRUE(w.begin(std::string("a\tb", 3), 0).is_ok());
  ASSERT_TRUE(w.end().is_ok());
  std::fclose(f);
  std::free(text);
  ASSERT_EQ(w.lmdb_warnings().size(), 2u);
  EXPECT_EQ(w.lmdb_warnings()[0].rfind("the default tree: an empty key", 0), 0u);
  EXPECT_EQ(w.lmdb_warnings()[1].rfind("tree 'a\\09b': a name with control characters", 0), 0u);
}

// A dump written to memory and read back.
std::string write_dump(bool print, const std::vector<std::pair<std::string, std::string>>& records,
                       const std::optional<std::string>& name) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  DumpWriter w(f, print);
  EXPECT_TRUE(w.begin(name, 1 << 20).is_ok());
  for (const auto& [k, v] : records) EXPECT_TRUE(w.record(k, v).is_ok());
  EXPECT_TRUE(w.end().is_ok());
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  return out;
}

struct Read {
  std::vector<DumpHeader> headers;
  std::vector<std::vector<std::pair<std::string, std::string>>> blocks;
  Status status;
};

Read read_dump(const std::string& text) {
  Read out;
  std::FILE* f = fmemopen(const_cast<char*>(text.data()), text.size(), "r");
  DumpReader reader(f);
  for (;;) {
    DumpHeader h;
    auto more = reader.next_block(&h);
    if (!more.is_ok()) {
      out.status = more.status();
      break;
    }
    if (!*more) break;
    out.headers.push_back(h);
    out.blocks.emplace_back();
    std::string k, v;
    for (;;) {
      auto got = reader.next_record(&k, &v);
      if (!got.is_ok()) {
        out.status = got.status();
        std::fclose(f);
        return out;
      }
      if (!*got) break;
      out.blocks.back().emplace_back(k, v);
    }
  }
  std::fclose(f);
  return out;
}

TEST(DumpFormatTest, BlocksRoundTripInBothFormats) {
  const std::vector<std::pair<std::string, std::string>> records = {
      {"", ""}, {std::string("\0\n\\", 3), "v"}, {"k", std::string(5000, '\xee')}};
  for (bool print : {false, true}) {
    const std::string text = write_dump(print, records, std::string("tree\nwith newline", 17)) +
                             write_dump(print, records, std::nullopt);
    const Read r = read_dump(text);
    ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
    ASSERT_EQ(r.blocks.size(), 2u);
    EXPECT_EQ(r.blocks[0], records);
    EXPECT_EQ(r.blocks[1], records);
    EXPECT_EQ(*r.headers[0].database, std::string("tree\nwith newline", 17));
    EXPECT_FALSE(r.headers[1].database.has_value());
    EXPECT_EQ(r.headers[0].print, print);
    EXPECT_EQ(*r.headers[0].mapsize, 1u << 20);
  }
  EXPECT_EQ(write_dump(false, {{"a", "b"}}, std::string("t")),
            "VERSION=3\nformat=bytevalue\ndatabase=t\ntype=btree\nmapsize=1048576\nHEADER=END\n"
            " 61\n 62\nDATA=END\n");
}

TEST(DumpFormatTest, LmdbHeadersAreUnderstoodAndUnknownKeywordsNoted) {
  const Read r = read_dump(
      "VERSION=3\nformat=print\ndatabase=nodes\ntype=btree\nmapsize=1048576\nmaxreaders=126\n"
      "db_pagesize=4096\nmystery=1\nHEADER=END\n a\\00\n \\\\x\nDATA=END\n");
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(*r.headers[0].database, "nodes");
  ASSERT_EQ(r.headers[0].ignored.size(), 1u);
  EXPECT_EQ(r.headers[0].ignored[0], "line 8: mystery");
  EXPECT_EQ(r.blocks[0][0].first, std::string("a\0", 2));
  EXPECT_EQ(r.blocks[0][0].second, "\\x");
}

TEST(DumpFormatTest, EveryMalformedInputNamesItsLine) {
  const std::string head = "VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {head + " 6162\n 63\n", "line 6: the input ends inside a data block"},
      {head + " 6162\n", "line 5: the input ends after the key of line 5"},
      {head + " 616\n 63\nDATA=END\n", "line 5: odd number of hex digits"},
      {head + " 61\n 6g\nDATA=END\n", "line 6: not a hex digit at offset 1: 'g'"},
      {"VERSION=3\nformat=bytevalue\n 61\n", "line 3: a data line inside the header"},
      {"VERSION=3\nformat=bytevalue\n", "line 2: the input ends inside a header"},
      {"VERSION=4\nHEADER=END\n", "line 1: unsupported VERSION 4"},
      {"format=bytevalue\n", "line 1: a block must start with a VERSION= line"},
      {" 61\n", "line 1: a data line outside a block"},
      {head + "DATA=END\n 61\n", "line 6: a data line outside a block"},
      {head + " 61\nDATA=END\n", "line 6: DATA=END where the value of the key of line 5 belongs"},
      {head + "61\n", "line 5: expected a key line"},
      {head + " 61\n62\n", "line 6: expected a value line"},
      {"VERSION=3\nformat=base64\n", "line 2: unsupported format 'base64'"},
      {"VERSION=3\ntype=hash\n", "line 2: unsupported type 'hash'"},
      {"VERSION=3\nintegerkey=1\n", "line 2: unsupported LMDB flag integerkey"},
      {"VERSION=3\nno equals sign\n", "line 2: expected KEYWORD=VALUE"},
      {"VERSION=3\nformat=print\ntype=btree\nHEADER=END\n a\\4\n b\nDATA=END\n",
       "line 5: bad escape at offset 1"},
  };
  for (const auto& [text, error] : cases) {
    const Read r = read_dump(text);
    EXPECT_TRUE(r.status.is_invalid_argument()) << text;
    EXPECT_NE(r.status.message().find(error), std::string::npos)
        << "input:\n"
        << text << "got: " << r.status.message() << "\nwanted: " << error;
  }
}

}  // namespace
}  // namespace ordo::tool
