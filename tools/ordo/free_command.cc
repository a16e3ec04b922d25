// `ordo free FILE [--json]`: the free tree's entries, oldest first: the txn
// that freed the pages, the txn that wrote them, the pages (as ranges), and
// whether a write txn starting now may reuse them (reusable), may not yet
// because the last commit freed them (recent: kept for recovery), or may not
// because a live reader's snapshot reaches them (pinned).
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "commands.h"
#include "open_database.h"
#include "ordo/inspect.h"
#include "output.h"

namespace ordo::tool {
namespace {

std::string ranges(const std::vector<uint64_t>& pages) {
  std::string out;
  for (size_t i = 0; i < pages.size();) {
    size_t j = i;
    while (j + 1 < pages.size() && pages[j + 1] == pages[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? std::to_string(pages[i])
                  : std::to_string(pages[i]) + "-" + std::to_string(pages[j]);
    i = j + 1;
  }
  return out;
}

int run_free(const std::string& path, bool json_output) {
  std::optional<ReadTxn> txn = read_for_inspection(path);
  if (!txn) return kExitError;
  auto entries = inspect::free_entries(*txn);
  if (!entries.is_ok()) {
    report_error(path, entries.status());
    return kExitError;
  }
  uint64_t pages = 0, by_state[3] = {};
  for (const auto& e : *entries) {
    pages += e.pages.size();
    by_state[static_cast<int>(e.state)] += e.pages.size();
  }
  if (json_output) {
    nlohmann::ordered_json j;
    j["path"] = path;
    j["txn_id"] = txn->txn_id();
    j["free_pages"] = pages;
    j["reusable_pages"] = by_state[0];
    j["recent_pages"] = by_state[1];
    j["pinned_pages"] = by_state[2];
    j["entries"] = nlohmann::ordered_json::array();
    for (const auto& e : *entries) {
      j["entries"].push_back({{"freed_by", e.freed_by},
                              {"written_by", e.written_by},
                              {"chunk", e.chunk},
                              {"state", inspect::free_state_name(e.state)},
                              {"pages", e.pages}});
    }
    print_line(json_text(j));
    return kExitOk;
  }
  fmt::print("{:>10}  {:>10}  {:>5}  {:>8}  {:<8}  {}\n", "freed by", "written by", "chunk",
             "pages", "state", "page numbers");
  for (const auto& e : *entries) {
    if (!write_stdout(fmt::format("{:>10}  {:>10}  {:>5}  {:>8}  {:<8}  {}\n", e.freed_by,
                                  e.written_by, e.chunk, e.pages.size(),
                                  inspect::free_state_name(e.state), ranges(e.pages)))) {
      return kExitError;  // the reader is gone
    }
  }
  fmt::print(
      "\n{} free pages in {} entries: {} reusable, {} recent (freed by the last commit), "
      "{} pinned by readers (snapshot of txn {})\n",
      pages, entries->size(), by_state[0], by_state[1], by_state[2], txn->txn_id());
  return kExitOk;
}

}  // namespace

void add_free_command(CommandRegistry& registry) {
  registry.add_file_command("free", "Free-tree entries: freeing txn, pages, reusable or pinned",
                            run_free);
}

}  // namespace ordo::tool
