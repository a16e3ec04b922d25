# Debian packages of the install rules' components (`cpack -G DEB` in a build
# directory; `tools/dev deb` configures, builds and packages; docs/USING.md):
#   libordo0     runtime      libordo.so.0, libordo_idgen.so.0 (and libordo_replica.so.0)
#   libordo-dev  development  headers, the .so links, the static libraries, the CMake
#                             package and the pkg-config files
#   ordo-tools   tools        the `ordo` tool and `ordo-node`
#   python3-ordo python       the Python module, when python/ installs one
# Included at the end of the top-level CMakeLists.txt (package/CMakeLists.txt
# defers it there): CPack packages the components that the install rules have
# named by then.
include(GNUInstallDirs)

# The packages of the components that have install rules in this build (tools
# without ORDO_BUILD_TOOLS, python without python/ have none).
get_cmake_property(ordo_components COMPONENTS)
set(ordo_deb_components "")
foreach(component IN ITEMS runtime development tools python)
  if(component IN_LIST ordo_components)
    list(APPEND ordo_deb_components ${component})
  endif()
endforeach()
# An install rule without a component (or with another name) would be in no
# package: say so here; the package test fails on it too.
set(ordo_unpackaged ${ordo_components})
list(REMOVE_ITEM ordo_unpackaged runtime development tools python)
if(ordo_unpackaged)
  message(WARNING "install components in no Debian package: ${ordo_unpackaged} "
    "(give each install() rule COMPONENT runtime, development, tools or python)")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ordo)
set(CPACK_PACKAGE_VENDOR "ordo developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_COMPONENTS_ALL ${ordo_deb_components})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Release packages carry no debug information; the static libraries are left as built.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # NAME_VERSION_ARCH.deb; the architecture is dpkg's
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "ordo developers")
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
# Depends of each binary from dpkg-shlibdeps (libc6, liburing2, libraft2, ...), and
# between ordo's packages from the components' DEPENDS with "(= version)".
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
# libordo0's DEBIAN/shlibs, and ldconfig run on its install and removal.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libordo0)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
"embedded copy-on-write B+-tree key-value engine (shared libraries)
ordo stores named trees of byte keys and values in one file, with
serializable write transactions and snapshot reads. This package holds
libordo.so.0 and libordo_idgen.so.0 (UUIDv7 and 64-bit ID generators)
and, when built with replication, libordo_replica.so.0.")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libordo-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEVELOPMENT_DEPENDS runtime)
# What the static libraries' users link (Libs.private, ordoConfig.cmake's
# component static), and pkg-config for ordo.pc.
set(ordo_dev_recommends pkg-config liburing-dev libxxhash-dev)
if(TARGET ordo_replica_shared)
  list(APPEND ordo_dev_recommends libraft-dev libuv1-dev libssl-dev)
endif()
list(JOIN ordo_dev_recommends ", " CPACK_DEBIAN_DEVELOPMENT_PACKAGE_RECOMMENDS)
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION
"embedded copy-on-write B+-tree key-value engine (development files)
The C++20 and C headers of ordo, libordo.a and libordo_idgen.a, the
CMake package (find_package(ordo): ordo::engine, ordo::engine_static)
and the pkg-config files ordo.pc and ordo-idgen.pc; with replication,
ordo/replica.h, libordo_replica.a and ordo-replica.pc.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME ordo-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION database)
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
"embedded copy-on-write B+-tree key-value engine (command-line tools)
ordo inspects, checks, dumps, loads, copies and upgrades ordo database
files; ordo-node serves an ordo database replicated on Raft, and is its
command-line client. Both are linked with ordo statically.")

if(python IN_LIST ordo_deb_components)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-ordo)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  # The module links the engine statically (python/CMakeLists.txt): no libordo0.
  # It is built for one Python minor version: the system's python3, as python/ prefers.
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_FOUND)
    math(EXPR ordo_python_next "${Python3_VERSION_MINOR} + 1")
    set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
      "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${ordo_python_next})")
  else()
    set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS python3)
  endif()
  set(CPACK_DEBIAN_PYTHON_DESCRIPTION
"embedded copy-on-write B+-tree key-value engine (Python 3 module)
The Python 3 package ordo: databases, transactions, trees and cursors,
with the engine linked in.")
endif()

include(CPack)
