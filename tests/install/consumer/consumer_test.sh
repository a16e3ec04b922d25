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
# The Debian packages (package/deb.cmake; label package) go through the same steps:
#
#   consumer_test.sh deb BUILD_DIR DIR          cpack -G DEB of BUILD_DIR into DIR/debs, their
#                                               control fields and contents checked, each
#                                               unpacked with dpkg -x into DIR/root
#   consumer_test.sh tools PREFIX WORK          PREFIX/bin/ordo (--version, load, info, get)
#                                               and ordo-node (--help)
#   consumer_test.sh python_module PREFIX WORK  the Python module of python3-ordo imported from
#                                               PREFIX, python/examples/quickstart.py run with it
# with PREFIX DIR/root/usr for cxx_shared, cxx_static, pkgconfig, c and replica_shared.
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

# pkg_config_env PREFIX: pkg-config finds ordo's .pc files under PREFIX. A .pc file
# with an absolute prefix (/usr, from a Debian package) unpacked under a scratch
# root: that root is pkg-config's sysroot.
pkg_config_env() {
  local prefix="$1" lib pc_prefix
  lib="$(libdir_of "$prefix")"
  export PKG_CONFIG_PATH="$lib/pkgconfig"
  pc_prefix="$(sed -n 's/^prefix=//p' "$lib/pkgconfig/ordo.pc")"
  if [[ "$pc_prefix" == /* ]]; then
    [[ "$prefix" == *"$pc_prefix" ]] || die "ordo.pc's prefix $pc_prefix is not the end of $prefix"
    export PKG_CONFIG_SYSROOT_DIR="${prefix%"$pc_prefix"}"
  fi
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
  pkg_config_env "$prefix"
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
  pkg_config_env "$prefix"
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
  pkg_config_env "$prefix"
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

# The package of each install component (package/deb.cmake).
deb_package_of() {
  case "$1" in
    runtime) echo libordo0 ;;
    development) echo libordo-dev ;;
    tools) echo ordo-tools ;;
    python) echo python3-ordo ;;
    *) die "install component $1 has no Debian package (package/deb.cmake)" ;;
  esac
}

# deb_field DEB FIELD: one control field of DEB.
deb_field() { dpkg-deb --field "$1" "$2"; }

# deb_files DEB: the files and links DEB installs, one path a line (./usr/...).
deb_files() { dpkg-deb --fsys-tarfile "$1" | tar -t | grep -v '/$' | sort; }

step_deb() {
  local build="$1" dir="$2"
  rm -rf "$dir"
  mkdir -p "$dir/debs" "$dir/root" "$dir/all"
  cpack -G DEB -B "$dir/debs" --config "$build/CPackConfig.cmake" > "$dir/cpack.log" 2>&1 ||
    { cat "$dir/cpack.log"; die "cpack -G DEB"; }
  # The components CPack packages, from the configuration it read.
  local components component package debs=() packages=()
  components="$(sed -n 's/^set(CPACK_COMPONENTS_ALL "\(.*\)")$/\1/p' "$build/CPackConfig.cmake" |
    tr ';' ' ')"
  [[ -n "$components" ]] || die "no CPACK_COMPONENTS_ALL in $build/CPackConfig.cmake"
  local arch version
  arch="$(dpkg --print-architecture)"
  version="$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/package/ordoConfigVersion.cmake")"
  [[ -n "$version" ]] || die "no PACKAGE_VERSION in $build/package/ordoConfigVersion.cmake"
  for component in $components; do
    package="$(deb_package_of "$component")"
    local deb="$dir/debs/${package}_${version}_${arch}.deb"
    [[ -f "$deb" ]] || die "cpack made no $(basename "$deb"): $(ls "$dir/debs")"
    debs+=("$deb")
    packages+=("$package")
    [[ "$(deb_field "$deb" Package)" == "$package" ]] || die "$deb: Package"
    [[ "$(deb_field "$deb" Version)" == "$version" ]] || die "$deb: Version"
    [[ "$(deb_field "$deb" Architecture)" == "$arch" ]] || die "$deb: Architecture"
    [[ "$(deb_field "$deb" Maintainer)" == "ordo developers" ]] || die "$deb: Maintainer"
    [[ -n "$(deb_field "$deb" Section)" && -n "$(deb_field "$deb" Description)" ]] ||
      die "$deb: no Section or Description"
    echo "$package: Depends: $(deb_field "$deb" Depends)"
  done
  [[ "${packages[*]}" == *libordo0*libordo-dev* ]] || die "no libordo0 and libordo-dev: ${packages[*]}"
  if (($(find "$dir/debs" -maxdepth 1 -name '*.deb' | wc -l) != ${#debs[@]})); then
    die "cpack made other packages: $(ls "$dir/debs")"
  fi

  local files depends
  for deb in "${debs[@]}"; do
    package="$(deb_field "$deb" Package)"
    files="$(deb_files "$deb")"
    depends="$(deb_field "$deb" Depends)"
    case "$package" in
      libordo0)
        # The shared libraries by SONAME only; ldconfig run on install, shlibs for dependants.
        if grep -vE '/libordo[a-z_]*\.so\.0(\.[0-9.]+)?$' <<< "$files"; then
          die "libordo0 holds more than libordo*.so.0*"
        fi
        grep -q '/libordo\.so\.0$' <<< "$files" || die "libordo0 lacks libordo.so.0"
        grep -q '/libordo_idgen\.so\.0$' <<< "$files" || die "libordo0 lacks libordo_idgen.so.0"
        dpkg-deb --info "$deb" postinst | grep -q ldconfig || die "libordo0: no ldconfig in postinst"
        dpkg-deb --info "$deb" shlibs | grep -q "^libordo 0 libordo0 (= $version)" ||
          die "libordo0: shlibs: $(dpkg-deb --info "$deb" shlibs)"
        grep -q "libc6" <<< "$depends" || die "libordo0: Depends has no libc6 (dpkg-shlibdeps): $depends"
        grep -q "liburing2" <<< "$depends" || die "libordo0: Depends has no liburing2: $depends"
        ;;
      libordo-dev)
        if grep -E '\.so\.[0-9]' <<< "$files"; then die "libordo-dev holds versioned shared libraries"; fi
        for f in include/ordo/database.h include/ordo/ordo.h libordo.a libordo.so cmake/ordo/ordoConfig.cmake \
          pkgconfig/ordo.pc; do
          grep -q "/$f\$" <<< "$files" || die "libordo-dev lacks $f"
        done
        grep -qF "libordo0 (= $version)" <<< "$depends" || die "libordo-dev: Depends: $depends"
        ;;
      ordo-tools)
        if grep -vE '^\./usr/bin/ordo(-node)?$' <<< "$files"; then die "ordo-tools holds more than bin/ordo*"; fi
        grep -q "libc6" <<< "$depends" || die "ordo-tools: Depends has no libc6 (dpkg-shlibdeps): $depends"
        ;;
      python3-ordo)
        grep -q "python3 (>= " <<< "$depends" || die "python3-ordo: Depends: $depends"
        grep -qE '/python3[^/]*/.*(/ordo[^/]*\.so|/ordo/__init__\.py)$' <<< "$files" ||
          die "python3-ordo holds no Python module ordo: $files"
        ;;
    esac
    # Each dependency outside ordo's packages is a Debian package installed here,
    # where the build linked against it.
    local clause dep satisfied
    while IFS= read -r clause; do
      [[ -n "$clause" ]] || continue
      satisfied=0
      for dep in $(tr '|' '\n' <<< "$clause" | sed -E 's/\(.*\)//; s/:any//'); do
        case " ${packages[*]} " in *" $dep "*) satisfied=1 ;; esac
        if dpkg-query -W -f='${Status}' "$dep" 2> /dev/null | grep -q "install ok installed"; then
          satisfied=1
        fi
      done
      ((satisfied)) || die "$package depends on $clause: no such package installed here"
    done < <(tr ',' '\n' <<< "$depends")
    dpkg-deb --extract "$deb" "$dir/root"
  done

  # Every file that `cmake --install` puts in place is in one package, and no package
  # holds one twice.
  DESTDIR="$dir/all" cmake --install "$build" --prefix /usr > /dev/null
  local installed packaged
  installed="$(cd "$dir/all" && find . ! -type d | sort)"
  packaged="$(for deb in "${debs[@]}"; do deb_files "$deb"; done | sort)"
  if [[ "$installed" != "$packaged" ]]; then
    diff <(echo "$installed") <(echo "$packaged") >&2 || true
    die "the packages' files differ from cmake --install's (<: installed only, >: packaged)"
  fi
  # The CMake package and the .pc files name no path of the build or the staging.
  if grep -rlE "$dir|$build|_CPack_Packages" "$dir/root/usr/lib" --include='*.cmake' --include='*.pc'; then
    die "build or staging paths in the installed package files"
  fi
  echo "$(basename -a "${debs[@]}" | tr '\n' ' ')unpacked into $dir/root: $(wc -l <<< "$packaged") files"
}

# The programs of ordo-tools, from PREFIX/bin: linked with ordo statically.
step_tools() {
  local prefix="$1" work="$2" bin="$1/bin"
  rm -rf "$work"
  mkdir -p "$work"
  local version
  version="$("$bin/ordo" --version)"
  [[ "$version" =~ ^ordo\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || die "ordo --version: $version"
  echo "$version"
  printf 'VERSION=3\nformat=print\ntype=btree\nHEADER=END\n ada\n Lovelace\nDATA=END\n' |
    "$bin/ordo" load "$work/tools.ordo" || die "ordo load"
  "$bin/ordo" info "$work/tools.ordo" > "$work/info.txt" || die "ordo info"
  grep -q "^format version" "$work/info.txt" || die "ordo info: $(cat "$work/info.txt")"
  [[ "$("$bin/ordo" get "$work/tools.ordo" ada)" == Lovelace ]] || die "ordo get"
  if [[ -e "$bin/ordo-node" ]]; then
    "$bin/ordo-node" --help > "$work/node-help.txt" || die "ordo-node --help"
    grep -q "ordo-node" "$work/node-help.txt" || die "ordo-node --help: $(cat "$work/node-help.txt")"
  fi
}

# The Python module of python3-ordo (when built): imported from PREFIX, then the
# quickstart example run with it.
step_python_module() {
  local prefix="$1" work="$2" lib module
  rm -rf "$work"
  mkdir -p "$work"
  lib="$(libdir_of "$prefix")"
  module="$(find "$prefix" -path '*python3*' \( -name 'ordo*.so' -o -name '__init__.py' -path '*/ordo/*' \) \
    -print -quit)"
  if [[ -z "$module" ]]; then
    echo "no Python module under $prefix (python3-ordo not built): nothing to test"
    return
  fi
  local path
  path="$(dirname "$module")"
  [[ "$module" == */ordo/__init__.py ]] && path="$(dirname "$path")"
  export PYTHONPATH="$path" LD_LIBRARY_PATH="$lib"
  (cd "$work" && python3 -c 'import ordo; print("import ordo:", ordo.__file__)') ||
    die "import ordo from $path"
  local quickstart="$HERE/../../../python/examples/quickstart.py"
  if [[ -f "$quickstart" ]]; then
    (cd "$work" && python3 "$quickstart") || die "python/examples/quickstart.py"
  fi
}

main() {
  (($# == 3)) || die "usage: consumer_test.sh STEP PREFIX|BUILD_DIR WORK|PREFIX"
  local step="$1"
  shift
  declare -F "step_$step" > /dev/null || die "unknown step $step"
  # Absolute paths: the consumers' builds run in other directories.
  "step_$step" "$(realpath -m "$1")" "$(realpath -m "$2")"
}

main "$@"
