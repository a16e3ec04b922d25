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
class WriteBatch {
 public:
  enum class OpKind : uint8_t { kPut = 1, kDel = 2, kCreateTree = 3, kDropTree = 4 };
  struct Op {
    OpKind kind;
    std::string tree;
    std::string key;    // kPut, kDel
    std::string value;  // kPut
  };

  void put(std::string_view tree, ByteView key, ByteView value);
  void del(std::string_view tree, ByteView key);  // a missing key is no error
  void create_tree(std::string_view tree);        // an existing tree is no error
  void drop_tree(std::string_view tree);          // a missing tree is no error

  const std::vector<Op>& ops() const { return ops_; }
  bool empty() const { return ops_.empty(); }
  // Bytes of encode()'s output.
  size_t encoded_bytes() const { return encoded_bytes_; }

  // The log entry's bytes: version byte 1, op count (varint), then per op its
  // kind byte and varint-length-prefixed tree, key and value as its kind has
  // (kPut: tree, key, value; kDel: tree, key; kCreateTree, kDropTree: tree).
  // Varints are LEB128, shortest form.
  std::string encode() const;
  // InvalidArgument naming the problem for bytes encode() did not make
  // (a truncated or over-long entry, an unknown version or op kind, a
  // varint not in its shortest form). Never reads past `bytes`; safe on
  // bytes from the network.
  static Result<WriteBatch> decode(ByteView bytes);

 private:
  std::vector<Op> ops_;
  size_t encoded_bytes_ = 2;  // version byte + an empty count
};

// Where a write stands when Replica::write returns.
enum class Outcome : uint8_t {
  kApplied,  // a majority holds the entry and this replica applied it
  kFailed,   // certainly applied nowhere: not the leader, invalid batch, or its
             // apply failed on every replica alike (status says why)
  kUnknown,  // the entry may or may not commit: leadership lost while it was
             // in flight, the timeout ran out, or the replica closed
};

const char* outcome_name(Outcome outcome);  // "applied", "failed", "unknown"

struct WriteResult {
  Outcome outcome = Outcome::kFailed;
  Status status;               // ok() exactly when outcome == kApplied
  uint64_t index = 0;          // the entry's log index when kApplied
  uint64_t leader_id = 0;      // on "not the leader": the leader this replica knows, 0 if none
  std::string leader_address;  // its Raft address ("" if none)
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
  // "" while applies succeed; else the environment error (IOError, Full) of
  // the entry this replica cannot apply now. The replica retries it on its
  // own (a follower every 200 ms, a leader at each heartbeat reply) and
  // catches up once the cause is gone; a write handle that a failed commit
  // poisoned is reopened.
  std::string apply_error;
  // "" while the Raft log's disk writes succeed; else the last failure
  // (e.g. "append: ... no space left on device"). Raft then restarts
  // itself from its files about once a second (role "unavailable" in
  // between) until a write succeeds; no process restart is needed.
  std::string disk_error;
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
  // holds no Raft state yet; every first member is started with the same
  // list. Empty: the replica waits to be added by Replica::add_member on the
  // leader.
  std::vector<Member> bootstrap;

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
  //                    non-voter), or a data directory of another replica id
  //                    (dir/replica-id)
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
  // value over the ordo limits), Busy (not the leader), Full ("too much
  // unapplied data": over max_unapplied_bytes), IOError (Raft refused the
  // entry before appending it; "removed from the cluster"; Raft restarting
  // after a disk error), or the apply's own error (e.g. InvalidArgument;
  // the entry then changed nothing but the applied index).
  // kUnknown statuses: IOError("leadership lost" / "timed out" / "replica
  // closing" / the leader's Raft log write failed). The batch is proposed as one log entry (about
  // encoded_bytes() + 16 bytes).
  WriteResult write(const WriteBatch& batch, std::chrono::milliseconds timeout);

  // A new time-ordered 64-bit ID (node number: the member id mod 1024), for
  // keys minted before proposing.
  Id64 next_id64();

  // A read view in `mode`. kLinearizable on a replica that is not the
  // leader: Busy (with the leader in the message); a barrier that does not
  // commit within `timeout`: IOError("timed out").
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
