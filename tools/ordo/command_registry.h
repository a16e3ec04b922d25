// How each `ordo` command joins the command line. A command's file has an
// add_*_command function (commands.h) that adds its CLI11 subcommand with
// its flags, and sets the action that runs when the command line names it;
// main.cc builds the app, calls each of them, parses and runs the action.
// The flags several commands share (FILE and --json, --tree, the byte
// formats, unsigned numbers) are made here, the same way for each.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "byte_format.h"
#include "number_text.h"
#include "open_database.h"

namespace ordo::tool {

// What a command does once the command line is parsed: returns the exit
// code (commands.h).
using CommandAction = std::function<int()>;

// FILE and --json, which every command on one database file takes.
struct FileArgs {
  std::string path;
  bool json = false;
};

// The commands of one `ordo` app, in the order they were added (the order
// of --help and of the list an unknown command prints). Not thread-safe;
// lives while the app parses and the action runs.
class CommandRegistry {
 public:
  explicit CommandRegistry(CLI::App& app) : app_(app) {}
  CommandRegistry(const CommandRegistry&) = delete;
  CommandRegistry& operator=(const CommandRegistry&) = delete;

  // Adds command `name`; its --help ends with the exit codes.
  CLI::App* add_command(const std::string& name, const std::string& help);
  // The same, then FILE (required) and --json, read into `args`, which must
  // outlive the parse and the action (the action holds it).
  CLI::App* add_file_command(const std::string& name, const std::string& help, FileArgs& args);
  // A file command that takes nothing more: its action is run(FILE, --json).
  void add_file_command(const std::string& name, const std::string& help,
                        int (*run)(const std::string& path, bool json));
  // `action` runs when the parsed command line names `command`: a command
  // added here or a subcommand of one (`snapshot keep`).
  void set_action(const CLI::App* command, CommandAction action);

  // The names of the commands, in the order added.
  const std::vector<std::string>& names() const { return names_; }
  // The action of the command the parsed command line names; null when it
  // names none.
  const CommandAction* parsed_action() const;

 private:
  CLI::App& app_;
  std::vector<std::string> names_;
  std::vector<std::pair<const CLI::App*, CommandAction>> actions_;
};

// A validator for an unsigned option or argument: decimal digits that fit
// in T (CLI11 alone would take "-1" as 2^64-1).
template <typename T>
CLI::Validator unsigned_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_unsigned<T>(text)) return {};
        return "'" + clipped_text(text) + "' is not a whole number from 0 to " +
               std::to_string(std::numeric_limits<T>::max());
      },
      // No description: the option's type already shows as UINT in --help.
      "");
}

// -t,--tree NAME: the tree a command reads or writes.
struct TreeFlag {
  std::string text;
  const CLI::Option* option = nullptr;
  // The default tree unless the command line gave --tree.
  TreeOption value() const;
};
void add_tree_flag(CLI::App* command, TreeFlag& flag, const std::string& help);

// --key-format and --value-format: print, hex or uuid.
struct FormatFlags {
  std::string key = "print";
  std::string value = "print";  // "raw" too where add_format_flags allows it
  ByteFormat key_format() const;
  // Not for "raw".
  ByteFormat value_format() const;
};
// --key-format; with `values` also --value-format, which with `raw` also
// takes "raw" (the value's bytes as they are).
void add_format_flags(CLI::App* command, FormatFlags& flags, bool values, bool raw);

}  // namespace ordo::tool
