import sys, ordo

with ordo.open(sys.argv[1] if len(sys.argv) > 1 else "quickstart.ordo") as db:
    with db.write() as txn:                      # commits on leaving the block
        nodes = txn.create_tree("nodes")
        node_id = txn.next_id()                  # a time-ordered uuid.UUID
        txn.put(node_id.bytes, b"record", tree=nodes)
    with db.read() as txn:                       # a snapshot, in any thread
        print(node_id, "->", txn.get(node_id.bytes, tree="nodes").decode())
