// The commands of the `ordo` tool. Each one prints its report on stdout
// (text, or one JSON object with --json), its errors on stderr, and returns
// the process exit code. Each command's file has its add_*_command: it adds
// the command, its flags and its action to the registry (command_registry.h).
#pragma once

namespace ordo::tool {

class CommandRegistry;

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // failed: cannot open, read or write, bad input, problems
inline constexpr int kExitUsage = 2;  // bad command line
// Done, with a warning: the command's change took effect and is durable, a
// step after it failed (load: the checkpoint after the commit).
inline constexpr int kExitDoneWithWarning = 3;

// The exit codes as --help lists them.
inline constexpr const char* kExitCodesHelp =
    "Exit codes:\n"
    "  0  success (check: the file is clean)\n"
    "  1  failure: the file cannot be opened or read, a key or tree is not found, bad input\n"
    "     (load: nothing was loaded), check found problems, an output cannot be written\n"
    "     (stdout closed: `| head`); the reason is on stderr\n"
    "  2  bad command line (unknown command or option, missing argument)\n"
    "  3  done, with a warning on stderr: the change took effect and is durable, a step\n"
    "     after it failed (load: every record was committed; the checkpoint after the\n"
    "     commit failed, so the records stay in the file's log until a writable open)";

// `ordo info FILE`: page size, format, file length, both meta pages, ID
// high-water marks, user trees and entries (info_command.cc).
void add_info_command(CommandRegistry& registry);
// `ordo stat FILE`: shape and fill, overflow pages and key/value bytes of
// the default tree and every named tree; the internal trees apart.
void add_stat_command(CommandRegistry& registry);
// `ordo check FILE`: full integrity walk; exit 0 when clean, 1 with the list
// of problems (page number and what) otherwise.
void add_check_command(CommandRegistry& registry);
// `ordo trees FILE`: user trees with entry counts from the catalog (no walk).
void add_trees_command(CommandRegistry& registry);
// `ordo get FILE KEY`: one value.
void add_get_command(CommandRegistry& registry);
// `ordo keys FILE` and `ordo scan FILE`: the keys, or keys and values, of a
// tree in key order (one implementation: scan_command.cc).
void add_keys_and_scan_commands(CommandRegistry& registry);
// `ordo dump FILE`: trees in mdb_dump text format.
void add_dump_command(CommandRegistry& registry);
// `ordo load FILE`: mdb_dump text into a database, in one txn.
void add_load_command(CommandRegistry& registry);
// `ordo copy SRC DST`: a consistent copy, or with --since a delta file.
void add_copy_command(CommandRegistry& registry);
// `ordo pages FILE`: one line per page.
void add_pages_command(CommandRegistry& registry);
// `ordo page FILE N`: one page decoded.
void add_page_command(CommandRegistry& registry);
// `ordo free FILE`: free-tree entries.
void add_free_command(CommandRegistry& registry);
// `ordo readers FILE`: reader slots held.
void add_readers_command(CommandRegistry& registry);
// `ordo upgrade FILE`: a version 2 or 3 file converted to version 4 in place.
void add_upgrade_command(CommandRegistry& registry);
// `ordo diff FILE --since TXN`: the changes to a tree since a kept snapshot.
void add_diff_command(CommandRegistry& registry);
// `ordo restore FILE DELTA`: applies a delta file.
void add_restore_command(CommandRegistry& registry);
// `ordo snapshot keep|release|list FILE`: the kept snapshots.
void add_snapshot_command(CommandRegistry& registry);

}  // namespace ordo::tool
