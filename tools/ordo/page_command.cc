// `ordo page FILE N [--hex]`: one page decoded: its kind and owner, header
// fields, every cell (keys, values or overflow references; child pages with
// their recorded and actual checksums) and whether the page matches the
// checksum its parent records. --hex adds the raw bytes.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "ordo/inspect.h"

namespace ordo::tool {
namespace {

std::string owner_text(const inspect::PageDetail& d) {
  if (!d.owned) return "none";
  switch (d.tree_kind) {
    case inspect::TreeKind::kDefault:
      return "the default tree";
    case inspect::TreeKind::kCatalog:
      return "the catalog";
    case inspect::TreeKind::kFree:
      return "the free tree";
    case inspect::TreeKind::kKept:
      return "the kept snapshots tree";
    case inspect::TreeKind::kNamed:
      break;
  }
  return "tree '" + to_print(d.tree) + "'";
}

// 16 bytes a line: offset, hex, printable.
std::string hex_dump(const std::string& bytes) {
  std::string out;
  for (size_t off = 0; off < bytes.size(); off += 16) {
    out += fmt::format("{:06x} ", off);
    std::string text;
    for (size_t i = off; i < off + 16 && i < bytes.size(); ++i) {
      const auto c = static_cast<unsigned char>(bytes[i]);
      out += fmt::format(" {:02x}", c);
      text += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '.';
    }
    out += "  " + text + "\n";
  }
  return out;
}

struct PageOptions {
  std::string path;
  uint64_t page = 0;
  bool hex = false;
  ByteFormat key_format = ByteFormat::kPrint;
  bool json = false;
};

int run_page(const PageOptions& o) {
  std::optional<ReadTxn> txn = read_for_inspection(o.path);
  if (!txn) return kExitError;
  auto detail = inspect::describe_page(*txn, o.page);
  if (!detail.is_ok()) {
    report_error(o.path, detail.status());
    return kExitError;
  }
  const inspect::PageDetail& d = *detail;
  const bool tree_page = d.kind == inspect::PageKind::kBranch || d.kind == inspect::PageKind::kLeaf;
  const bool checked = d.has_parent;
  if (o.json) {
    nlohmann::ordered_json j;
    j["path"] = o.path;
    j["txn_id"] = txn->txn_id();
    j["page"] = d.page;
    j["kind"] = inspect::page_kind_name(d.kind);
    j["owner"] = owner_text(d);
    j["header"] = {{"type", d.type_byte}, {"flags", d.flags},
                   {"count", d.count},    {"cell_start", d.cell_start},
                   {"txn_id", d.txn_id},  {"cell_bytes", d.cell_bytes}};
    if (tree_page) j["level"] = d.level;
    if (checked) {
      j["parent"] = d.parent;
      j["expected_checksum"] = d.expected_checksum;
      j["actual_checksum"] = d.actual_checksum;
      j["checksum_ok"] = d.checksum_ok;
    }
    if (d.kind == inspect::PageKind::kOverflow) {
      j["run_first"] = d.run_first;
      j["run_pages"] = d.run_pages;
    }
    if (d.kind == inspect::PageKind::kFree) {
      j["freed_by"] = d.freed_by;
      j["written_by"] = d.written_by;
    }
    j["cells"] = nlohmann::ordered_json::array();
    for (const auto& c : d.cells) {
      nlohmann::ordered_json cell;
      cell["key"] = format_bytes(c.key, o.key_format);
      if (d.kind == inspect::PageKind::kBranch) {
        cell["child"] = c.child;
        cell["child_entries"] = c.child_entries;
        cell["child_checksum"] = c.child_checksum;
        cell["child_actual_checksum"] = c.child_actual_checksum;
        cell["child_checksum_ok"] = c.child_checksum_ok;
      } else {
        cell["value_bytes"] = c.value_len;
        if (c.overflow) {
          cell["run_first"] = c.run_first;
          cell["run_checksum"] = c.run_checksum;
        } else {
          cell["value"] = to_print(c.value);
        }
      }
      j["cells"].push_back(std::move(cell));
    }
    j["problem"] = d.problem;
    if (o.hex) j["hex"] = to_hex(d.bytes);
    print_line(json_text(j));
    return d.problem.empty() && (!checked || d.checksum_ok) ? kExitOk : kExitError;
  }
  fmt::print("page {} of {} (snapshot of txn {})\n", d.page, o.path, txn->txn_id());
  fmt::print("kind        {}\nowner       {}\n", inspect::page_kind_name(d.kind), owner_text(d));
  if (d.kind == inspect::PageKind::kMeta) {
    fmt::print("meta txn    {}{}\n", d.txn_id,
               d.problem.empty() ? "" : " (invalid: " + d.problem + ")");
    fmt::print("(`ordo info` decodes both meta pages)\n");
  } else {
    fmt::print("header      type {} flags {} count {} cell_start {} txn {} cell_bytes {}\n",
               d.type_byte, d.flags, d.count, d.cell_start, d.txn_id, d.cell_bytes);
  }
  if (tree_page) fmt::print("level       {} (0 is the root)\n", d.level);
  if (d.kind == inspect::PageKind::kOverflow) {
    fmt::print("run         pages {} to {} ({} pages); this is page {} of it\n", d.run_first,
               d.run_first + d.run_pages - 1, d.run_pages, d.page - d.run_first + 1);
  }
  if (d.kind == inspect::PageKind::kFree) {
    fmt::print("free        freed by txn {}, written by txn {}\n", d.freed_by, d.written_by);
  }
  if (checked) {
    fmt::print("checksum    {} {} (recorded by {}: {}; page has {})\n",
               d.checksum_ok ? "ok" : "MISMATCH",
               d.kind == inspect::PageKind::kOverflow ? "of the run" : "",
               d.parent == 0 ? "the root record" : "page " + std::to_string(d.parent),
               d.expected_checksum, d.actual_checksum);
  }
  if (!d.problem.empty()) fmt::print("problem     {}\n", d.problem);
  for (size_t i = 0; i < d.cells.size(); ++i) {
    const auto& c = d.cells[i];
    if (d.kind == inspect::PageKind::kBranch) {
      fmt::print("[{}] key {}  child {}  entries {}  checksum {} {}\n", i,
                 i == 0 ? "(lower bound)" : format_bytes(c.key, o.key_format), c.child,
                 c.child_entries, c.child_checksum, c.child_checksum_ok ? "ok" : "MISMATCH");
    } else if (c.overflow) {
      fmt::print("[{}] key {}  value {} bytes in overflow run at page {} (checksum {})\n", i,
                 format_bytes(c.key, o.key_format), c.value_len, c.run_first, c.run_checksum);
    } else {
      fmt::print("[{}] key {}  value {}\n", i, format_bytes(c.key, o.key_format),
                 to_print(c.value));
    }
  }
  if (o.hex) fmt::print("\n{}", hex_dump(d.bytes));
  return d.problem.empty() && (!checked || d.checksum_ok) ? kExitOk : kExitError;
}

}  // namespace

void add_page_command(CommandRegistry& registry) {
  struct Args {
    FileArgs file;
    PageOptions options;
    FormatFlags formats;
  };
  auto args = std::make_shared<Args>();
  CLI::App* command = registry.add_file_command(
      "page", "One page decoded: header, cells, children, checksums", args->file);
  command->add_option("N", args->options.page, "Page number")
      ->required()
      ->check(unsigned_number<uint64_t>());
  command->add_flag("--hex", args->options.hex, "Also the raw bytes");
  add_format_flags(command, args->formats, false, false);
  registry.set_action(command, [args] {
    PageOptions o = args->options;
    o.path = args->file.path;
    o.json = args->file.json;
    o.key_format = args->formats.key_format();
    return run_page(o);
  });
}

}  // namespace ordo::tool
