// ordo replicated on Raft: one ordo database kept identical on several
// machines (docs/REPLICATION.md).
//
// Every change is a WriteBatch. The leader proposes the batch's bytes as one
// Raft log entry; once a majority holds the entry, every replica applies it as
// one ordo commit that also records the entry's log index (the applied index)
// in the tree kSystemTree, so a restart applies no entry twice. Keys and values
// are complete before proposing (IDs are minted by the proposer, not at apply
// time), so every replica writes identical bytes.
//
// A Raft snapshot costs the same whatever the database's size: an fdatasync
// of the ordo file (commits are made without one; the Raft log is the
// durable record until then) and a record of the applied index. No copy is
// kept. A follower too far behind for the leader's log receives that record
// and asks the leader's snapshot port (the Raft port + 1) for a copy: the
// leader then copies its live database (ReadTxn::copy_to_fd) and sends it
// with its size, XXH3-64 and applied index; the follower verifies size,
// checksum and every page (ordo check) and only then replaces its own file.
//
// Consensus: the canonical Raft C library (libraft 0.15, libuv I/O and TCP
// transport), bound in one source file behind the Consensus interface
// (replica/src/consensus.h), so that another Raft library can replace
// it.
//
// Thread-safety: every Replica member may be called from any thread at once.
// Raft, the applies, snapshots and snapshot installs run on the replica's own
// thread (which blocks SIGPIPE for itself: a peer that went away fails a
// send with EPIPE; the host's signal handling is left as it is). Copies are
// made and served by a second thread of its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/byte_view.h"
#include "ordo/database.h"
#include "ordo/id64.h"
#include "ordo/options.h"
#include "ordo/status.h"

namespace ordo::replica {

// The tree each replica keeps its applied index in (key "applied_index", value
// the index as 8 big-endian bytes). Batches may not name it.
inline constexpr std::string_view kSystemTree = "ordo.replica";

// The file names inside ReplicaOptions::dir.
inline constexpr std::string_view kDatabaseFile = "data.ordo";  // the live database
inline constexpr std::string_view kRaftDir = "raft";            // Raft log, term, vote, snapshots
inline constexpr std::string_view kCopiesDir = "copies";  // copies in transit (emptied at open)

// A replicated change: applied whole on every replica, or not at all.
// A tree is named by its name; "" is the default tree. put() into a named
// tree that does not exist creates it. Not thread-safe (a value type).
//
// Guards (check_value, check_absent, check_present) make a batch
// conditional: at apply time every guard is evaluated first, against the
// state before the batch (the same on every replica: applies are in log
// order), and if any fails the batch changes nothing and its result is
// kFailed with status CompareFailed (Status::is_compare_failed), whose
// message names the op, tree and key. Guards only read. A guard on a
// missing tree sees every key of it absent.
class WriteBatch {
 public:
  enum class OpKind : uint8_t {
    kPut = 1,
    kDel = 2,
    kCreateTree = 3,
    kDropTree = 4,
    kDelRange = 5,      // key: the first key, value: the end (excluded)
    kCheckValue = 6,    // key, value: the value the key must hold
    kCheckAbsent = 7,   // key: must be absent
    kCheckPresent = 8,  // key: must be present (any value)
  };
  struct Op {
    OpKind kind;
    std::string tree;
    std::string key;    // kPut, kDel, kDelRange (first), kCheck*
    std::string value;  // kPut, kDelRange (end), kCheckValue (expected)
  };

  void put(std::string_view tree, ByteView key, ByteView value);
  void del(std::string_view tree, ByteView key);  // a missing key is no error
  void create_tree(std::string_view tree);        // an existing tree is no error
  void drop_tree(std::string_view tree);          // a missing tree is no error
  // Deletes every key k of `tree` with first <= k < end in key order
  // (nothing when first >= end; a missing tree is no error), with the
  // engine's WriteTxn::del_range.
  void del_range(std::string_view tree, ByteView first, ByteView end);
  // Guards (see above): `key` holds exactly `expected`; `key` is absent;
  // `key` is present.
  void check_value(std::string_view tree, ByteView key, ByteView expected);
  void check_absent(std::string_view tree, ByteView key);
  void check_present(std::string_view tree, ByteView key);

  // Asks for the previous values: the apply result (WriteResult::prev) then
  // holds, for each put and del of the batch in op order, the value its key
  // held just before that op (found false for a missing key or tree).
  void set_return_prev(bool on);
  bool return_prev() const { return return_prev_; }

  const std::vector<Op>& ops() const { return ops_; }
  bool empty() const { return ops_.empty(); }
  // Bytes of encode()'s output.
  size_t encoded_bytes() const { return encoded_bytes_ + (needs_v2() ? 1 : 0); }

  // The log entry's bytes. Version 1 (written when the batch has only the
  // first four op kinds and no flag, so replicas of earlier releases apply
  // it): version byte 1, op count (varint), then per op its kind byte and
  // varint-length-prefixed tree, key and value as its kind has (kPut: tree,
  // key, value; kDel: tree, key; kCreateTree, kDropTree: tree). Version 2:
  // version byte 2, a flags byte (bit 0: return_prev), then as version 1,
  // with kDelRange and kCheckValue (tree, key, value) and kCheckAbsent and
  // kCheckPresent (tree, key). Varints are LEB128, shortest form.
  std::string encode() const;
  // InvalidArgument naming the problem for bytes encode() did not make
  // (a truncated or over-long entry, an unknown version, flag or op kind, a
  // varint not in its shortest form, a version 2 entry version 1 could
  // hold). Never reads past `bytes`; safe on bytes from the network.
  static Result<WriteBatch> decode(ByteView bytes);

 private:
  bool needs_v2() const { return return_prev_ || v2_ops_ > 0; }
  std::vector<Op> ops_;
  size_t encoded_bytes_ = 2;  // version byte + an empty count (+ flags byte in version 2)
  size_t v2_ops_ = 0;         // ops of kinds version 1 does not have
  bool return_prev_ = false;
};

// The value a key held before a put or del of a batch with return_prev.
struct PrevValue {
  std::string tree;
  std::string key;
  bool found = false;
  std::string value;  // when found
};

// Where a write stands when Replica::write returns.
enum class Outcome : uint8_t {
  kApplied,  // a majority holds the entry and this replica applied it
  kFailed,   // certainly applied nowhere: not the leader, invalid batch, or its
             // apply failed on every replica alike (status says why)
  kUnknown,  // the entry may or may not commit: leadership lost while it was
             // in flight, the timeout ran out, or the replica closed; or it
             // committed and this replica could not apply it yet (a disk
             // error, see ReplicaStatus::apply_error: it applies when the
             // disk allows)
};

const char* outcome_name(Outcome outcome);  // "applied", "failed", "unknown"

struct WriteResult {
  Outcome outcome = Outcome::kFailed;
  Status status;               // ok() exactly when outcome == kApplied
  uint64_t index = 0;          // the entry's log index when kApplied
  uint64_t leader_id = 0;      // on "not the leader": the leader this replica knows, 0 if none
  std::string leader_address;  // its Raft address ("" if none)
  // When kApplied and the batch asked (WriteBatch::set_return_prev): one per
  // put and del, in op order.
  std::vector<PrevValue> prev;
};

// One change a committed batch made, as Replica::watch returns it.
struct Change {
  uint64_t index = 0;                                  // the log entry whose batch made it
  WriteBatch::OpKind kind = WriteBatch::OpKind::kPut;  // kPut, kDel, kDelRange,
                                                       // kCreateTree or kDropTree
  std::string tree;
  std::string key;    // kPut, kDel; kDelRange: the first key
  std::string value;  // kPut; kDelRange: the end key (excluded)
};

// Where a watch stands: the changes at or past its start, and where the
// next watch resumes. A batch's changes are numbered from 0 in op order
// (guards and failed batches make none); a position is (index, offset):
// the change `offset` of entry `index`, or the first change of a later one.
struct WatchResult {
  std::vector<Change> changes;  // in index order, then op order
  uint64_t next_index = 0;
  uint32_t next_offset = 0;
};

// One member of the cluster.
struct Member {
  uint64_t id = 0;      // > 0, unique in the cluster
  std::string address;  // "IPv4:port" of its Raft transport; port + 1 serves
                        // snapshot copies
  bool voter = true;
};

// kRemoved: the newest configuration this replica knows no longer holds it
// (it was a member before); it refuses reads and writes.
enum class Role : uint8_t { kUnavailable, kFollower, kCandidate, kLeader, kRemoved };
// "unavailable", "follower", "candidate", "leader", "removed"
const char* role_name(Role role);

struct ReplicaStatus {
  uint64_t id = 0;
  std::string address;
  Role role = Role::kUnavailable;
  uint64_t term = 0;
  uint64_t leader_id = 0;  // 0 when no leader is known
  std::string leader_address;
  uint64_t last_log_index = 0;       // last entry in this replica's log
  uint64_t applied_index = 0;        // last entry applied to the ordo file
  uint64_t snapshot_index = 0;       // applied index of this replica's newest snapshot record
  uint64_t snapshots_taken = 0;      // snapshot records taken by this replica since open
  uint64_t snapshots_installed = 0;  // copies fetched and installed since open
  // Non-zero while this replica's file is behind what Raft counts applied
  // (a snapshot copy could not be fetched or installed yet): the applied
  // index the install must reach. Meanwhile the replica retries the fetch
  // with backoff (from the leader, then the other members), starts no
  // election, hands leadership away and refuses reads (Busy).
  uint64_t install_pending_index = 0;
  std::string install_error;      // the last failed fetch or install; "" once one succeeded
  uint64_t install_failures = 0;  // failed fetches and installs since open
  // "" while applies succeed; else the environment error (IOError, Full) of
  // the entry this replica cannot apply now. The replica retries it on its
  // own (a follower every 200 ms, a leader at each heartbeat reply) and
  // catches up once the cause is gone; a write handle that a failed commit
  // poisoned is reopened.
  std::string apply_error;
  // The cluster's id as 32 hex digits; 32 zeros while a joining replica has
  // not been contacted by a leader yet.
  std::string cluster_id;
  // Connections to or from the Raft port ended before reaching Raft: a bad
  // handshake, another cluster id, a wrong secret, the deadline (since open).
  uint64_t raft_refused_connections = 0;
  // "" while the Raft log's disk writes succeed; else the last failure
  // (e.g. "append: ... no space left on device"). Raft then restarts
  // itself from its files about once a second (role "unavailable" in
  // between) until a write succeeds; no process restart is needed.
  std::string disk_error;
  // "" or what the next restart waits for: "room on the Raft log's disk: N
  // bytes needed free in DIR, F free" (libraft preallocates each 8 MiB
  // segment of its log before writing to it).
  std::string disk_wait;
  uint64_t disk_errors = 0;        // failed Raft disk writes since open
  uint64_t raft_restarts = 0;      // in-process Raft restarts after one
  uint64_t raft_log_entries = 0;   // entries in Raft's in-memory log
  uint64_t raft_log_bytes = 0;     // their payload bytes
  uint64_t unapplied_bytes = 0;    // proposed by this leader, not yet applied
  uint64_t proposals_refused = 0;  // writes refused over max_unapplied_bytes
  std::vector<Member> members;     // the newest configuration this replica knows
};

struct ReplicaOptions {
  uint64_t id = 0;      // this replica's member id, > 0
  std::string address;  // this replica's Raft address "IPv4:port" (port < 65535)
  std::string dir;      // data directory; created when missing

  // The voters of a new cluster, this replica among them. Used only when dir
  // holds no Raft state yet and initial_cluster_state is kNew; every first
  // member is started with the same list. Empty: the replica waits to be
  // added by Replica::add_member on the leader.
  std::vector<Member> bootstrap;
  // What a directory without Raft state does (etcd's
  // --initial-cluster-state): kNew bootstraps a new cluster from
  // `bootstrap`; kExisting never bootstraps, and waits to be contacted by
  // the leader of an existing cluster (as with an empty list). With Raft
  // state either way starts from it, and `bootstrap` (when given) checks
  // the stored cluster id.
  enum class InitialClusterState : uint8_t { kNew, kExisting };
  InitialClusterState initial_cluster_state = InitialClusterState::kNew;

  // The cluster id (docs/REPLICATION.md, Cluster identity) is fixed when
  // the first members bootstrap: a hash of `cluster_token` and the bootstrap
  // list, stored in dir. A directory with Raft state whose stored id differs
  // from the one these options give is refused. Without a bootstrap list the
  // replica adopts the id of the first leader that contacts it, unless
  // `cluster_id` (32 hex digits) pins it.
  std::string cluster_token;
  std::string cluster_id;
  // Shared by every member: when set (at least 32 bytes), Raft connections
  // are authenticated both ways (HMAC-SHA256 challenge-response); when
  // empty, the Raft port checks the cluster id only and trusts its network.
  std::string cluster_secret;

  uint32_t heartbeat_timeout_ms = 100;  // 10..60000
  uint32_t election_timeout_ms = 1000;  // at least 2x the heartbeat timeout, at most 600000
  // Take a snapshot (an fdatasync of the file and a record of its applied
  // index) every this many applied entries, and keep this many entries in
  // the log behind it for followers that are only a little behind.
  uint32_t snapshot_threshold = 8192;
  uint32_t snapshot_trailing = 4096;
  // Memory budget of the Raft log (held in memory from the last snapshot
  // on): snapshot also once this many entry bytes were applied since the
  // last one, and keep at most snapshot_trailing_bytes of entries (at least
  // one entry) behind a snapshot. A follower further behind gets a snapshot.
  uint64_t snapshot_threshold_bytes = 64ull << 20;
  uint64_t snapshot_trailing_bytes = 16ull << 20;
  // The leader refuses a write (kFailed, Full "too much unapplied data")
  // while the entries it proposed and has not applied yet hold this many
  // bytes (e.g. no quorum acknowledges them).
  uint64_t max_unapplied_bytes = 64ull << 20;

  // Bytes of the newest committed changes kept in memory for watch (keys,
  // values and names, plus 64 per change); the oldest whole entries go
  // first. 0 keeps none (every watch is then "compacted").
  size_t watch_history_bytes = size_t{64} << 20;

  // TLS 1.3 of the snapshot port: copies are sent and fetched encrypted.
  // Every replica presents its certificate (PEM cert_file and key_file) and
  // verifies the other end's against ca_file; with allowed_peer_names, the
  // other end's certificate must also bear one of these names (subject CN
  // or DNS alternative name). All files empty: plaintext. A file that
  // cannot be loaded fails open() (IOError naming it).
  struct SnapshotTls {
    std::string cert_file;
    std::string key_file;
    std::string ca_file;
    std::vector<std::string> allowed_peer_names;
  };
  SnapshotTls snapshot_tls;

  // Options of the ordo file. sync_commits is ignored (set to false): the
  // Raft log is the durable record, and each snapshot fdatasyncs the file
  // before Raft drops the entries it covers. read_only is refused
  // (InvalidArgument): the replica writes every entry to the file.
  Options db_options;
};

// A snapshot of this replica's database for reading.
// Holds a read txn; a snapshot install waits until every ReadView is gone,
// so drop them soon. Not thread-safe (one thread at a time per view).
class ReadView {
 public:
  ReadView(ReadView&&) noexcept;
  ReadView& operator=(ReadView&&) noexcept;
  ~ReadView();

  ReadTxn& txn() { return txn_; }
  // The log index of the last entry this view reflects.
  uint64_t applied_index() const { return applied_index_; }

  // The value of `key` in the tree named `tree` ("" = default tree).
  // NotFound for a missing key or tree; else as ReadTxn::get.
  Result<std::string> get(std::string_view tree, ByteView key);

 private:
  friend class ReplicaImpl;
  ReadView(std::shared_lock<std::shared_mutex> lock, ReadTxn txn, uint64_t applied_index);
  std::shared_lock<std::shared_mutex> lock_;
  ReadTxn txn_;
  uint64_t applied_index_ = 0;
};

enum class ReadMode : uint8_t {
  kLocal,         // this replica's last applied state: may be stale
  kLinearizable,  // leader only: after a Raft barrier, so every write
                  // acknowledged before the call is seen
};

class ReplicaImpl;

class Replica {
 public:
  // Opens (or creates) the replica in options.dir and starts Raft: listens
  // on options.address (Raft) and its port + 1 (snapshot copies), replays
  // the Raft log past the file's applied index. Returns once Raft runs; a
  // leader may not be known yet (wait_ready).
  // Returns:
  //   InvalidArgument  a bad option (id 0, address not "IPv4:port", port
  //                    65535 for this replica or a bootstrap member, an
  //                    empty dir, db_options.read_only, a heartbeat timeout
  //                    outside 10..60000 ms, an election timeout below
  //                    twice the heartbeat or over 600000 ms,
  //                    snapshot_threshold, snapshot_threshold_bytes or
  //                    max_unapplied_bytes 0, a bootstrap list without this
  //                    replica, naming it at another address or as a
  //                    non-voter, a cluster secret under 32 bytes, a
  //                    cluster_id that is not 32 hex digits), a data
  //                    directory of another replica id (dir/replica-id), or
  //                    of another cluster than the bootstrap list and token
  //                    (or cluster_id) give (dir/cluster-id; the message
  //                    names both ids and peer lists)
  //   IOError          a port in use, a directory that cannot be made, Raft
  //                    state that cannot be loaded
  //   Corruption, NotOrdoFile, VersionMismatch  from the ordo file
  // A file behind the newest Raft snapshot (a crash during a snapshot
  // install, commits lost with the page cache) is no error: the replica
  // fetches a copy from the leader (or another member) before it applies
  // any entry, and until then reports and reads the file's own, lower,
  // applied index.
  static Result<std::unique_ptr<Replica>> open(const ReplicaOptions& options);

  // Stops Raft (entries still in flight are ended as kUnknown), the
  // snapshot server and closes the file. Waits for a snapshot install in
  // progress. As for any object, no other thread may be inside a call on
  // it meanwhile, and every ReadView must be gone.
  ~Replica();

  // Proposes `batch` as one log entry and waits until this replica applied it
  // or `timeout` ran out. Only the leader accepts writes: on any other
  // replica the result is kFailed with leader_id/leader_address set.
  // kFailed statuses: InvalidArgument (an empty or invalid batch, the system
  // tree named, creating or dropping the default tree, a tree name, key or
  // value over the ordo limits), Busy (not the leader; or "not proposed:
  // ..." when the entry never reached Raft: Raft restarting after a disk
  // error, the replica closing, or Raft not taking it within `timeout`),
  // Full ("too much unapplied data": over max_unapplied_bytes), IOError
  // (Raft refused the entry before appending it; "removed from the
  // cluster"), CompareFailed (a guard of the batch did not hold: see
  // WriteBatch), or the apply's own error (e.g. InvalidArgument). After
  // CompareFailed and the apply's errors the entry is committed and changed
  // nothing but the applied index.
  // kUnknown statuses: IOError("leadership lost" / "timed out" / "replica
  // closing" / the leader's Raft log write failed). The batch is proposed as one log entry (about
  // encoded_bytes() + 16 bytes).
  WriteResult write(const WriteBatch& batch, std::chrono::milliseconds timeout);

  // A new time-ordered 64-bit ID (node number: the member id mod 1024), for
  // keys minted before proposing.
  Id64 next_id64();

  // A read view in `mode`. kLinearizable on a replica that is not the
  // leader: Busy (with the leader in the message); a barrier that does not
  // commit within `timeout`: IOError("timed out"). Either mode while a
  // snapshot install is pending (ReplicaStatus::install_pending_index):
  // Busy, as the file lacks committed entries.
  Result<ReadView> read(ReadMode mode, std::chrono::milliseconds timeout);

  // Membership, on the leader (else Busy). add_member adds the member as a
  // voter once it has caught up; one that does not catch up within 3/4 of
  // `timeout` (unreachable, too slow) is removed again: Busy("member N did
  // not catch up in T ms; not added"), and the id can be added again.
  // remove_member removes it (removing the leader itself makes another
  // member leader) and sends the removed member a notice, after which it
  // refuses reads and writes (role kRemoved).
  // Errors: Busy (not the leader, or another change in progress),
  // InvalidArgument (a known id / an unknown id), IOError("timed out").
  Status add_member(const Member& member, std::chrono::milliseconds timeout);
  Status remove_member(uint64_t id, std::chrono::milliseconds timeout);

  ReplicaStatus status() const;

  // The changes this replica applied at or after position (from_index,
  // from_offset), oldest first, in `tree` only (nullptr: every tree). Waits
  // up to `wait` for a first change when there is none yet, then returns
  // none (not an error). from_index 0: from the next entry applied (the
  // changes after the call). At most `max_changes` changes (> 0) and,
  // unless the first change alone is larger, `max_bytes` of tree, key and
  // value bytes; next_index/next_offset say where to go on.
  // The history is in memory (ReplicaOptions::watch_history_bytes): it
  // starts at the entries applied after open, and restarts after a
  // snapshot install. Errors: NotFound("compacted: oldest index N") when
  // the history no longer holds the position (N: the oldest position it
  // holds; a client reads the state afresh, then watches from N or later);
  // IOError("replica closing").
  Result<WatchResult> watch(const std::string* tree, uint64_t from_index, uint32_t from_offset,
                            size_t max_changes, size_t max_bytes, std::chrono::milliseconds wait);

  // Waits until a leader is known and this replica applied every entry up to
  // the leader's commit index at the time of the call (or `timeout`: IOError).
  // On the leader: a barrier. On a follower: the commit index it holds two
  // heartbeats after a leader is known (the leader sends its commit index
  // with every heartbeat).
  Status wait_ready(std::chrono::milliseconds timeout);

 private:
  explicit Replica(std::unique_ptr<ReplicaImpl> impl);
  std::unique_ptr<ReplicaImpl> impl_;
};

// "host:port" -> port + 1: where a replica at `raft_address` serves snapshot
// copies (the port rule of sys/include/ordo/sys/node_ports.h). InvalidArgument
// for an address that is not "IPv4:port", or port 65535.
Result<std::string> snapshot_address(std::string_view raft_address);

}  // namespace ordo::replica
