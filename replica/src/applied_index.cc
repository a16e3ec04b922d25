#include "applied_index.h"

#include <string>

#include "codec.h"
#include "ordo/assert.h"
#include "ordo/replica.h"

namespace ordo::replica {

namespace {
constexpr std::string_view kAppliedIndexKey = "applied_index";
}

Result<uint64_t> read_applied_index(Txn& txn) {
  Result<Tree> tree = txn.open_tree(kSystemTree);
  if (!tree.is_ok()) {
    if (tree.status().is_not_found()) return uint64_t{0};
    return tree.status();
  }
  Result<ByteView> value = txn.get(*tree, kAppliedIndexKey);
  if (!value.is_ok()) {
    if (value.status().is_not_found()) return uint64_t{0};
    return value.status();
  }
  if (value->size() != 8) {
    return Status::corruption("applied index value of " + std::to_string(value->size()) +
                              " bytes, not 8");
  }
  return codec::load_u64_be(value->view());
}

Status write_applied_index(WriteTxn& txn, uint64_t index) {
  ORDO_ASSERT(index >= 1);  // 0 is what read_applied_index returns for none.
  ORDO_ASSIGN_OR_RETURN(Tree tree, txn.create_tree(kSystemTree));
  std::string value;
  codec::put_u64_be(value, index);
  ORDO_ASSERT(value.size() == 8);  // The size read_applied_index requires.
  return txn.put(tree, kAppliedIndexKey, value);
}

}  // namespace ordo::replica
