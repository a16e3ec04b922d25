#include "dump_format.h"

#include <cerrno>
#include <cstdlib>

#include "byte_format.h"
#include "ordo/base/errno_status.h"

namespace ordo::tool {

namespace {

// A name can go on the database= line as it is when it has no control
// characters (a newline would end the line).
bool name_is_plain(std::string_view name) {
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

Status DumpWriter::put(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), out_) != text.size()) {
    const int err = errno;
    return base::os_error("write of the dump failed", err);
  }
  return Status::ok();
}

Status DumpWriter::begin(const std::optional<std::string>& database, uint64_t mapsize) {
  block_label_ = tree_label(database);
  empty_key_seen_ = false;
  std::string h = "VERSION=3\n";
  h += print_ ? "format=print\n" : "format=bytevalue\n";
  if (database) {
    if (name_is_plain(*database)) {
      h += "database=" + *database + "\n";
    } else {
      h += "ordo_name=print\ndatabase=" + to_print(*database) + "\n";
      lmdb_warnings_.push_back(block_label_ +
                               ": a name with control characters; mdb_load would load it under "
                               "the escaped name");
    }
  }
  h += "type=btree\n";
  if (mapsize != 0) h += "mapsize=" + std::to_string(mapsize) + "\n";
  h += "HEADER=END\n";
  return put(h);
}

Status DumpWriter::record(ByteView key, ByteView value) {
  if (key.empty() && !empty_key_seen_) {
    empty_key_seen_ = true;
    lmdb_warnings_.push_back(block_label_ +
                             ": an empty key, which mdb_load refuses (LMDB keys are not empty)");
  }
  line_.clear();
  line_ += ' ';
  if (print_) {
    append_print(key, line_);
    line_ += "\n ";
    append_print(value, line_);
  } else {
    append_hex(key, line_);
    line_ += "\n ";
    append_hex(value, line_);
  }
  line_ += '\n';
  return put(line_);
}

Status DumpWriter::end() { return put("DATA=END\n"); }

DumpReader::~DumpReader() { std::free(buf_); }

Status DumpReader::error(const std::string& what) const {
  return Status::invalid_argument("line " + std::to_string(line_no_) + ": " + what);
}

Result<bool> DumpReader::read_line() {
  errno = 0;
  const ssize_t n = ::getline(&buf_, &cap_, in_);
  if (n < 0) {
    if (std::ferror(in_)) {
      const int err = errno;
      return base::os_error("read of the dump failed", err);
    }
    return false;
  }
  ++line_no_;
  bytes_read_ += static_cast<uint64_t>(n);
  size_t len = static_cast<size_t>(n);
  if (len > 0 && buf_[len - 1] == '\n') --len;
  line_ = std::string_view(buf_, len);
  return true;
}

Result<bool> DumpReader::next_block(DumpHeader* header) {
  *header = DumpHeader{};
  bool any = false;
  bool print_name = false;
  std::optional<std::string> raw_name;
  for (;;) {
    ORDO_ASSIGN_OR_RETURN(const bool got, read_line());
    if (!got) {
      if (!any) return false;
      return error("the input ends inside a header (no HEADER=END): truncated?");
    }
    if (!any) {
      header->first_line = line_no_;
      if (line_.rfind("VERSION=", 0) != 0) {
        if (!line_.empty() && line_[0] == ' ') {
          return error(
              "a data line outside a block (a value line without a key, or a missing "
              "header)");
        }
        return error("a block must start with a VERSION= line");
      }
    }
    any = true;
    if (line_ == "HEADER=END") break;
    if (!line_.empty() && line_[0] == ' ') {
      return error("a data line inside the header (missing HEADER=END?)");
    }
    if (line_ == "DATA=END") return error("DATA=END inside the header (missing HEADER=END?)");
    const size_t eq = line_.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return error("expected KEYWORD=VALUE in the header, got '" + clipped_text(line_) + "'");
    }
    const std::string_view word = line_.substr(0, eq);
    const std::string_view value = line_.substr(eq + 1);
    if (word == "VERSION") {
      char* end = nullptr;
      const std::string v(value);
      const long version = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || version < 1) {
        return error("bad VERSION '" + clipped_text(value) + "'");
      }
      if (version > 3) {
        return error("unsupported VERSION " + clipped_text(v) +
                     " (this tool reads VERSION 1 to 3)");
      }
      header->version = static_cast<int>(version);
    } else if (word == "format") {
      if (value == "print") {
        header->print = true;
      } else if (value == "bytevalue") {
        header->print = false;
      } else {
        return error("unsupported format '" + clipped_text(value) + "' (bytevalue or print)");
      }
    } else if (word == "type") {
      if (value != "btree") return error("unsupported type '" + clipped_text(value) + "' (btree)");
    } else if (word == "database") {
      raw_name = std::string(value);
    } else if (word == "ordo_name") {
      if (value != "print") return error("unsupported ordo_name '" + clipped_text(value) + "'");
      print_name = true;
    } else if (word == "mapsize") {
      header->mapsize = std::strtoull(std::string(value).c_str(), nullptr, 10);
    } else if (word == "maxreaders" || word == "mapaddr" || word == "db_pagesize") {
      // LMDB environment settings: nothing to do for ordo.
    } else if (word == "duplicates" || word == "dupsort" || word == "dupfixed" ||
               word == "integerdup" || word == "reversedup" || word == "integerkey" ||
               word == "reversekey") {
      if (value != "0") {
        return error("unsupported LMDB flag " + clipped_text(word) +
                     " (ordo trees hold one value per key and compare keys as bytes)");
      }
    } else {
      header->ignored.push_back("line " + std::to_string(line_no_) + ": " + clipped_text(word));
    }
  }
  if (raw_name) {
    if (print_name) {
      auto decoded = from_print(*raw_name);
      if (!decoded.is_ok()) return error("database name: " + decoded.status().message());
      header->database = std::move(decoded).value();
    } else {
      header->database = std::move(raw_name);
    }
    if (header->database->empty()) return error("empty database name");
  }
  print_ = header->print;
  return true;
}

Result<std::string> DumpReader::decode(std::string_view text) const {
  auto bytes = print_ ? from_print(text) : from_hex(text);
  if (!bytes.is_ok()) return error(bytes.status().message());
  return bytes;
}

Result<bool> DumpReader::next_record(std::string* key, std::string* value) {
  ORDO_ASSIGN_OR_RETURN(bool got, read_line());
  if (!got) return error("the input ends inside a data block (no DATA=END): truncated?");
  if (line_ == "DATA=END") return false;
  if (line_.empty() || line_[0] != ' ') {
    return error("expected a key line (a space, then the key) or DATA=END");
  }
  key_line_ = line_no_;
  ORDO_ASSIGN_OR_RETURN(*key, decode(line_.substr(1)));
  ORDO_ASSIGN_OR_RETURN(got, read_line());
  if (!got) {
    return error("the input ends after the key of line " + std::to_string(key_line_) +
                 " (no value line): truncated?");
  }
  if (line_ == "DATA=END") {
    return error("DATA=END where the value of the key of line " + std::to_string(key_line_) +
                 " belongs (a key without a value)");
  }
  if (line_.empty() || line_[0] != ' ') {
    return error("expected a value line (a space, then the value)");
  }
  ORDO_ASSIGN_OR_RETURN(*value, decode(line_.substr(1)));
  return true;
}

}  // namespace ordo::tool
