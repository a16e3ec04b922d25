/* ordo C API: the C11 interface to ordo, for C programs and for bindings
 * (Python ctypes/cffi, Go cgo, Rust bindgen). It wraps the C++ API of
 * ordo/database.h one to one; that header is the reference for what each
 * operation does to the data, this one for how it is called from C.
 *
 *   ordo_error err;
 *   ordo_db* db = NULL;
 *   ordo_txn* txn = NULL;
 *   if (ordo_open("/data/graph.ordo", NULL, &db, &err) != ORDO_OK) return fail(&err);
 *   if (ordo_begin_write(db, &txn, &err) != ORDO_OK) return fail(&err);
 *   int rc = ordo_put(txn, NULL, "key", 3, "value", 5, &err);   // NULL: the default tree
 *   if (rc == ORDO_OK) rc = ordo_txn_commit(txn, &err);        // durable on return
 *   ordo_txn_free(txn);
 *   ordo_db_close(db);
 *
 * Handles. Four opaque handle types, each made by its own functions and freed
 * by its own free function; every free function accepts NULL and does nothing.
 *   ordo_db      an open database file (ordo_open / ordo_db_close).
 *   ordo_txn     a read or write txn (ordo_begin_read, ordo_begin_write, ... /
 *                ordo_txn_free; ordo_batch lends one to its callback).
 *   ordo_cursor  ordered iteration over one tree (ordo_cursor_open /
 *                ordo_cursor_free).
 *   ordo_tree    names one tree of a database (ordo_tree_create,
 *                ordo_tree_open / ordo_tree_free). Every argument of type
 *                `const ordo_tree*` accepts NULL, meaning the default tree.
 * Using a handle after its free function is the one thing this API cannot
 * detect (undefined behaviour, as for any freed pointer). Everything else is
 * reported with an error code.
 *
 * Lifetimes. Ending a txn (ordo_txn_commit, ordo_txn_abort) does not free its
 * handle: later calls on it return ORDO_TXN_ENDED; ordo_txn_free aborts a live
 * txn and frees the handle. A txn keeps its database open, so txns (and their
 * cursors) may outlive ordo_db_close: the file is closed, and its locks
 * released, when the ordo_db and the last txn are gone. A cursor keeps nothing
 * alive: once its txn ended or was freed, every call on it returns
 * ORDO_TXN_ENDED. A tree handle stays valid for the database that issued it
 * (in any later txn) and may be freed at any time; used with a txn of another
 * database, or of another open of the same file, it is ORDO_INVALID_ARGUMENT.
 *
 * Threads. An ordo_db may be used from any number of threads at once (but
 * ordo_db_close must not race with other calls on the same handle). A txn and
 * its cursors are used by one thread at a time; they may move between
 * threads between calls. Tree handles are immutable: any threads may use one
 * at once. One write txn per database at a time: ordo_begin_write waits
 * while another thread holds it. The holder is the OS thread that began the
 * write txn: a second ordo_begin_write on that thread returns ORDO_BUSY at
 * once (waiting would never end). Go programs, whose goroutines change OS
 * threads between cgo calls, should either call runtime.LockOSThread while
 * they hold a write txn or use ordo_try_begin_write /
 * ordo_begin_write_timeout, so that a goroutine that moved cannot wait on
 * itself. No function keeps per-thread state: everything a call reports goes
 * into its arguments.
 *
 * Errors. Every fallible function returns int: ORDO_OK (0) or one of the
 * positive ORDO_* codes below. Each takes as its last argument an optional
 * `ordo_error* err` (may be NULL), owned by the caller, which the call fills
 * whatever the outcome: code, errno, page number and a message naming the
 * problem. No exception and no abort crosses this API: NULL handles or
 * pointers, bad lengths, calls on ended txns, writes through a read txn and
 * the like all return codes (mostly ORDO_INVALID_ARGUMENT). Codes are stable;
 * the wording of messages is not.
 *
 * Bytes. Keys, values and tree names go in as (const void* data, size_t len)
 * pairs, copied or consumed before the call returns; data may be NULL when
 * len is 0 (NULL with len > 0 is ORDO_INVALID_ARGUMENT). Zero-length keys and
 * values are allowed. Bytes come out as (const void** data, size_t* len)
 * pointing into ordo's memory (never NULL on success, even for len 0): valid
 * until the txn ends, and in a write txn only until its next write (any put,
 * del, del_range, append, insert, replace, compare_and_set, tree
 * create/drop/rename, cursor put/del). Copy them
 * to keep them. Keys compare as unsigned bytes (memcmp order, a prefix first).
 *
 * Limits (page size P, 4096 by default): key at most P/4 - 24 bytes (1000 at
 * 4 KiB), value at most 128 MiB, tree name 1 to P/4 - 24 bytes; larger is
 * ORDO_INVALID_ARGUMENT. ordo_db_max_key_bytes and friends give the values of
 * an open database.
 */
#ifndef ORDO_ORDO_H_
#define ORDO_ORDO_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define ORDO_API __attribute__((visibility("default")))
#else
#define ORDO_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Error codes ------------------------------------------------------- */

/* Values 0..11 are ordo::Status::Code (status.h) in order; codes that only the
 * C API reports start at 100, so new Status codes can follow 11. */
enum {
  ORDO_OK = 0,
  ORDO_NOT_FOUND = 1,        /* the key, tree or file does not exist */
  ORDO_INVALID_ARGUMENT = 2, /* a wrong argument or a call the state does not allow */
  ORDO_CORRUPTION = 3,       /* the file is damaged; page_number names the page */
  ORDO_IO_ERROR = 4,         /* the OS failed a call; sys_errno holds errno */
  ORDO_BUSY = 5,             /* the writer lock is held (see ordo_begin_write) */
  ORDO_FULL = 6,             /* disk, file size limit or address reservation exhausted */
  ORDO_NOT_ORDO_FILE = 7,    /* the file is not an ordo database */
  ORDO_VERSION_MISMATCH = 8, /* an ordo database of a format version this build does not read */
  ORDO_TXN_ENDED = 9,        /* the txn (or the cursor's txn) was committed, aborted or freed */
  ORDO_NEEDS_RECOVERY = 10,  /* read-only open: the log holds commits whose pages are not all in
                                the file (a machine crash, or damage the message names); a
                                writable open replays them */
  ORDO_COMPARE_FAILED = 11,  /* a guard of a replicated batch did not hold (ordo_replica's
                                Replica::write); no function of this API returns it */
  ORDO_NO_MEMORY = 100,      /* an allocation failed */
  ORDO_INTERNAL = 101        /* an unexpected failure inside ordo (a bug): the message says what */
};

/* Size of ordo_error.message in bytes, the terminating NUL included. */
#define ORDO_ERROR_MESSAGE_SIZE 512

/* What a call reports, filled by every function that takes it (on success
 * too: code ORDO_OK, sys_errno 0, page_number UINT64_MAX, message ""). Owned
 * by the caller; may live on the stack and be reused from call to call. */
typedef struct ordo_error {
  int code;             /* the function's return value */
  int sys_errno;        /* errno for ORDO_IO_ERROR, else 0 */
  uint64_t page_number; /* the damaged page for ORDO_CORRUPTION, else UINT64_MAX */
  /* "NotFound: ordo_get: key not found" style text: the code name, the C
   * function, then what went wrong. Truncated to fit; always NUL-terminated. */
  char message[ORDO_ERROR_MESSAGE_SIZE];
} ordo_error;

/* The name of a code: "OK", "NotFound", "InvalidArgument", "Corruption",
 * "IOError", "Busy", "Full", "NotOrdoFile", "VersionMismatch", "TxnEnded",
 * "NeedsRecovery", "CompareFailed", "NoMemory", "Internal"; "Unknown" for any
 * other value. A static string: never NULL, never freed. Thread-safe. */
ORDO_API const char* ordo_code_name(int code);

/* The library version, "MAJOR.MINOR.PATCH". A static string. Thread-safe. */
ORDO_API const char* ordo_version(void);

/* ---- Options ----------------------------------------------------------- */

/* ordo_options.commit_protocol (options.h, CommitProtocol). */
enum {
  /* Pages, meta page, one fdatasync; open trusts the newest commit only if
   * its pages verify, else uses the previous one. */
  ORDO_COMMIT_ONE_SYNC = 0,
  /* Pages, fdatasync, meta page, fdatasync: never rolls a commit back. */
  ORDO_COMMIT_TWO_SYNC = 1,
  /* One log record per commit, made durable alone; pages reach the disk at
   * checkpoints; open replays the records after the last one. The default. */
  ORDO_COMMIT_LOG = 2
};

/* ordo_options.io_backend (options.h, IoBackend). */
enum {
  ORDO_IO_AUTO = 0,  /* the default, today POSIX; no environment variable is read */
  ORDO_IO_URING = 1, /* io_uring; ordo_open fails with ORDO_IO_ERROR where it cannot be set up */
  ORDO_IO_POSIX = 2  /* pwritev + fdatasync */
};

/* Options for ordo_open; the fields are those of ordo::Options (options.h,
 * where each is explained at length). Always fill one with
 * ordo_options_init, then change fields: later versions may add fields at
 * the end, and struct_size tells the library which fields the caller knows. */
typedef struct ordo_options {
  /* Size in bytes of the caller's struct, set by ordo_options_init. */
  size_t struct_size;
  /* Page size for a new file: a power of two, 4096 to 65536. For an existing
   * file, 0 (default) accepts its page size; any other value must equal it. */
  uint32_t page_size_bytes;
  /* Writable opens: how long ordo_open waits, in ms, while another writable
   * handle of the file holds its writer lock, before ORDO_BUSY. Default 0. */
  uint32_t writer_wait_ms;
  /* The file grows by fallocate in extents of
   * clamp(file bytes / 8, extent_bytes, max_extent_bytes) bytes.
   * Defaults 64 MiB and 1 GiB. */
  uint64_t extent_bytes;
  uint64_t max_extent_bytes;
  /* Address space reserved for the mapping, in bytes: the largest file size.
   * Costs no memory. Default 256 GiB. */
  uint64_t map_reserve_bytes;
  /* Memory a write txn may hold, in bytes, before it spills dirty pages
   * (at least 1 MiB). Default 256 MiB. */
  uint64_t txn_memory_budget_bytes;
  /* Fill factor of pages built by ordo_append, 0.5 to 1.0. Default 1.0. */
  double append_fill;
  /* Node number (0..1023) placed in IDs from ordo_next_id64. Default 0. */
  uint32_t id_node;
  /* ORDO_COMMIT_LOG (default), ORDO_COMMIT_ONE_SYNC or ORDO_COMMIT_TWO_SYNC. */
  int commit_protocol;
  /* ORDO_IO_AUTO (default), ORDO_IO_URING or ORDO_IO_POSIX. */
  int io_backend;
  /* Create the file when missing (ignored with read_only). Default true. */
  bool create_if_missing;
  /* Open for reading only: begin_write is ORDO_INVALID_ARGUMENT. Works while
   * another process writes the file. Default false. */
  bool read_only;
  /* false skips the sync of each commit: commits stay atomic but are not
   * durable across a power failure or OS crash (checkpoints still sync).
   * Default true. */
  bool sync_commits;
  /* Check every page read against its checksum (damage is then
   * ORDO_CORRUPTION, not wrong data); one hash per page visited. Default
   * false. */
  bool verify_checksums;
  /* A closing writable handle gives back the preallocated space past the
   * last page. Default true. */
  bool trim_on_close;
  /* Bytes of the log area of a new file: a multiple of the page size, 64 KiB
   * to 1 GiB; 0 (default) takes 4 MiB. */
  uint64_t log_bytes;
} ordo_options;

/* Fills `*options` with the defaults of ordo::Options and sets struct_size to
 * `struct_size`, which must be sizeof(ordo_options) as the caller's header
 * declares it (pass exactly that: ordo_options_init(&o, sizeof o, &err)). A
 * struct larger than this library's (a newer header) has its unknown tail
 * zeroed; ordo_open then refuses it if any byte of that tail is set.
 * Errors: ORDO_INVALID_ARGUMENT for NULL or a struct_size smaller than this
 * version's ordo_options. Thread-safe. */
ORDO_API int ordo_options_init(ordo_options* options, size_t struct_size, ordo_error* err);

/* ---- Database ---------------------------------------------------------- */

typedef struct ordo_db ordo_db;

/* Opens or creates the database file at `path` (NUL-terminated). `options`
 * may be NULL for the defaults; it is read during the call only. On success
 * `*db` is a new handle, freed by ordo_db_close; on error `*db` is NULL.
 * Errors: ORDO_BUSY when another handle (this or another process) has the
 * file open for writing and options->writer_wait_ms passed; ORDO_NOT_FOUND
 * when the file is missing and !create_if_missing or read_only, or its
 * directory is missing; ORDO_NOT_ORDO_FILE for a file that is not an ordo
 * database (an empty file is one only for a read-only open: a writable open
 * makes it a new database); ORDO_VERSION_MISMATCH for another format version;
 * ORDO_INVALID_ARGUMENT for NULL path or db, a bad option, an options
 * struct_size this library does not accept, or another page size than asked
 * for; ORDO_CORRUPTION for a damaged or truncated file; ORDO_IO_ERROR for OS
 * failures (sys_errno says which). Thread-safe. */
ORDO_API int ordo_open(const char* path, const ordo_options* options, ordo_db** db,
                       ordo_error* err);

/* Frees the handle. Txns and cursors made from it keep working; the file is
 * closed when the last of them is gone too. NULL does nothing. Must not run
 * concurrently with another call on the same ordo_db. */
ORDO_API void ordo_db_close(ordo_db* db);

/* Limits of an open database, into `*out`: page size in bytes; largest key in
 * bytes (P/4 - 24); largest value in bytes (128 MiB); largest value kept in
 * its leaf, in bytes (larger ones go to overflow pages). Errors:
 * ORDO_INVALID_ARGUMENT for NULL db or out. Thread-safe. */
ORDO_API int ordo_db_page_size(const ordo_db* db, uint32_t* out, ordo_error* err);
ORDO_API int ordo_db_max_key_bytes(const ordo_db* db, uint32_t* out, ordo_error* err);
ORDO_API int ordo_db_max_value_bytes(const ordo_db* db, uint64_t* out, ordo_error* err);
ORDO_API int ordo_db_max_inline_value_bytes(const ordo_db* db, uint32_t* out, ordo_error* err);

/* ---- Transactions ------------------------------------------------------ */

typedef struct ordo_txn ordo_txn;

/* A read txn: a snapshot of the last commit, usable from any thread (one at
 * a time). Holding it keeps the pages it reaches from reuse: end long reads
 * when done. On success `*txn` is a new handle, freed by ordo_txn_free; on
 * error NULL. Errors: ORDO_INVALID_ARGUMENT for NULL db or txn, or in a
 * forked child (handles are not usable across fork). Thread-safe. */
ORDO_API int ordo_begin_read(ordo_db* db, ordo_txn** txn, ordo_error* err);

/* The write txn; waits while another thread's write txn is open. It sees its
 * own writes. Out as ordo_begin_read. Errors: ORDO_BUSY at once when this OS
 * thread holds the open write txn; ORDO_INVALID_ARGUMENT for NULL arguments,
 * a read-only database or a forked child; ORDO_IO_ERROR after a failed commit
 * made the handle unusable (reopen). Thread-safe. */
ORDO_API int ordo_begin_write(ordo_db* db, ordo_txn** txn, ordo_error* err);
/* As ordo_begin_write, but ORDO_BUSY at once when a write txn is open. */
ORDO_API int ordo_try_begin_write(ordo_db* db, ordo_txn** txn, ordo_error* err);
/* As ordo_begin_write, but ORDO_BUSY once `timeout_ms` milliseconds passed. */
ORDO_API int ordo_begin_write_timeout(ordo_db* db, uint32_t timeout_ms, ordo_txn** txn,
                                      ordo_error* err);

/* Write txns: makes every write durable (as options.commit_protocol says)
 * and visible to later txns. Afterwards the txn has ended whatever the
 * outcome; the handle stays valid until ordo_txn_free. ORDO_FULL (no disk
 * space) leaves the database at its previous commit and usable; ORDO_IO_ERROR
 * also leaves the previous commit but makes every later begin_write fail
 * until the database is reopened. Other errors: ORDO_TXN_ENDED when it
 * already ended; ORDO_INVALID_ARGUMENT for NULL, a read txn (end those with
 * ordo_txn_abort; the txn stays live), a call from inside the txn's own scan
 * callback, a forked child, or a txn an earlier error left unusable (that
 * commit aborts it). */
ORDO_API int ordo_txn_commit(ordo_txn* txn, ordo_error* err);

/* Ends the txn: a write txn discards its writes and releases the writer
 * lock, a read txn releases its snapshot. ORDO_OK on an already ended txn
 * too (nothing to do). Errors: ORDO_INVALID_ARGUMENT for NULL, a call from
 * inside the txn's own scan callback, or the txn ordo_batch lent (which it
 * does not end). */
ORDO_API int ordo_txn_abort(ordo_txn* txn, ordo_error* err);

/* Read txns, for a thread that reads one snapshot after another with one
 * handle (a server: renew, answer one request, reset), as LMDB's
 * mdb_txn_reset / mdb_txn_renew. ordo_txn_reset ends the snapshot but keeps
 * the txn: the writer may reuse the pages it reached; until ordo_txn_renew
 * succeeds every call on the txn returns ORDO_TXN_ENDED (ordo_txn_live is
 * false) and so do its cursors, for good. ORDO_OK on a txn already reset or
 * ended. ordo_txn_renew takes a snapshot of the last commit, as
 * ordo_begin_read, on a reset txn (a live one ends its snapshot first);
 * nothing is allocated, and the roots of trees already read stay looked up
 * while no commit comes in between. Errors of both: ORDO_INVALID_ARGUMENT
 * for NULL, a write txn, or a call from inside the txn's own scan callback;
 * of ordo_txn_renew also: ORDO_TXN_ENDED once the txn was aborted (a reset
 * txn too), ORDO_INVALID_ARGUMENT in a forked child; on a read-only database
 * ORDO_IO_ERROR, ORDO_BUSY or ORDO_CORRUPTION when the newest meta cannot be
 * read or pinned. A failed renew leaves the txn reset. One thread at a time
 * per txn. */
ORDO_API int ordo_txn_reset(ordo_txn* txn, ordo_error* err);
ORDO_API int ordo_txn_renew(ordo_txn* txn, ordo_error* err);

/* Aborts the txn if it is live, then frees the handle. Cursors of the txn
 * then return ORDO_TXN_ENDED. NULL, and the handle ordo_batch lends its
 * callback, do nothing. Called from the txn's own
 * scan callback, it stops that scan, and the txn is aborted and freed when
 * ordo_scan returns. */
ORDO_API void ordo_txn_free(ordo_txn* txn);

/* Whether the txn was neither committed nor aborted, and is not reset;
 * false for NULL. */
ORDO_API bool ordo_txn_live(const ordo_txn* txn);
/* Whether it is a write txn (ended or not); false for NULL. */
ORDO_API bool ordo_txn_writable(const ordo_txn* txn);

/* The txn id of the snapshot read (a write txn: the id it will commit as)
 * into `*id`. Errors: ORDO_TXN_ENDED once ended; ORDO_INVALID_ARGUMENT for
 * NULL. */
ORDO_API int ordo_txn_id(const ordo_txn* txn, uint64_t* id, ordo_error* err);

/* ---- Group commit ------------------------------------------------------ */

/* Called by ordo_batch to make one caller's changes in the group's write txn
 * `txn`, a handle that ordo_batch owns: valid during the call only, not to be
 * freed (ordo_txn_free does nothing on it), committed or aborted
 * (ordo_txn_commit and ordo_txn_abort return ORDO_INVALID_ARGUMENT and fail
 * this caller). Return ORDO_OK to have the changes committed; any other value
 * (normally the code of the call that failed) rolls them back and is what
 * ordo_batch returns. May be called more than once (see ordo_batch). Runs on
 * the thread of whichever caller leads the group, not necessarily the
 * caller's; must not unwind (longjmp, a C++ exception, a Rust panic) through
 * ordo. */
typedef int (*ordo_batch_fn)(void* ctx, ordo_txn* txn);
/* Group commit (Database::batch in ordo/database.h, which has the full
 * rules): `fn(ctx, txn)`'s changes are committed together with those of the
 * ordo_batch calls other threads make at the same time, in one write txn and
 * one durable commit; returns once that commit is durable, with this
 * caller's own outcome. Callers queue; the one at the front leads a group of
 * up to 128 queued callers, begins the write txn as ordo_begin_write does,
 * calls each function in queue order and commits. A function that returns
 * nonzero is dropped from the group and the rest run again in a fresh txn,
 * so a function may be called more than once, each time on a fresh txn
 * without its earlier changes: it must have no effect outside the txn.
 * Returns: ORDO_OK once the changes are durable; the value `fn` returned
 * when it failed (err then says only that); ORDO_INVALID_ARGUMENT for NULL
 * db or fn, a function that committed or aborted its txn, a read-only
 * database or a forked child; ORDO_BUSY at once when this OS thread holds
 * the open write txn (from ordo_begin_write, or inside a batch function);
 * else the group's status from beginning or committing its txn (ORDO_FULL,
 * ORDO_IO_ERROR as for ordo_txn_commit). Thread-safe; `ctx` is passed as it
 * is and must stay valid until the call returns. */
ORDO_API int ordo_batch(ordo_db* db, ordo_batch_fn fn, void* ctx, ordo_error* err);

/* ---- Trees ------------------------------------------------------------- */

typedef struct ordo_tree ordo_tree;

/* Write txns: creates the tree named by the `name_len` bytes at `name`, or
 * opens it if it exists; `*tree` is a new handle (freed by ordo_tree_free),
 * NULL on error. Nothing is written until commit. Errors:
 * ORDO_INVALID_ARGUMENT for an empty or oversized name, a read txn or NULL
 * arguments; ORDO_TXN_ENDED; ORDO_CORRUPTION. */
ORDO_API int ordo_tree_create(ordo_txn* txn, const void* name, size_t name_len, ordo_tree** tree,
                              ordo_error* err);
/* Any txn: a handle for an existing tree. ORDO_NOT_FOUND when the txn's
 * snapshot has no tree of that name; otherwise as ordo_tree_create. */
ORDO_API int ordo_tree_open(ordo_txn* txn, const void* name, size_t name_len, ordo_tree** tree,
                            ordo_error* err);
/* Frees the handle (not the tree). NULL does nothing. */
ORDO_API void ordo_tree_free(ordo_tree* tree);
/* The tree's name (empty for the default tree): `*name` points into the
 * handle, valid until ordo_tree_free, NUL-terminated after `*name_len` bytes.
 * Errors: ORDO_INVALID_ARGUMENT for NULL name or name_len (tree NULL is the
 * default tree). */
ORDO_API int ordo_tree_name(const ordo_tree* tree, const char** name, size_t* name_len,
                            ordo_error* err);

/* Write txns: removes the named tree and frees its pages; handles to it then
 * report ORDO_NOT_FOUND. Errors: ORDO_NOT_FOUND when absent;
 * ORDO_INVALID_ARGUMENT for a bad name, a read txn, NULL; ORDO_TXN_ENDED. */
ORDO_API int ordo_tree_drop(ordo_txn* txn, const void* name, size_t name_len, ordo_error* err);
/* Write txns: renames tree `from` to `to`; handles to the old name then
 * report ORDO_NOT_FOUND. Errors: ORDO_NOT_FOUND when `from` is absent;
 * ORDO_INVALID_ARGUMENT when `to` exists or is not a valid name, for a read
 * txn or NULL; ORDO_TXN_ENDED. */
ORDO_API int ordo_tree_rename(ordo_txn* txn, const void* from, size_t from_len, const void* to,
                              size_t to_len, ordo_error* err);

/* Called by ordo_tree_list once per named tree, in byte order. `name` (also
 * NUL-terminated after name_len bytes, though a name may hold NUL bytes) is
 * valid during the call only. Return 0 to go on, nonzero to stop. */
typedef int (*ordo_tree_list_fn)(void* ctx, const char* name, size_t name_len);
/* Calls `fn(ctx, ...)` for the name of every named tree the txn sees (the
 * default tree has no name and is not listed). The list is read before the
 * first call, so `fn` may use the txn freely. ORDO_OK also when `fn` stopped
 * the listing. Errors: ORDO_INVALID_ARGUMENT for NULL txn or fn;
 * ORDO_TXN_ENDED; ORDO_CORRUPTION. */
ORDO_API int ordo_tree_list(ordo_txn* txn, ordo_tree_list_fn fn, void* ctx, ordo_error* err);

/* ---- Reads and writes -------------------------------------------------- */

/* The value stored under the key in `tree` (NULL: the default tree), into
 * `*value` / `*value_len`: a pointer into ordo's memory, valid as described
 * under "Bytes" at the top. Errors: ORDO_NOT_FOUND when the key is absent or
 * the tree does not exist in this txn; ORDO_INVALID_ARGUMENT for a tree
 * handle of another database or NULL arguments; ORDO_TXN_ENDED;
 * ORDO_CORRUPTION. */
ORDO_API int ordo_get(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                      const void** value, size_t* value_len, ordo_error* err);

/* Write txns: inserts or overwrites. Errors: ORDO_INVALID_ARGUMENT for an
 * oversized key or value, a read txn, a tree handle of another database,
 * NULL arguments, or a txn an earlier ORDO_CORRUPTION/ORDO_FULL/ORDO_IO_ERROR
 * left unusable (it can only be aborted); ORDO_NOT_FOUND for a tree that does
 * not exist in this txn; ORDO_TXN_ENDED; ORDO_CORRUPTION; ORDO_FULL when the
 * file cannot grow. */
ORDO_API int ordo_put(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                      const void* value, size_t value_len, ordo_error* err);
/* Write txns: removes the key; ORDO_NOT_FOUND when absent. Errors otherwise
 * as ordo_put. */
ORDO_API int ordo_del(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                      ordo_error* err);
/* Write txns: removes every key in [from, to) and stores how many into
 * `*removed` (may be NULL). `to` NULL (with to_len 0) means no upper bound;
 * from >= to removes nothing. Work: one delete per key removed. Errors as
 * ordo_put; after an error other than ORDO_INVALID_ARGUMENT/ORDO_NOT_FOUND
 * the txn can only be aborted. */
ORDO_API int ordo_del_range(ordo_txn* txn, const ordo_tree* tree, const void* from, size_t from_len,
                            const void* to, size_t to_len, uint64_t* removed, ordo_error* err);
/* Write txns, bulk load: appends the key, which must sort after every key in
 * the tree (else ORDO_INVALID_ARGUMENT and nothing changes), filling pages to
 * options.append_fill. Errors otherwise as ordo_put. */
ORDO_API int ordo_append(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                         const void* value, size_t value_len, ordo_error* err);

/* Conditional writes (WriteTxn::insert, replace, compare_and_set in
 * ordo/database.h): each is decided at the leaf in one descent of the tree,
 * costs what ordo_put costs, and writes nothing when it changes nothing.
 * Values too large for a leaf work in all three. Errors, limits and what open
 * cursors see are those of ordo_put (a removal's: of ordo_del); misuse of
 * the out pointers below is ORDO_INVALID_ARGUMENT. Inside an ordo_batch
 * callback they make read-modify-write steps no other member interleaves.
 * One thread at a time per txn, as every txn call. */

/* Write txns: inserts the key only when it is absent (LMDB's
 * MDB_NOOVERWRITE). `*inserted` (may be NULL) is true when it was inserted,
 * false when the key existed; its value is then left as it was and ORDO_OK
 * is returned. */
ORDO_API int ordo_insert(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                         const void* value, size_t value_len, bool* inserted, ordo_error* err);

/* Write txns: inserts or overwrites, as ordo_put, and reports the value the
 * key held before. `*existed` is false when the key was absent (then
 * `*old_value` points at 0 bytes). `*old_value` / `*old_len` point into a
 * buffer the txn handle owns (the old value may have been freed from the
 * file): valid until the txn's next write (any call listed under "Bytes" at
 * the top, another ordo_replace included) or its end, as other returned
 * bytes are; for the txn ordo_batch lends, at most until the callback
 * returns. Copy them to keep them. The three out pointers may all be NULL
 * (nothing reported); old_value and old_len are both NULL or neither. */
ORDO_API int ordo_replace(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                          const void* value, size_t value_len, const void** old_value,
                          size_t* old_len, bool* existed, ordo_error* err);

/* Flags of ordo_compare_and_set: without them `expected` and `desired` are
 * values (NULL with length 0 is the empty value). */
enum {
  ORDO_CAS_EXPECT_ABSENT = 1, /* applies only when the key is absent; expected NULL, 0 */
  ORDO_CAS_DELETE = 2         /* when it applies, removes the key; desired NULL, 0 */
};
/* Write txns: sets the key to `desired` only when its value equals
 * `expected` byte for byte (with ORDO_CAS_EXPECT_ABSENT: only when the key is
 * absent; with ORDO_CAS_DELETE the key is removed instead). `*applied` (may
 * be NULL) says whether it matched and the write was made; a mismatch is
 * ORDO_OK with `*applied` false and nothing changed. EXPECT_ABSENT together
 * with DELETE applies exactly when the key is absent (and changes nothing).
 * Errors: those of ordo_put; ORDO_INVALID_ARGUMENT also for unknown flag
 * bits, or a flag given with non-empty bytes for the side it replaces. */
ORDO_API int ordo_compare_and_set(ordo_txn* txn, const ordo_tree* tree, const void* key,
                                  size_t key_len, const void* expected, size_t expected_len,
                                  const void* desired, size_t desired_len, uint32_t flags,
                                  bool* applied, ordo_error* err);

/* Called by ordo_scan for each entry in key order. The key and value
 * pointers are valid until the call returns or writes to the txn, whichever
 * comes first. Return 0 to go on, nonzero to stop. The callback may read and
 * (in a write txn) write through the same txn, including deleting the entry
 * it was given; the scan goes on with the first key after the one visited.
 * ordo_txn_commit and ordo_txn_abort of the txn from the callback return
 * ORDO_INVALID_ARGUMENT; ordo_txn_free stops the scan (see there). The
 * callback must not unwind (longjmp, a C++ exception, a Rust panic) through
 * ordo. */
typedef int (*ordo_scan_fn)(void* ctx, const void* key, size_t key_len, const void* value,
                            size_t value_len);
/* Calls `fn(ctx, ...)` for each entry of `tree` with from <= key < to, in key
 * order, until it returns nonzero. `from` NULL with from_len 0 is the empty
 * key (the start); `to` NULL (with to_len 0) means no upper bound. ORDO_OK
 * also when `fn` stopped the scan. Errors: ORDO_NOT_FOUND for an unknown
 * tree; ORDO_INVALID_ARGUMENT for NULL txn or fn, bad byte arguments, a tree
 * handle of another database; ORDO_TXN_ENDED; ORDO_CORRUPTION. Errors of
 * calls the callback makes are the callback's to see. */
ORDO_API int ordo_scan(ordo_txn* txn, const ordo_tree* tree, const void* from, size_t from_len,
                       const void* to, size_t to_len, ordo_scan_fn fn, void* ctx, ordo_error* err);
/* As ordo_scan over the keys that start with the `prefix_len` bytes at
 * `prefix` (every key for an empty prefix). */
ORDO_API int ordo_scan_prefix(ordo_txn* txn, const ordo_tree* tree, const void* prefix,
                              size_t prefix_len, ordo_scan_fn fn, void* ctx, ordo_error* err);

/* ---- Cursors ----------------------------------------------------------- */

typedef struct ordo_cursor ordo_cursor;

/* A cursor over `tree` in `txn`, not yet positioned; `*cursor` is a new
 * handle (freed by ordo_cursor_free), NULL on error. It may outlive its txn,
 * and then returns ORDO_TXN_ENDED. In a write txn it sees every write of the
 * txn (through it or not): it stays on its entry while other keys change, and
 * when its own entry is deleted it moves to the entry after it. Errors:
 * ORDO_NOT_FOUND for an unknown tree; ORDO_INVALID_ARGUMENT for a tree handle
 * of another database or NULL arguments; ORDO_TXN_ENDED. */
ORDO_API int ordo_cursor_open(ordo_txn* txn, const ordo_tree* tree, ordo_cursor** cursor,
                              ordo_error* err);
/* Frees the cursor. NULL does nothing. */
ORDO_API void ordo_cursor_free(ordo_cursor* cursor);

/* Positioning: the first entry, the last entry, the first entry with key >=
 * the given key. Afterwards the cursor is on an entry (ordo_cursor_valid) or
 * past the end. next/prev move from the current entry; off an entry they do
 * nothing and return ORDO_OK. Errors: ORDO_TXN_ENDED once the txn ended;
 * ORDO_NOT_FOUND when the tree was dropped or renamed in the txn;
 * ORDO_CORRUPTION on a damaged page; ORDO_INVALID_ARGUMENT for NULL cursor or
 * bad key bytes. */
ORDO_API int ordo_cursor_first(ordo_cursor* cursor, ordo_error* err);
ORDO_API int ordo_cursor_last(ordo_cursor* cursor, ordo_error* err);
ORDO_API int ordo_cursor_seek(ordo_cursor* cursor, const void* key, size_t key_len,
                              ordo_error* err);
ORDO_API int ordo_cursor_next(ordo_cursor* cursor, ordo_error* err);
ORDO_API int ordo_cursor_prev(ordo_cursor* cursor, ordo_error* err);

/* Whether the cursor is on an entry; false for NULL, past the end, and once
 * the txn ended (ordo_cursor_status then says why). */
ORDO_API bool ordo_cursor_valid(ordo_cursor* cursor);

/* The key or value of the entry the cursor is on, into `*data` / `*len`,
 * valid as described under "Bytes" at the top. Errors: ORDO_INVALID_ARGUMENT
 * when the cursor is not on an entry, or for NULL arguments; ORDO_TXN_ENDED,
 * ORDO_NOT_FOUND (tree dropped) or ORDO_CORRUPTION when that is why it is not
 * on an entry; ordo_cursor_value also ORDO_CORRUPTION for a large value whose
 * overflow pages are damaged. */
ORDO_API int ordo_cursor_key(ordo_cursor* cursor, const void** key, size_t* key_len,
                             ordo_error* err);
ORDO_API int ordo_cursor_value(ordo_cursor* cursor, const void** value, size_t* value_len,
                               ordo_error* err);

/* The outcome of the last positioning, put or del call on the cursor, or the
 * error a later valid/key/value call met (ORDO_TXN_ENDED, ORDO_CORRUPTION).
 * ORDO_INVALID_ARGUMENT for NULL. */
ORDO_API int ordo_cursor_status(ordo_cursor* cursor, ordo_error* err);

/* Write txns: inserts or overwrites the key (as ordo_put) and leaves the
 * cursor on it. Errors: ORDO_INVALID_ARGUMENT for a cursor of a read txn and
 * what ordo_put refuses; the other errors of ordo_put. */
ORDO_API int ordo_cursor_put(ordo_cursor* cursor, const void* key, size_t key_len,
                             const void* value, size_t value_len, ordo_error* err);
/* Write txns: deletes the entry the cursor is on and moves to the entry after
 * it, so `for (first; valid;) del` empties a tree. Errors:
 * ORDO_INVALID_ARGUMENT when not on an entry or for a read txn's cursor; the
 * errors of ordo_del. */
ORDO_API int ordo_cursor_del(ordo_cursor* cursor, ordo_error* err);

/* ---- Reports and copies ----------------------------------------------- */

/* The report structs below are versioned as ordo_options is: set
 * struct_size to sizeof the struct as the caller's header declares it
 * (in C: `ordo_database_info i = {.struct_size = sizeof i};`) before the call, which fills the
 * fields that size covers and leaves struct_size as it is. A struct larger
 * than this library's (a newer header) has its unknown tail zeroed. Errors of
 * every function here also: ORDO_INVALID_ARGUMENT for a NULL struct or a
 * struct_size smaller than the first version of that struct. */

/* What ordo_db_info reports: the state of the last commit, from
 * Database::info (ordo/diagnostics.h, DatabaseInfo). */
typedef struct ordo_database_info {
  size_t struct_size;
  uint32_t page_size_bytes; /* the file's page size */
  uint32_t format_version;  /* the file's format version */
  uint64_t file_bytes;      /* the file's current length in bytes */
  uint64_t txn_id;          /* the last committed txn */
  uint64_t page_high_water; /* pages ever used (meta pages and log area included) */
  uint64_t free_pages;      /* pages recorded as free */
  uint64_t pages_used;      /* page_high_water - free_pages */
  uint64_t tree_count;      /* named trees (the default tree is not counted) */
} ordo_database_info;

/* Fills `*info` about the open database. Work: the meta pages decoded, no
 * walk; a read-only handle first reads the newest commit on disk. Cannot
 * fail on a valid db (a damaged meta is reported by ordo_db_check, not
 * here). Errors: ORDO_INVALID_ARGUMENT for NULL db, see above for `info`.
 * Thread-safe. */
ORDO_API int ordo_db_info(ordo_db* db, ordo_database_info* info, ordo_error* err);

/* What ordo_db_check found (Txn::check in ordo/database.h, CheckReport in
 * ordo/diagnostics.h). Page counts are in pages. */
typedef struct ordo_check_report {
  size_t struct_size;
  uint64_t problems;           /* problems found; 0 for a sound file */
  bool truncated;              /* more problems existed than were counted (over 1000) */
  uint64_t txn_id;             /* the snapshot checked: the last commit */
  uint64_t high_water_pages;   /* pages below the high-water mark */
  uint64_t tree_pages;         /* leaf and branch pages of every tree */
  uint64_t overflow_pages;     /* pages of large values */
  uint64_t free_pages;         /* pages listed as free */
  uint64_t trees;              /* the default tree plus the named trees */
  uint64_t entries;            /* entries of those trees */
  uint64_t log_records;        /* log records after the last checkpoint, each checked */
  uint64_t first_problem_page; /* the page of the first problem; UINT64_MAX when none */
  /* The first problem in words, NUL-terminated (truncated to fit); "" when
   * none. */
  char first_problem[ORDO_ERROR_MESSAGE_SIZE];
} ordo_check_report;

/* Checks the last commit whole, in a read txn of its own: every page of
 * every tree, the catalog and the free tree against its parent's checksum,
 * structure, key order, overflow runs, counts, and that every page is used
 * exactly once or free (no leak). Problems go into `*report`: ORDO_OK means
 * the check ran, and report->problems says whether the file is sound.
 * Writers go on meanwhile (their commits are not checked). Work: one read and
 * one hash of every page. Errors: ORDO_INVALID_ARGUMENT for NULL db or a
 * forked child; what ordo_begin_read reports; ORDO_IO_ERROR when a page
 * cannot be read. Thread-safe. */
ORDO_API int ordo_db_check(ordo_db* db, ordo_check_report* report, ordo_error* err);

/* Flags of ordo_db_copy. */
enum {
  ORDO_COPY_COMPACT = 1,  /* rewrite every tree densely: no free page in the copy */
  ORDO_COPY_OVERWRITE = 2 /* replace a file already at `path` (atomically, by rename) */
};
/* Writes a consistent copy of the last commit to a new database file at
 * `path` (NUL-terminated) while writers go on: a temporary file in the
 * target's directory, fsynced, renamed to `path`, the directory fsynced; on
 * error `path` is left as it was. `flags`: 0 or ORDO_COPY_* bits. Errors:
 * ORDO_INVALID_ARGUMENT for NULL db or path, unknown flags, a `path` that
 * exists without ORDO_COPY_OVERWRITE or names this database's own file, a
 * directory or a non-regular file; ORDO_NOT_FOUND when the target's
 * directory does not exist; ORDO_FULL when the disk is full; ORDO_CORRUPTION
 * for a damaged page met; ORDO_IO_ERROR for other OS failures. Work: one
 * read and one write of every page in use. Thread-safe. */
ORDO_API int ordo_db_copy(ordo_db* db, const char* path, uint32_t flags, ordo_error* err);

/* The shape and fill of one tree (Txn::tree_stats; TreeStats in
 * ordo/diagnostics.h). */
typedef struct ordo_tree_statistics {
  size_t struct_size;
  uint64_t entries;
  uint32_t depth; /* levels: 0 for an empty tree, 1 when the root is a leaf */
  uint64_t leaf_pages;
  uint64_t branch_pages;
  double leaf_fill;         /* leaf bytes in use / leaf bytes, 0 to 1 */
  uint64_t overflow_pages;  /* pages of the runs of its large values */
  uint64_t overflow_values; /* values stored in overflow runs */
  uint64_t key_bytes;       /* sum of the key lengths */
  uint64_t value_bytes;     /* sum of the value lengths */
} ordo_tree_statistics;

/* Any txn: fills `*stats` for `tree` (NULL: the default tree) as the txn sees
 * it, from a walk of every page of the tree. Errors: ORDO_NOT_FOUND for a tree
 * that does not exist in this txn; ORDO_INVALID_ARGUMENT for NULL txn, a tree
 * handle of another database; ORDO_TXN_ENDED; ORDO_CORRUPTION naming the
 * first damaged page. Work: one read of every page of the tree. */
ORDO_API int ordo_tree_stats(ordo_txn* txn, const ordo_tree* tree, ordo_tree_statistics* stats,
                             ordo_error* err);

/* ---- IDs --------------------------------------------------------------- */

/* Size of a UUID in bytes, and of its canonical text with the NUL. */
#define ORDO_UUID_BYTES 16
#define ORDO_UUID_STRING_SIZE 37

/* Write txns: a time-ordered RFC 9562 UUIDv7 into the 16 bytes at `out`, most
 * significant first (memcmp order is time order: good keys). Strictly greater
 * than every ID this database issued before, even across reopen with the
 * clock set back. Errors: ORDO_TXN_ENDED; ORDO_INVALID_ARGUMENT for a read
 * txn or NULL. */
ORDO_API int ordo_next_id(ordo_txn* txn, uint8_t out[ORDO_UUID_BYTES], ordo_error* err);
/* Write txns: a time-ordered 64-bit ID (bit 63 zero, 41 bits of ms since
 * 2020-01-01, 10 bits options.id_node, 12 bits sequence; id64.h) into
 * `*out`. Store it big-endian for keys that sort in time order. Errors as
 * ordo_next_id. */
ORDO_API int ordo_next_id64(ordo_txn* txn, uint64_t* out, ordo_error* err);

/* The canonical lowercase text of the 16-byte UUID at `uuid`,
 * "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", 36 characters and a NUL, into the
 * `buf_len` bytes at `buf`. Errors: ORDO_INVALID_ARGUMENT for NULL or
 * buf_len < ORDO_UUID_STRING_SIZE. Thread-safe. */
ORDO_API int ordo_uuid_format(const uint8_t uuid[ORDO_UUID_BYTES], char* buf, size_t buf_len,
                              ordo_error* err);
/* Parses the canonical text (36 characters at `text`, either case) into the
 * 16 bytes at `out`. Errors: ORDO_INVALID_ARGUMENT naming the problem (wrong
 * length, missing '-', non-hex digit), or for NULL. Thread-safe. */
ORDO_API int ordo_uuid_parse(const char* text, size_t text_len, uint8_t out[ORDO_UUID_BYTES],
                             ordo_error* err);

/* Savepoints in a write txn (WriteTxn::savepoint in ordo/database.h, the
 * reference for what a rollback restores, what it costs, and what cursors,
 * tree handles, IDs and ordo_batch callbacks see). An ordo_savepoint is a
 * plain value the caller keeps: copy it freely, nothing to free; its bytes
 * are private. Savepoints nest to any depth.
 *
 *   ordo_savepoint sp;
 *   if (ordo_savepoint_take(txn, &sp, &err) != ORDO_OK) return fail(&err);
 *   int rc = ordo_put(txn, NULL, "k", 1, "v", 1, &err);
 *   if (rc != ORDO_OK) rc = ordo_savepoint_rollback(txn, &sp, &err);  // as if never made
 *   ordo_savepoint_release(txn, &sp, &err);                           // sp ends
 *
 * Errors of all three: ORDO_TXN_ENDED once the txn ended;
 * ORDO_INVALID_ARGUMENT for NULL, a read txn, a txn a failed call left fit
 * only to be aborted, a forked child, and (rollback, release) a savepoint not
 * open in this txn: zeroed, another txn's, released, or ended by a rollback
 * to or release of an earlier one (the message says which). One thread at a
 * time per txn, as every txn call. */
typedef struct ordo_savepoint {
  uint64_t opaque[2];
} ordo_savepoint;
/* Write txns: a savepoint at this point of the txn into `*out`. Costs a few
 * small fields; pages are copied only as they change later. */
ORDO_API int ordo_savepoint_take(ordo_txn* txn, ordo_savepoint* out, ordo_error* err);
/* Write txns: undoes every change since `sp` (trees, entries, pages; not IDs)
 * and ends the savepoints taken after it; `sp` stays open, so the txn may
 * come back to it again. Open cursors re-seek the key they were on; views
 * of bytes returned before end, as after a write. Costs O(pages changed
 * since `sp`). */
ORDO_API int ordo_savepoint_rollback(ordo_txn* txn, const ordo_savepoint* sp, ordo_error* err);
/* Write txns: ends `sp` and the savepoints taken after it, keeping their
 * changes (a commit commits them; ending the txn ends its savepoints too). */
ORDO_API int ordo_savepoint_release(ordo_txn* txn, const ordo_savepoint* sp, ordo_error* err);

/* ---- Counting and positions ------------------------------------------ */

/* Each branch entry of a tree records how many entries its subtree holds, so
 * these read one or two root-to-leaf paths (O(depth) pages) whatever the
 * range's size; in a write txn they see the txn's own writes. Errors of all
 * three: ORDO_NOT_FOUND for an unknown tree; ORDO_INVALID_ARGUMENT for NULL
 * txn or out pointer, bad byte arguments, a tree handle of another
 * database; ORDO_TXN_ENDED; ORDO_CORRUPTION naming a damaged page. One
 * thread at a time per txn. */

/* The number of entries of `tree` with from <= key < to into `*count`
 * (`from`/`to` as for ordo_scan: `to` NULL with to_len 0 for no upper bound). */
ORDO_API int ordo_count(ordo_txn* txn, const ordo_tree* tree, const void* from, size_t from_len,
                        const void* to, size_t to_len, uint64_t* count, ordo_error* err);
/* The number of entries whose key starts with the `prefix_len` bytes at
 * `prefix` into `*count` (every entry for an empty prefix). */
ORDO_API int ordo_count_prefix(ordo_txn* txn, const ordo_tree* tree, const void* prefix,
                               size_t prefix_len, uint64_t* count, ordo_error* err);
/* The number of entries whose key sorts before the `key_len` bytes at `key`
 * (memcmp order) into `*rank`: the key's position when present, else the
 * position it would take. */
ORDO_API int ordo_rank(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                       uint64_t* rank, ordo_error* err);
/* A new cursor (as ordo_cursor_open: freed by ordo_cursor_free) on the entry
 * at position `index` (0-based, key order) into `*cursor`, NULL on error.
 * Also ORDO_NOT_FOUND when `index` is at or past the number of entries. */
ORDO_API int ordo_cursor_at(ordo_txn* txn, const ordo_tree* tree, uint64_t index,
                            ordo_cursor** cursor, ordo_error* err);

/* ---- Changes between snapshots ----------------------------------------- */

/* Kept snapshots (docs/USING.md, "Changes between snapshots"): commits the
 * database holds on to until released, across reopen and crashes; the pages
 * they reach are not reused, so the file grows by what later commits change.
 * ordo_keep_snapshot keeps the last commit and sets `*txn_id` to its txn id
 * (a commit of its own, durable on return). ordo_release_snapshot releases
 * one (ORDO_NOT_FOUND when it is not kept). Errors otherwise as
 * ordo_begin_write and ordo_txn_commit. Thread-safe. */
ORDO_API int ordo_keep_snapshot(ordo_db* db, uint64_t* txn_id, ordo_error* err);
ORDO_API int ordo_release_snapshot(ordo_db* db, uint64_t txn_id, ordo_error* err);
/* The kept snapshots' txn ids, ascending: the first `capacity` into
 * `txn_ids`, their number into `*count` (call with capacity 0 to size the
 * array). Errors: ORDO_INVALID_ARGUMENT for NULL; ORDO_CORRUPTION. */
ORDO_API int ordo_kept_snapshots(ordo_db* db, uint64_t* txn_ids, size_t capacity, size_t* count,
                                 ordo_error* err);
/* A read txn on kept snapshot `txn_id` (or the snapshot of a live read txn
 * of this handle, or the newest commit when it is `txn_id`); free it with
 * ordo_txn_free. ORDO_NOT_FOUND "snapshot N is
 * not held: ..." for another txn id; otherwise as ordo_begin_read. */
ORDO_API int ordo_begin_read_at(ordo_db* db, uint64_t txn_id, ordo_txn** txn, ordo_error* err);

/* Called by ordo_changes for each changed key, in key order. `old_value` is
 * NULL when the key was inserted, `new_value` NULL when it was deleted (both
 * set: updated). The pointers are valid until the txn ends. Return 0 to go
 * on, nonzero to stop; the rules of ordo_scan_fn otherwise. */
typedef int (*ordo_change_fn)(void* ctx, const void* key, size_t key_len, const void* old_value,
                              size_t old_len, const void* new_value, size_t new_len);
/* Read txns: calls `fn` for each key of `tree` (NULL: the default tree)
 * whose value differs between held snapshot `since_txn` and this txn's
 * snapshot, skipping subtrees both share (cost: the changed pages times the
 * depth). A tree absent at one of them counts as empty there. Errors:
 * ORDO_NOT_FOUND "snapshot N is not held: ..." when `since_txn` is neither a
 * kept snapshot nor read by a live read txn of this handle (never a wrong
 * answer), or the tree exists in neither; ORDO_INVALID_ARGUMENT for a write
 * txn, NULL fn, a `since_txn` newer than the txn; ORDO_TXN_ENDED;
 * ORDO_CORRUPTION. */
ORDO_API int ordo_changes(ordo_txn* txn, const ordo_tree* tree, uint64_t since_txn,
                          ordo_change_fn fn, void* ctx, ordo_error* err);
/* Read txns: writes a delta file at `path` (a new file) of every change
 * from held snapshot `since_txn` to this snapshot (docs/FORMAT.md, "Delta
 * files"). Errors as ordo_changes; ORDO_INVALID_ARGUMENT when `path`
 * exists; ORDO_FULL, ORDO_IO_ERROR. */
ORDO_API int ordo_copy_delta(ordo_txn* txn, const char* path, uint64_t since_txn, ordo_error* err);
/* Applies the delta file at `path` in one write txn to a database at its
 * base txn, which then commits as the delta's target txn. Refused, nothing
 * changed: ORDO_CORRUPTION for a damaged or truncated delta (or a result
 * that does not match its target), ORDO_INVALID_ARGUMENT when the database
 * is not at the delta's base. ORDO_NOT_FOUND for a missing file. */
ORDO_API int ordo_apply_delta(ordo_db* db, const char* path, ordo_error* err);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ORDO_ORDO_H_ */
