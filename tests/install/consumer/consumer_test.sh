#!/usr/bin/env bash
# The installed package seen from a user's side; each STEP is one ctest test
# (tests/install/CMakeLists.txt, label install), all sharing one install PREFIX:
#
#   consumer_test.sh install BUILD_DIR PREFIX   cmake --install BUILD_DIR into a fresh PREFIX
#   consumer_test.sh symbols PREFIX WORK        what libordo.so and libordo_idgen.so export
#   consumer_test.sh cxx_shared PREFIX WORK     tests/install/consumer/cxx with find_package, ordo::engine
#   consumer_test.sh cxx_static PREFIX WORK     the same with ordo::engine_static
#   consumer_test.sh pkgconfig PREFIX WORK      cxx/main.cc built with pkg-config ordo (shared, static)
#   consumer_test.sh c PREFIX WORK              tests/install/consumer/c: C11, only ordo/ordo.h, pkg-config ordo
#   consumer_test.sh python PREFIX WORK         tests/install/consumer/python: ctypes over the installed libordo.so
#   consumer_test.sh replica_shared PREFIX WORK tests/install/consumer/replica with ordo::replica, then
#                                               pkg-config ordo-replica (a build with ORDO_BUILD_REPLICA)
#   consumer_test.sh replica_static PREFIX WORK the same with ordo::replica_static
#
# A new consumer (C, Python) is one step_<name> function here and one
# ordo_consumer_test(<name>) line in tests/install/CMakeLists.txt.
# Environment: CXX (the compiler of the build), ORDO_CONSUMER_GENERATOR (CMake generator).
set -euo pipefail

readonly HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CXX="${CXX:-c++}"

die() {
  echo "FAIL: $*" >&2
  exit 1
}

# The directory holding libordo.so: lib, or lib/<multiarch> with prefix /usr.
libdir_of() {
  local dir
  dir="$(dirname "$(find "$1" -name 'libordo.so' -print -quit)")"
  [[ -n "$dir" && "$dir" != . ]] || die "no libordo.so under $1"
  echo "$dir"
}

step_install() {
  local build="$1" prefix="$2"
  rm -rf "$prefix"
  cmake --install "$build" --prefix "$prefix" > /dev/null
  local lib
  lib="$(libdir_of "$prefix")"
  local f
  for f in libordo.so.0 libordo.a libordo_idgen.so.0 libordo_idgen.a cmake/ordo/ordoConfig.cmake \
    cmake/ordo/ordoConfigVersion.cmake cmake/ordo/ordoTargets.cmake pkgconfig/ordo.pc \
    pkgconfig/ordo-idgen.pc; do
    [[ -e "$lib/$f" ]] || die "not installed: $lib/$f"
  done
  for f in database.h diagnostics.h options.h status.h byte_view.h ordo.h uuid.h id64.h uuid_v7_generator.h clock.h; do
    [[ -f "$prefix/include/ordo/$f" ]] || die "not installed: include/ordo/$f"
  done
  # The replica's library, header and package files come together, or not at all.
  if [[ -e "$lib/libordo_replica.so.0" ]]; then
    for f in libordo_replica.a cmake/ordo/ordoReplicaTargets.cmake \
      cmake/ordo/ordoReplicaStaticTargets.cmake pkgconfig/ordo-replica.pc; do
      [[ -e "$lib/$f" ]] || die "not installed: $lib/$f"
    done
    [[ -f "$prefix/include/ordo/replica.h" ]] || die "not installed: include/ordo/replica.h"
  elif [[ -e "$prefix/include/ordo/replica.h" ]]; then
    die "include/ordo/replica.h installed without libordo_replica.so.0"
  fi
  # btree/ and io/ headers are internal.
  if find "$prefix/include" -mindepth 2 -type d | grep -q .; then
    die "internal headers installed: $(find "$prefix/include" -mindepth 2 -type d)"
  fi
  echo "installed into $prefix: $(find "$prefix" -type f | wc -l) files"
}

# Each exported C++ symbol must belong to a class, struct, function or inline
# variable that the installed headers define; the C API is ordo_*; nothing else (no C++ library
# instances, no internal namespace, no *Impl class).
check_exports() {
  local so="$1" headers="$2" must="$3"
  local symbols bad=0 line name rx
  symbols="$(nm -DC --defined-only --format=just-symbols "$so")"
  grep -qF "$must" <<< "$symbols" || die "$so does not export $must"
  while IFS= read -r line; do
    line="${line#typeinfo name for }"
    line="${line#typeinfo for }"
    line="${line#vtable for }"
    line="${line#VTT for }"
    line="${line#non-virtual thunk to }"
    line="${line#virtual thunk to }"
    case "$line" in
      ordo_*) continue ;;
      ordo::*) ;;
      *) echo "  not ordo's: $line" >&2; bad=1; continue ;;
    esac
    # The first name after ordo:: and after any namespace the headers declare
    # (ordo::inspect::trees -> trees); internal namespaces are in no header.
    local rest="${line#ordo::}"
    name="$(sed -E 's/^([A-Za-z_][A-Za-z0-9_]*).*/\1/' <<< "$rest")"
    while [[ "$rest" == "$name::"* ]] &&
      grep -hEq "^namespace (ordo::)?$name( |\{|$)" "$headers"/*.h; do
      rest="${rest#"$name"::}"
      name="$(sed -E 's/^([A-Za-z_][A-Za-z0-9_]*).*/\1/' <<< "$rest")"
    done
    rx="^\s*(class|struct)\s+(\[\[[^]]*\]\]\s+)?$name(\s+final)?\s*(:|\{)|[ *&]$name\(|^inline .* $name = "
    [[ "$name" == operator ]] && rx="[ *&]operator[^A-Za-z0-9_ ]+\("  # ordo::operator==(...)
    if ! grep -hEq "$rx" "$headers"/*.h; then
      echo "  not in the public headers: $line" >&2
      bad=1
    fi
  done <<< "$symbols"
  ((bad == 0)) || die "$so exports more than the public API"
  if readelf -d "$so" | grep -q mimalloc; then die "$so links mimalloc"; fi
  echo "$(basename "$so"): $(wc -l <<< "$symbols") symbols, all public API"
}

step_symbols() {
  local prefix="$1" lib
  lib="$(libdir_of "$prefix")"
  check_exports "$lib/libordo.so" "$prefix/include/ordo" "ordo::Database::open("
  check_exports "$lib/libordo_idgen.so" "$prefix/include/ordo" "ordo::Uuid::to_string"
  readelf -d "$lib/libordo.so" | grep -q 'SONAME.*\[libordo.so.0\]' || die "libordo.so: SONAME"
  if [[ -e "$lib/libordo_replica.so" ]]; then
    check_exports "$lib/libordo_replica.so" "$prefix/include/ordo" "ordo::replica::Replica::open("
    readelf -d "$lib/libordo_replica.so" | grep -q 'SONAME.*\[libordo_replica.so.0\]' ||
      die "libordo_replica.so: SONAME"
  fi
}

# A build log must hold no warning (the consumer compiles with -Wall -Wextra).
no_warnings() {
  if grep -iE "warning" "$1"; then die "warnings in $1"; fi
}

# build_consumer DIR KIND PREFIX WORK: configure and build the CMake project
# tests/install/consumer/DIR against PREFIX in WORK/build (KIND static:
# -DORDO_CONSUMER_STATIC=ON), with no warning; WORK/link.txt gets the link line.
build_consumer() {
  local dir="$1" kind="$2" prefix="$3" work="$4"
  local static=OFF
  [[ "$kind" == static ]] && static=ON
  local generator=()
  [[ -n "${ORDO_CONSUMER_GENERATOR:-}" ]] && generator=(-G "$ORDO_CONSUMER_GENERATOR")
  cmake -S "$HERE/$dir" -B "$work/build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_PREFIX_PATH="$prefix" -DORDO_CONSUMER_STATIC=$static > "$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; die "configure $dir ($kind)"; }
  no_warnings "$work/configure.log"
  cmake --build "$work/build" --verbose > "$work/build.log" 2>&1 ||
    { cat "$work/build.log"; die "build $dir ($kind)"; }
  no_warnings "$work/build.log"
  grep -E -- "-o consumer( |$)" "$work/build.log" > "$work/link.txt" || die "no link line in $work/build.log"
}

# cxx_consumer KIND PREFIX WORK: configure, build and run tests/install/consumer/cxx.
cxx_consumer() {
  local kind="$1" prefix="$2" work="$3"
  rm -rf "$work"
  mkdir -p "$work/db"
  build_consumer cxx "$kind" "$prefix" "$work"
  # liburing and xxHash are the static library's to bring, never the shared one's.
  local link
  link="$(cat "$work/link.txt")"
  if [[ "$kind" == shared ]]; then
    if grep -qE "uring|xxhash" <<< "$link"; then die "private dependencies on the link line: $link"; fi
    grep -q "libordo.so" <<< "$link" || die "not linked with libordo.so: $link"
  else
    grep -q "libordo.a" <<< "$link" || die "not linked with libordo.a: $link"
    if ldd "$work/build/consumer" | grep -q libordo; then die "static consumer needs libordo.so"; fi
  fi
  "$work/build/consumer" "$work/db"
}

step_cxx_shared() { cxx_consumer shared "$@"; }
step_cxx_static() { cxx_consumer static "$@"; }

step_pkgconfig() {
  local prefix="$1" work="$2" lib
  rm -rf "$work"
  mkdir -p "$work/db-shared" "$work/db-static"
  lib="$(libdir_of "$prefix")"
  export PKG_CONFIG_PATH="$lib/pkgconfig"
  local cflags libs static_libs
  cflags="$(pkg-config --cflags ordo)"
  libs="$(pkg-config --libs ordo)"
  static_libs="$(pkg-config --static --libs ordo)"
  echo "pkg-config --cflags --libs ordo: $cflags $libs"
  echo "pkg-config --static --libs ordo: $static_libs"
  # shellcheck disable=SC2086  # flag lists
  "$CXX" -std=c++20 -Wall -Wextra $cflags "$HERE/cxx/main.cc" -o "$work/consumer" $libs -ldl \
    > "$work/build.log" 2>&1 || { cat "$work/build.log"; die "build with pkg-config"; }
  no_warnings "$work/build.log"
  LD_LIBRARY_PATH="$lib" "$work/consumer" "$work/db-shared"
  # Static: the archives by name (beside the .so, -lordo would pick the .so), then
  # every Libs.private and Requires of the --static output.
  static_libs="$(sed -E 's/(^| )-lordo( |$)/\1-l:libordo.a\2/; s/(^| )-lordo_idgen( |$)/\1-l:libordo_idgen.a\2/' \
    <<< "$static_libs")"
  # shellcheck disable=SC2086
  "$CXX" -std=c++20 -Wall -Wextra $cflags "$HERE/cxx/main.cc" -o "$work/consumer-static" \
    $static_libs > "$work/build-static.log" 2>&1 ||
    { cat "$work/build-static.log"; die "static build with pkg-config --static"; }
  no_warnings "$work/build-static.log"
  if ldd "$work/consumer-static" | grep -q libordo; then die "static consumer needs libordo.so"; fi
  "$work/consumer-static" "$work/db-static"
}

# A C11 program through pkg-config, using only ordo/ordo.h; cc is what a C user has.
step_c() {
  local prefix="$1" work="$2" lib
  rm -rf "$work"
  mkdir -p "$work/db"
  lib="$(libdir_of "$prefix")"
  export PKG_CONFIG_PATH="$lib/pkgconfig"
  local cc="${CC:-cc}" cflags libs
  cflags="$(pkg-config --cflags ordo)"
  libs="$(pkg-config --libs ordo)"
  # shellcheck disable=SC2086  # flag lists
  "$cc" -std=c11 -Wall -Wextra -pedantic $cflags "$HERE/c/consumer.c" -o "$work/consumer" $libs \
    > "$work/build.log" 2>&1 || { cat "$work/build.log"; die "C build with pkg-config"; }
  no_warnings "$work/build.log"
  LD_LIBRARY_PATH="$lib" "$work/consumer" "$work/db"
}

# Python's ctypes over the installed shared library: what a binding loads.
step_python() {
  local prefix="$1" work="$2" lib
  rm -rf "$work"
  mkdir -p "$work/db"
  lib="$(libdir_of "$prefix")"
  python3 "$HERE/python/consumer.py" "$lib/libordo.so.0" "$work/db"
}

# replica_consumer KIND PREFIX WORK: configure, build and run tests/install/consumer/replica.
replica_consumer() {
  local kind="$1" prefix="$2" work="$3" lib
  rm -rf "$work"
  mkdir -p "$work"
  lib="$(libdir_of "$prefix")"
  [[ -e "$lib/libordo_replica.so.0" ]] || die "libordo_replica.so.0 is not installed under $lib"
  build_consumer replica "$kind" "$prefix" "$work"
  local link
  link="$(cat "$work/link.txt")"
  if [[ "$kind" == shared ]]; then
    # libraft and libuv are the static library's to bring, never the shared one's.
    if grep -qE "(-l|lib)(raft|uv)([.]| |$)" <<< "$link"; then
      die "private dependencies on the link line: $link"
    fi
    grep -q "libordo_replica.so" <<< "$link" || die "not linked with libordo_replica.so: $link"
  else
    grep -q "libordo_replica.a" <<< "$link" || die "not linked with libordo_replica.a: $link"
    if ldd "$work/build/consumer" | grep -q libordo; then die "static consumer needs libordo*.so"; fi
  fi
  (cd "$work" && "$work/build/consumer")
}

step_replica_shared() {
  replica_consumer shared "$@"
  local prefix="$1" work="$2" lib
  lib="$(libdir_of "$prefix")"
  export PKG_CONFIG_PATH="$lib/pkgconfig"
  local cflags libs
  cflags="$(pkg-config --cflags ordo-replica)"
  libs="$(pkg-config --libs ordo-replica)"
  echo "pkg-config --cflags --libs ordo-replica: $cflags $libs"
  # shellcheck disable=SC2086  # flag lists
  "$CXX" -std=c++20 -Wall -Wextra $cflags "$HERE/replica/main.cc" -o "$work/consumer-pkgconfig" \
    $libs > "$work/build-pkgconfig.log" 2>&1 ||
    { cat "$work/build-pkgconfig.log"; die "build with pkg-config ordo-replica"; }
  no_warnings "$work/build-pkgconfig.log"
  (cd "$work" && LD_LIBRARY_PATH="$lib" "$work/consumer-pkgconfig")
}
step_replica_static() { replica_consumer static "$@"; }

main() {
  (($# == 3)) || die "usage: consumer_test.sh STEP PREFIX|BUILD_DIR WORK|PREFIX"
  local step="$1"
  shift
  declare -F "step_$step" > /dev/null || die "unknown step $step"
  "step_$step" "$@"
}

main "$@"
