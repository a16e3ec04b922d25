#include "command_registry.h"

#include "commands.h"
#include "ordo/assert.h"

namespace ordo::tool {

namespace {

const std::vector<std::string> kFormats = {"print", "hex", "uuid"};

}  // namespace

CLI::App* CommandRegistry::add_command(const std::string& name, const std::string& help) {
  CLI::App* command = app_.add_subcommand(name, help);
  command->footer(kExitCodesHelp);
  names_.push_back(name);
  return command;
}

CLI::App* CommandRegistry::add_file_command(const std::string& name, const std::string& help,
                                            FileArgs& args) {
  CLI::App* command = add_command(name, help);
  command->add_option("FILE", args.path, "Database file")->required();
  command->add_flag("--json", args.json, "Print one JSON object");
  return command;
}

void CommandRegistry::add_file_command(const std::string& name, const std::string& help,
                                       int (*run)(const std::string& path, bool json)) {
  ORDO_ASSERT(run != nullptr);
  auto args = std::make_shared<FileArgs>();
  set_action(add_file_command(name, help, *args),
             [args, run] { return run(args->path, args->json); });
}

void CommandRegistry::set_action(const CLI::App* command, CommandAction action) {
  ORDO_ASSERT(command != nullptr && action);
  actions_.emplace_back(command, std::move(action));
}

const CommandAction* CommandRegistry::parsed_action() const {
  for (const auto& [command, action] : actions_) {
    if (command->parsed()) return &action;
  }
  return nullptr;
}

TreeOption TreeFlag::value() const {
  ORDO_ASSERT(option != nullptr);  // added by add_tree_flag
  TreeOption tree;
  if (option->count() > 0) tree.name = text;
  return tree;
}

void add_tree_flag(CLI::App* command, TreeFlag& flag, const std::string& help) {
  flag.option = command->add_option("--tree,-t", flag.text, help);
}

ByteFormat FormatFlags::key_format() const {
  const std::optional<ByteFormat> format = byte_format_from_name(key);
  ORDO_ASSERT(format.has_value());  // the option's check took only kFormats
  return *format;
}

ByteFormat FormatFlags::value_format() const {
  const std::optional<ByteFormat> format = byte_format_from_name(value);
  ORDO_ASSERT(format.has_value());
  return *format;
}

void add_format_flags(CLI::App* command, FormatFlags& flags, bool values, bool raw) {
  command->add_option("--key-format", flags.key, "How keys are shown and typed: print, hex, uuid")
      ->check(CLI::IsMember(kFormats));
  if (!values) return;
  std::vector<std::string> allowed = kFormats;
  if (raw) allowed.push_back("raw");
  command
      ->add_option("--value-format", flags.value,
                   raw ? "How the value is shown: print, hex, uuid, raw (its bytes)"
                       : "How values are shown: print, hex, uuid")
      ->check(CLI::IsMember(allowed));
}

}  // namespace ordo::tool
