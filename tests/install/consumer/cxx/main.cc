// A user's program: creates a database with two trees, writes, reads back,
// commits, reopens and reads again, checking every Status; then checks that
// linking ordo left this program's malloc and operator new alone.
// Usage: consumer DIR. Prints what failed and exits 1 on any error.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "ordo/database.h"

namespace {

[[noreturn]] void fail(const std::string& what, const ordo::Status& s) {
  std::fprintf(stderr, "consumer: %s: %s\n", what.c_str(), s.to_string().c_str());
  std::exit(1);
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "consumer: %s\n", what.c_str());
  std::exit(1);
}

void check(const ordo::Status& s, const std::string& what) {
  if (!s.is_ok()) fail(what, s);
}

template <typename T>
T take(ordo::Result<T> r, const std::string& what) {
  if (!r.is_ok()) fail(what, r.status());
  return std::move(r).value();
}

void expect_value(ordo::Txn& txn, const ordo::Tree& tree, const std::string& key,
                  const std::string& want, const std::string& when) {
  ordo::ByteView got = take(txn.get(tree, key), when + ": get " + key);
  if (got.str() != want) fail(when + ": " + key + " is '" + got.str() + "', not '" + want + "'");
}

// Both trees hold what write() put there; `people` has exactly two entries.
void read_back(ordo::Txn& txn, const std::string& when) {
  ordo::Tree people = take(txn.open_tree("people"), when + ": open_tree people");
  ordo::Tree places = take(txn.open_tree("places"), when + ": open_tree places");
  expect_value(txn, people, "ada", "Lovelace", when);
  expect_value(txn, people, "alan", "Turing", when);
  expect_value(txn, places, "paris", "France", when);
  ordo::Cursor cursor = take(txn.cursor(people), when + ": cursor");
  check(cursor.first(), when + ": cursor first");
  int entries = 0;
  for (; cursor.valid(); ++entries) check(cursor.next(), when + ": cursor next");
  if (entries != 2) fail(when + ": people has " + std::to_string(entries) + " entries, not 2");
}

std::string object_of(const char* symbol) {
  void* address = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

// ordo may load mimalloc for its page buffers, but must not make it this program's allocator.
void check_host_allocator() {
  const std::string malloc_from = object_of("malloc");
  const std::string new_from = object_of("_Znwm");
  if (malloc_from.find("libc.so.6") == std::string::npos) fail("malloc is from " + malloc_from);
  if (new_from.find("libstdc++.so.6") == std::string::npos)
    fail("operator new is from " + new_from);
  if (dlsym(RTLD_DEFAULT, "mi_malloc") != nullptr) fail("mi_malloc is in the global scope");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) fail("usage: consumer DIR");
  const std::string path = std::string(argv[1]) + "/consumer.ordo";
  std::string id;
  {
    std::unique_ptr<ordo::Database> db = take(ordo::Database::open(path), "open " + path);
    ordo::WriteTxn txn = take(db->begin_write(), "begin_write");
    ordo::Tree people = take(txn.create_tree("people"), "create_tree people");
    ordo::Tree places = take(txn.create_tree("places"), "create_tree places");
    check(txn.put(people, "ada", "Lovelace"), "put ada");
    check(txn.put(people, "alan", "Turing"), "put alan");
    check(txn.put(places, "paris", "France"), "put paris");
    id = take(txn.next_id(), "next_id").to_string();  // from libordo_idgen
    check(txn.put(txn.default_tree(), "last_id", id), "put last_id");
    read_back(txn, "before commit");
    check(txn.commit(), "commit");
    ordo::ReadTxn read = take(db->begin_read(), "begin_read");
    read_back(read, "after commit");
  }
  std::unique_ptr<ordo::Database> db = take(ordo::Database::open(path), "reopen " + path);
  ordo::ReadTxn read = take(db->begin_read(), "begin_read after reopen");
  read_back(read, "after reopen");
  expect_value(read, read.default_tree(), "last_id", id, "after reopen");
  check_host_allocator();
  std::printf("consumer: ok (UUIDv7 %s; malloc from %s)\n", id.c_str(),
              object_of("malloc").c_str());
  return 0;
}
