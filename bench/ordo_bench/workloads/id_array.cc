#include "id_array.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace ordo::bench {

static_assert(sizeof(Uuid) == Uuid::kSize, "IdArray maps Uuids as raw bytes");

IdArray IdArray::on_heap(uint64_t count) {
  IdArray a;
  a.heap_.resize(count);
  a.data_ = a.heap_.data();
  a.count_ = count;
  return a;
}

Result<IdArray> IdArray::file_backed(const std::string& path, uint64_t count) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status::io_error("create " + path, errno);
  ::unlink(path.c_str());  // the mapping keeps the file; nothing is left behind
  const size_t bytes = std::max<size_t>(count * sizeof(Uuid), 1);
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::io_error("ftruncate " + path, err);
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Status::io_error("mmap " + path, err);
  IdArray a;
  a.data_ = static_cast<Uuid*>(p);
  a.count_ = count;
  a.mapped_bytes_ = bytes;
  return a;
}

IdArray::IdArray(IdArray&& other) noexcept { *this = std::move(other); }

IdArray& IdArray::operator=(IdArray&& other) noexcept {
  if (this == &other) return *this;
  release();
  heap_ = std::move(other.heap_);
  data_ = std::exchange(other.data_, nullptr);
  count_ = std::exchange(other.count_, 0);
  mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
  if (mapped_bytes_ == 0) data_ = heap_.data();
  return *this;
}

IdArray::~IdArray() { release(); }

void IdArray::release() {
  if (mapped_bytes_ != 0) ::munmap(data_, mapped_bytes_);
  heap_.clear();
  data_ = nullptr;
  count_ = 0;
  mapped_bytes_ = 0;
}

std::string_view IdArray::storage() const {
  return is_file_backed() ? "file-backed MAP_SHARED (RssFile)" : "heap (RssAnon)";
}

}  // namespace ordo::bench
