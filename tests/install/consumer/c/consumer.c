/* A C11 program that uses ordo through ordo/ordo.h only: creates a database
 * in the directory given as argv[1], writes two trees (conditional writes
 * among them), reads them back, commits, closes, reopens, reads again, and
 * checks, describes and copies the file. Every return code is checked;
 * an unexpected one prints its name and message and exits 1.
 *
 *   cc -std=c11 consumer.c $(pkg-config --cflags --libs ordo) -o consumer
 *   ./consumer /tmp/somewhere
 */
#include <ordo/ordo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ordo_error err;

/* Exits 1 unless `rc` is `want`. */
static void expect(int rc, int want, const char* what) {
  if (rc == want) return;
  fprintf(stderr, "consumer: %s: got %s (want %s): %s\n", what, ordo_code_name(rc),
          ordo_code_name(want), err.message);
  exit(1);
}

static void check(int rc, const char* what) { expect(rc, ORDO_OK, what); }

/* Exits 1 unless `ok`. */
static void require(bool ok, const char* what) {
  if (ok) return;
  fprintf(stderr, "consumer: %s: not as expected\n", what);
  exit(1);
}

/* Exits 1 unless the value of `key` in `tree` is `want`. */
static void expect_value(ordo_txn* txn, const ordo_tree* tree, const char* key, const char* want) {
  const void* value = NULL;
  size_t len = 0;
  check(ordo_get(txn, tree, key, strlen(key), &value, &len, &err), key);
  if (len != strlen(want) || memcmp(value, want, len) != 0) {
    fprintf(stderr, "consumer: %s: got '%.*s', want '%s'\n", key, (int)len, (const char*)value,
            want);
    exit(1);
  }
}

static int count_entry(void* ctx, const void* key, size_t key_len, const void* value,
                       size_t value_len) {
  (void)key;
  (void)key_len;
  (void)value;
  (void)value_len;
  ++*(int*)ctx;
  return 0;
}

static int count_tree(void* ctx, const char* name, size_t name_len) {
  (void)name;
  (void)name_len;
  ++*(int*)ctx;
  return 0;
}

/* Reads back what main() wrote, in a read txn of its own. */
static void read_back(ordo_db* db) {
  ordo_txn* txn = NULL;
  ordo_tree* people = NULL;
  ordo_tree* cities = NULL;
  check(ordo_begin_read(db, &txn, &err), "ordo_begin_read");
  check(ordo_tree_open(txn, "people", 6, &people, &err), "ordo_tree_open people");
  check(ordo_tree_open(txn, "cities", 6, &cities, &err), "ordo_tree_open cities");
  expect_value(txn, people, "ada", "London");
  expect_value(txn, people, "grace", "New York");
  expect_value(txn, cities, "London", "UK");
  expect_value(txn, NULL, "greeting", "hello");
  const void* value = NULL;
  size_t len = 0;
  expect(ordo_get(txn, people, "nobody", 6, &value, &len, &err), ORDO_NOT_FOUND, "get nobody");

  int people_count = 0;
  check(ordo_scan(txn, people, NULL, 0, NULL, 0, count_entry, &people_count, &err), "scan");
  int trees = 0;
  check(ordo_tree_list(txn, count_tree, &trees, &err), "ordo_tree_list");
  if (people_count != 3 || trees != 2) {
    fprintf(stderr, "consumer: %d people, %d trees (want 3 and 2)\n", people_count, trees);
    exit(1);
  }

  /* The cities in key order through a cursor. */
  ordo_cursor* cursor = NULL;
  check(ordo_cursor_open(txn, cities, &cursor, &err), "ordo_cursor_open");
  check(ordo_cursor_first(cursor, &err), "ordo_cursor_first");
  const char* want[] = {"London", "Paris"};
  int i = 0;
  for (; ordo_cursor_valid(cursor); ++i) {
    const void* key = NULL;
    check(ordo_cursor_key(cursor, &key, &len, &err), "ordo_cursor_key");
    if (i >= 2 || len != strlen(want[i]) || memcmp(key, want[i], len) != 0) {
      fprintf(stderr, "consumer: city %d is '%.*s'\n", i, (int)len, (const char*)key);
      exit(1);
    }
    check(ordo_cursor_next(cursor, &err), "ordo_cursor_next");
  }
  check(ordo_cursor_status(cursor, &err), "ordo_cursor_status");
  if (i != 2) {
    fprintf(stderr, "consumer: %d cities (want 2)\n", i);
    exit(1);
  }
  ordo_cursor_free(cursor);
  ordo_tree_free(people);
  ordo_tree_free(cities);
  check(ordo_txn_abort(txn, &err), "ordo_txn_abort");
  ordo_txn_free(txn);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
    return 2;
  }
  char path[4096];
  if (snprintf(path, sizeof path, "%s/consumer.ordo", argv[1]) >= (int)sizeof path) {
    fprintf(stderr, "consumer: path too long\n");
    return 2;
  }

  ordo_options options;
  check(ordo_options_init(&options, sizeof options, &err), "ordo_options_init");
  options.verify_checksums = true;
  ordo_db* db = NULL;
  check(ordo_open(path, &options, &db, &err), "ordo_open");

  ordo_txn* txn = NULL;
  ordo_tree* people = NULL;
  ordo_tree* cities = NULL;
  check(ordo_begin_write(db, &txn, &err), "ordo_begin_write");
  check(ordo_tree_create(txn, "people", 6, &people, &err), "ordo_tree_create people");
  check(ordo_tree_create(txn, "cities", 6, &cities, &err), "ordo_tree_create cities");
  check(ordo_put(txn, people, "ada", 3, "London", 6, &err), "put ada");
  check(ordo_put(txn, people, "grace", 5, "New York", 8, &err), "put grace");
  check(ordo_put(txn, cities, "London", 6, "UK", 2, &err), "put London");
  check(ordo_put(txn, cities, "Paris", 5, "France", 6, &err), "put Paris");
  bool inserted = false;
  bool applied = false;
  const void* old = NULL;
  size_t old_len = 0;
  check(ordo_insert(txn, NULL, "greeting", 8, "hi", 2, &inserted, &err), "insert greeting");
  require(inserted, "insert of an absent key");
  check(ordo_insert(txn, NULL, "greeting", 8, "hey", 3, &inserted, &err), "insert greeting again");
  require(!inserted, "insert of a present key");
  check(ordo_replace(txn, NULL, "greeting", 8, "hallo", 5, &old, &old_len, NULL, &err),
        "replace greeting");
  require(old_len == 2 && memcmp(old, "hi", 2) == 0, "replace's old value");
  check(ordo_compare_and_set(txn, NULL, "greeting", 8, "hallo", 5, "hello", 5, 0, &applied, &err),
        "compare_and_set greeting");
  require(applied, "compare_and_set of the current value");
  uint8_t id[ORDO_UUID_BYTES];
  char id_text[ORDO_UUID_STRING_SIZE];
  check(ordo_next_id(txn, id, &err), "ordo_next_id");
  check(ordo_uuid_format(id, id_text, sizeof id_text, &err), "ordo_uuid_format");
  check(ordo_put(txn, people, id, sizeof id, id_text, strlen(id_text), &err), "put id");
  expect_value(txn, people, "ada", "London"); /* a write txn sees its own writes */
  check(ordo_txn_commit(txn, &err), "ordo_txn_commit");
  expect(ordo_put(txn, people, "x", 1, "y", 1, &err), ORDO_TXN_ENDED, "put after commit");
  ordo_txn_free(txn);
  ordo_tree_free(people);
  ordo_tree_free(cities);

  read_back(db);
  ordo_db_close(db);

  db = NULL;
  check(ordo_open(path, &options, &db, &err), "ordo_open again");
  read_back(db);

  ordo_database_info info = {.struct_size = sizeof info};
  check(ordo_db_info(db, &info, &err), "ordo_db_info");
  ordo_check_report report = {.struct_size = sizeof report};
  check(ordo_db_check(db, &report, &err), "ordo_db_check");
  if (info.tree_count != 2 || report.problems != 0 || report.entries != 6) {
    fprintf(stderr, "consumer: %llu trees, %llu entries, %llu problems (%s)\n",
            (unsigned long long)info.tree_count, (unsigned long long)report.entries,
            (unsigned long long)report.problems, report.first_problem);
    exit(1);
  }
  char copy_path[4200];
  snprintf(copy_path, sizeof copy_path, "%s.copy", path);
  check(ordo_db_copy(db, copy_path, ORDO_COPY_COMPACT | ORDO_COPY_OVERWRITE, &err), "ordo_db_copy");
  ordo_db_close(db);
  db = NULL;
  check(ordo_open(copy_path, &options, &db, &err), "ordo_open copy");
  read_back(db);
  ordo_txn* reader = NULL;
  check(ordo_begin_read(db, &reader, &err), "ordo_begin_read copy");
  ordo_tree_statistics stats = {.struct_size = sizeof stats};
  check(ordo_tree_stats(reader, NULL, &stats, &err), "ordo_tree_stats");
  require(stats.entries == 1 && stats.depth == 1, "ordo_tree_stats of the default tree");
  ordo_txn_free(reader);
  ordo_db_close(db);
  printf("consumer: ok (ordo %s, id %s)\n", ordo_version(), id_text);
  return 0;
}
