// ordo: the command-line tool for ordo database files.
//
//   ordo info FILE [--json]   file, page size, format, both meta pages, ID high-water marks
//   ordo stat FILE [--json]   entries, depth, pages and leaf fill of every tree; free and
//                             pending-free pages
//   ordo check FILE [--json]  verify every page, checksum, key order and page accounting
//
// Exit codes: 0 ok (check: clean), 1 the file could not be opened or read (the
// reason on stderr) or check found problems, 2 bad command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "commands.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"Inspect an ordo database file (opened read-only).", "ordo"};
  app.require_subcommand(1);

  std::string path;
  bool json = false;
  CLI::App* info = app.add_subcommand("info", "File, page size, format, meta pages, ID marks");
  CLI::App* stat = app.add_subcommand("stat", "Entries, depth, pages and fill of every tree");
  CLI::App* check = app.add_subcommand(
      "check", "Verify every page: checksums, order, overflow runs, no leaked or shared page");
  for (CLI::App* sub : {info, stat, check}) {
    sub->add_option("FILE", path, "Database file")->required();
    sub->add_flag("--json", json, "Print one JSON object");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version requests exit 0; every real parse error is a usage error.
    return app.exit(e) == 0 ? ordo::tool::kExitOk : ordo::tool::kExitUsage;
  }
  if (info->parsed()) return ordo::tool::run_info(path, json);
  if (check->parsed()) return ordo::tool::run_check(path, json);
  return ordo::tool::run_stat(path, json);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    // Only allocation or output failures get here; the engine reports by Status.
    std::fprintf(stderr, "ordo: %s\n", e.what());
    return ordo::tool::kExitError;
  }
}
