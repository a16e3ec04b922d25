# Install rules: headers, the four libraries, the CMake package (lib/cmake/ordo)
# and the pkg-config files (lib/pkgconfig). docs/USING.md says how they are used.
include(CMakePackageConfigHelpers)

# Public headers only: btree/ and io/ headers are internal.
install(DIRECTORY
    ${PROJECT_SOURCE_DIR}/base/include/ordo
    ${PROJECT_SOURCE_DIR}/engine/include/ordo
    ${PROJECT_SOURCE_DIR}/idgen/include/ordo
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")

# Two export sets: a shared-library consumer needs none of the static libraries'
# dependencies (liburing, xxHash), so ordoConfig.cmake looks for them only for these.
install(TARGETS ordo_engine_shared ordo_idgen_shared EXPORT ordoTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS ordo_engine_static ordo_idgen_static EXPORT ordoStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

set(ordo_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ordo)
install(EXPORT ordoTargets NAMESPACE ordo:: DESTINATION ${ordo_cmake_dir})
install(EXPORT ordoStaticTargets NAMESPACE ordo:: DESTINATION ${ordo_cmake_dir})
configure_package_config_file(ordoConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/ordoConfig.cmake
  INSTALL_DESTINATION ${ordo_cmake_dir})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ordoConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
    ${CMAKE_CURRENT_BINARY_DIR}/ordoConfig.cmake
    ${CMAKE_CURRENT_BINARY_DIR}/ordoConfigVersion.cmake
  DESTINATION ${ordo_cmake_dir})

# pkg-config: relocatable (prefix found from the .pc file's own directory), so that
# `cmake --install --prefix P` and DESTDIR staging give working files. The static
# libraries' dependencies are Libs.private, not Requires.private: pkg-config would
# otherwise want liburing.pc and libxxhash.pc even to compile against the headers.
set(ordo_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(ORDO_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH to_prefix "/prefix/${ordo_pc_dir}" "/prefix")
  string(REGEX REPLACE "/$" "" to_prefix "${to_prefix}")
  set(ORDO_PC_PREFIX "\${pcfiledir}/${to_prefix}")
endif()
# liburing and xxHash as pkg-config found them, without the compiler's own -L directories.
set(ordo_pc_deps "")
foreach(dir IN LISTS URING_LIBRARY_DIRS XXHASH_LIBRARY_DIRS)
  if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES AND NOT "-L${dir}" IN_LIST ordo_pc_deps)
    list(APPEND ordo_pc_deps "-L${dir}")
  endif()
endforeach()
foreach(lib IN LISTS URING_LIBRARIES XXHASH_LIBRARIES CMAKE_DL_LIBS)
  list(APPEND ordo_pc_deps "-l${lib}")
endforeach()
list(JOIN ordo_pc_deps " " ordo_pc_deps)
set(ORDO_PC_LIBS_PRIVATE "${ordo_pc_deps} -pthread -lstdc++")
set(ORDO_IDGEN_PC_LIBS_PRIVATE "-pthread -lstdc++")
configure_file(ordo.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ordo.pc @ONLY)
configure_file(ordo-idgen.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ordo-idgen.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ordo.pc ${CMAKE_CURRENT_BINARY_DIR}/ordo-idgen.pc
  DESTINATION ${ordo_pc_dir})
