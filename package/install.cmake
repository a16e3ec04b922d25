# Install rules: headers, the four libraries (six with the replica), the CMake
# package (lib/cmake/ordo) and the pkg-config files (lib/pkgconfig).
# docs/USING.md says how they are used. Each rule names its component, the
# Debian package that holds it (package/deb.cmake): runtime (the shared
# libraries' files by SONAME), development (the rest), tools (tools/).
include(CMakePackageConfigHelpers)

# Public headers only: btree/ and io/ headers are internal.
install(DIRECTORY
    ${PROJECT_SOURCE_DIR}/base/include/ordo
    ${PROJECT_SOURCE_DIR}/engine/include/ordo
    ${PROJECT_SOURCE_DIR}/idgen/include/ordo
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development
  FILES_MATCHING PATTERN "*.h")

# Two export sets: a shared-library consumer needs none of the static libraries'
# dependencies (liburing, xxHash), so ordoConfig.cmake looks for them only for these.
# The unversioned libordo.so link is what a build links against: development.
install(TARGETS ordo_engine_shared ordo_idgen_shared EXPORT ordoTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development)
install(TARGETS ordo_engine_static ordo_idgen_static EXPORT ordoStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
# The replica, when built: its header and two export sets of its own, which
# ordoConfig.cmake loads when they are there (component replica).
if(TARGET ordo_replica_shared)
  install(FILES ${PROJECT_SOURCE_DIR}/replica/include/ordo/replica.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ordo COMPONENT development)
  install(TARGETS ordo_replica_shared EXPORT ordoReplicaTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development)
  install(TARGETS ordo_replica_static EXPORT ordoReplicaStaticTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
endif()

set(ordo_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ordo)
install(EXPORT ordoTargets NAMESPACE ordo:: DESTINATION ${ordo_cmake_dir}
  COMPONENT development)
install(EXPORT ordoStaticTargets NAMESPACE ordo:: DESTINATION ${ordo_cmake_dir}
  COMPONENT development)
if(TARGET ordo_replica_shared)
  install(EXPORT ordoReplicaTargets NAMESPACE ordo:: DESTINATION ${ordo_cmake_dir}
    COMPONENT development)
  install(EXPORT ordoReplicaStaticTargets NAMESPACE ordo:: DESTINATION ${ordo_cmake_dir}
    COMPONENT development)
endif()
configure_package_config_file(ordoConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/ordoConfig.cmake
  INSTALL_DESTINATION ${ordo_cmake_dir})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ordoConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
    ${CMAKE_CURRENT_BINARY_DIR}/ordoConfig.cmake
    ${CMAKE_CURRENT_BINARY_DIR}/ordoConfigVersion.cmake
  DESTINATION ${ordo_cmake_dir} COMPONENT development)

# pkg-config: relocatable (prefix found from the .pc file's own directory), so that
# `cmake --install --prefix P` and DESTDIR staging give working files. Installed
# with prefix /usr (the Debian packages, package/deb.cmake), the files say
# prefix=/usr, as a distribution's do: pkg-config then prints -I/usr/include,
# not a path through lib/<multiarch>/pkgconfig/../../... The choice is made at
# install time, since cpack installs with prefix /usr whatever the build's
# CMAKE_INSTALL_PREFIX. The static
# libraries' dependencies are Libs.private, not Requires.private: pkg-config would
# otherwise want liburing.pc and libxxhash.pc even to compile against the headers.
set(ordo_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(ordo_pc_relocatable_prefix "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH to_prefix "/prefix/${ordo_pc_dir}" "/prefix")
  string(REGEX REPLACE "/$" "" to_prefix "${to_prefix}")
  set(ordo_pc_relocatable_prefix "\${pcfiledir}/${to_prefix}")
endif()
# ordo_install_pc(NAME): NAME.pc from NAME.pc.in in both kinds (build dir and
# build dir/usr), and the install rule that picks one.
function(ordo_install_pc name)
  set(ORDO_PC_PREFIX "${ordo_pc_relocatable_prefix}")
  configure_file(${name}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc @ONLY)
  set(ORDO_PC_PREFIX /usr)
  configure_file(${name}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/usr/${name}.pc @ONLY)
  set(destination "${ordo_pc_dir}")
  if(NOT IS_ABSOLUTE "${destination}")
    set(destination "\${CMAKE_INSTALL_PREFIX}/${destination}")
  endif()
  install(CODE "
    set(_ordo_pc \"${CMAKE_CURRENT_BINARY_DIR}/${name}.pc\")
    if(CMAKE_INSTALL_PREFIX MATCHES \"^/usr/?$\")
      set(_ordo_pc \"${CMAKE_CURRENT_BINARY_DIR}/usr/${name}.pc\")
    endif()
    file(INSTALL DESTINATION \"${destination}\" TYPE FILE FILES \"\${_ordo_pc}\")"
    COMPONENT development)
endfunction()
# ordo_pc_libs_private(OUT PREFIX...): the libraries pkg-config found for each PREFIX
# (URING, XXHASH, ...), without the compiler's own -L directories, then -pthread
# -lstdc++: a Libs.private line.
function(ordo_pc_libs_private out)
  set(deps "")
  foreach(prefix IN LISTS ARGN)
    foreach(dir IN LISTS ${prefix}_LIBRARY_DIRS)
      if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES AND NOT "-L${dir}" IN_LIST deps)
        list(APPEND deps "-L${dir}")
      endif()
    endforeach()
  endforeach()
  foreach(prefix IN LISTS ARGN)
    foreach(lib IN LISTS ${prefix}_LIBRARIES)
      list(APPEND deps "-l${lib}")
    endforeach()
  endforeach()
  list(APPEND deps -pthread -lstdc++)
  list(JOIN deps " " deps)
  set(${out} "${deps}" PARENT_SCOPE)
endfunction()
# liburing, xxHash and libdl for the engine.
set(ORDO_PC_DL_LIBRARIES ${CMAKE_DL_LIBS})
ordo_pc_libs_private(ORDO_PC_LIBS_PRIVATE URING XXHASH ORDO_PC_DL)
set(ORDO_IDGEN_PC_LIBS_PRIVATE "-pthread -lstdc++")
ordo_install_pc(ordo)
ordo_install_pc(ordo-idgen)
# libraft, libuv, xxHash and OpenSSL for the replica; it requires ordo (and so ordo-idgen).
if(TARGET ordo_replica_shared)
  ordo_pc_libs_private(ORDO_REPLICA_PC_LIBS_PRIVATE RAFT LIBUV XXHASH OPENSSL)
  ordo_install_pc(ordo-replica)
endif()
