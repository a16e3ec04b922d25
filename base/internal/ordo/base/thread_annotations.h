// Clang thread-safety annotations (-Wthread-safety), and a mutex that carries
// them: libstdc++'s std::mutex is not annotated. On other compilers the macros
// expand to nothing.
#pragma once

#include <mutex>

#if defined(__clang__)
#define ORDO_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define ORDO_THREAD_ANNOTATION(x)
#endif

#define ORDO_CAPABILITY(name) ORDO_THREAD_ANNOTATION(capability(name))
#define ORDO_SCOPED_CAPABILITY ORDO_THREAD_ANNOTATION(scoped_lockable)
#define ORDO_GUARDED_BY(mu) ORDO_THREAD_ANNOTATION(guarded_by(mu))
#define ORDO_PT_GUARDED_BY(mu) ORDO_THREAD_ANNOTATION(pt_guarded_by(mu))
#define ORDO_REQUIRES(...) ORDO_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define ORDO_EXCLUDES(...) ORDO_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ORDO_ACQUIRE(...) ORDO_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ORDO_RELEASE(...) ORDO_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define ORDO_RETURN_CAPABILITY(x) ORDO_THREAD_ANNOTATION(lock_returned(x))
#define ORDO_NO_THREAD_SAFETY_ANALYSIS ORDO_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace ordo::base {

// std::mutex with annotations: members marked ORDO_GUARDED_BY(mu) may be used
// only while mu is held, which clang checks at compile time.
class ORDO_CAPABILITY("mutex") Mutex {
 public:
  void lock() ORDO_ACQUIRE() { mu_.lock(); }
  void unlock() ORDO_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// Holds a Mutex for its scope.
class ORDO_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ORDO_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() ORDO_RELEASE() { mu_.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

}  // namespace ordo::base
