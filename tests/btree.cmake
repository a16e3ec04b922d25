ordo_test(btree_test SOURCES btree_tree_test.cc btree_node_test.cc btree_rightmost_path_test.cc LIBS ordo_btree LABELS btree)
