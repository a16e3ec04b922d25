#include "reports.h"

namespace ordo::python {
namespace {

py::dict meta_dict(const MetaInfo& m) {
  py::dict d;
  d["valid"] = m.valid;
  d["problem"] = m.problem;
  d["txn_id"] = m.txn_id;
  d["page_high_water"] = m.page_high_water;
  d["file_bytes"] = m.file_bytes;
  d["free_pages"] = m.free_pages;
  d["tree_count"] = m.tree_count;
  return d;
}

py::dict log_dict(const LogInfo& l) {
  py::dict d;
  d["first_page"] = l.first_page;
  d["area_bytes"] = l.area_bytes;
  d["epoch"] = l.epoch;
  d["checkpoint_txn"] = l.checkpoint_txn;
  d["records"] = l.records;
  d["head_bytes"] = l.head_bytes;
  d["last_txn"] = l.last_txn;
  d["replayed"] = l.replayed;
  d["replayed_records"] = l.replayed_records;
  d["replayed_bytes"] = l.replayed_bytes;
  return d;
}

}  // namespace

// uuid.UUID, imported by init_reports() when the module is imported (not by
// a function-local static: its guard, held across an import that releases
// the GIL, deadlocks a second thread that waits on it with the GIL held).
PyObject* uuid_class = nullptr;

void init_reports() {
  if (uuid_class == nullptr) {
    uuid_class = py::object(py::module_::import("uuid").attr("UUID")).release().ptr();
  }
}

py::object uuid_object(const Uuid& id) {
  return py::reinterpret_borrow<py::object>(uuid_class)(
      py::arg("bytes") =
          py::bytes(reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size()));
}

py::dict info_dict(const DatabaseInfo& info) {
  py::dict d;
  d["path"] = info.path;
  d["page_size_bytes"] = info.page_size_bytes;
  d["format_version"] = info.format_version;
  d["file_bytes"] = info.file_bytes;
  d["txn_id"] = info.txn_id;
  d["current_meta"] = info.current_meta;
  d["current"] = meta_dict(info.current);
  d["log"] = log_dict(info.log);
  d["metas"] = py::make_tuple(meta_dict(info.metas[0]), meta_dict(info.metas[1]));
  d["pages_used"] = info.pages_used;
  d["id_high_water"] = uuid_object(info.id_high_water);
  d["id64_high_water"] = info.id64_high_water.value;
  d["io_backend"] = info.io_backend;
  d["recovery"] = info.recovery;
  return d;
}

py::dict stats_dict(const Stats& s) {
  py::dict d;
  d["commits"] = s.commits;
  d["pages_written"] = s.pages_written;
  d["bytes_written"] = s.bytes_written;
  d["write_calls"] = s.write_calls;
  d["syncs"] = s.syncs;
  d["file_growths"] = s.file_growths;
  d["pages_reused"] = s.pages_reused;
  d["pages_spilled"] = s.pages_spilled;
  d["overflow_pages_written"] = s.overflow_pages_written;
  d["batch_groups"] = s.batch_groups;
  d["batch_members"] = s.batch_members;
  d["batch_rollbacks"] = s.batch_rollbacks;
  return d;
}

py::dict check_dict(const CheckReport& r) {
  py::dict d;
  d["clean"] = r.clean();
  py::list problems;
  for (const CheckProblem& p : r.problems) {
    py::dict problem;
    problem["page"] = p.page_number;
    problem["what"] = p.what;
    problems.append(problem);
  }
  d["problems"] = problems;
  d["truncated"] = r.truncated;
  d["high_water_pages"] = r.high_water_pages;
  d["tree_pages"] = r.tree_pages;
  d["overflow_pages"] = r.overflow_pages;
  d["free_pages"] = r.free_pages;
  d["trees"] = r.trees;
  d["entries"] = r.entries;
  d["catalog_entries"] = r.catalog_entries;
  d["free_tree_entries"] = r.free_tree_entries;
  d["log_pages"] = r.log_pages;
  d["log_records"] = r.log_records;
  d["log_bytes"] = r.log_bytes;
  return d;
}

py::dict copy_dict(const CopyResult& c) {
  py::dict d;
  d["txn_id"] = c.txn_id;
  d["pages"] = c.pages;
  d["bytes"] = c.bytes;
  d["free_pages"] = c.free_pages;
  d["trees"] = c.trees;
  d["entries"] = c.entries;
  return d;
}

py::dict tree_stats_dict(const TreeStats& s) {
  py::dict d;
  d["name"] = s.name;
  d["entries"] = s.entries;
  d["depth"] = s.depth;
  d["leaf_pages"] = s.leaf_pages;
  d["branch_pages"] = s.branch_pages;
  d["leaf_fill"] = s.leaf_fill;
  d["overflow_pages"] = s.overflow_pages;
  d["overflow_values"] = s.overflow_values;
  d["key_bytes"] = s.key_bytes;
  d["value_bytes"] = s.value_bytes;
  return d;
}

}  // namespace ordo::python
