# Install and export rules (on by default only at top level: LZ_INSTALL). Produces a relocatable
# package, modelled on fmt's and xtensor's:
#   <prefix>/include/lz/...                     headers of include/, fusion/include, kernels/include
#   <prefix>/<libdir>/liblazuli_kernels.a       the compiled kernels (lazuli::kernels)
#   <prefix>/<libdir>/cmake/lazuli/             lazuli-config.cmake (+ version, targets, dependencies)
#   <prefix>/<libdir>/pkgconfig/lazuli.pc       for pkg-config users
#   <prefix>/share/doc/lazuli/                  LICENSE (Apache-2.0), CHANGELOG.md
# plus a build-tree export: a consumer can set lazuli_DIR to this build directory.
include(CMakePackageConfigHelpers)

set(LZ_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/lazuli")

install(DIRECTORY include/ fusion/include/ kernels/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(TARGETS lazuli lazuli_kernels EXPORT lazuli-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT lazuli-targets NAMESPACE lazuli:: DESTINATION ${LZ_CMAKE_DIR})
install(FILES LICENSE CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Pre-1.0: only the same minor version is API compatible.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/lazuli-config-version.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)

# Installed config (paths relative to itself, so the prefix can move) ...
configure_package_config_file(cmake/lazuli-config.cmake.in
  "${PROJECT_BINARY_DIR}/install/lazuli-config.cmake" INSTALL_DESTINATION ${LZ_CMAKE_DIR})
install(FILES "${PROJECT_BINARY_DIR}/install/lazuli-config.cmake"
              "${PROJECT_BINARY_DIR}/lazuli-config-version.cmake"
        DESTINATION ${LZ_CMAKE_DIR})
install(FILES cmake/LazuliDependencies.cmake DESTINATION ${LZ_CMAKE_DIR}
        RENAME lazuli-dependencies.cmake)

# ... and the build-tree config next to the exported targets in the top build directory.
export(EXPORT lazuli-targets NAMESPACE lazuli:: FILE "${PROJECT_BINARY_DIR}/lazuli-targets.cmake")
configure_package_config_file(cmake/lazuli-config.cmake.in
  "${PROJECT_BINARY_DIR}/lazuli-config.cmake" INSTALL_DESTINATION "${PROJECT_BINARY_DIR}"
  INSTALL_PREFIX "${PROJECT_BINARY_DIR}")
configure_file(cmake/LazuliDependencies.cmake "${PROJECT_BINARY_DIR}/lazuli-dependencies.cmake"
               COPYONLY)

# pkg-config: prefix relative to the .pc file (${pcfiledir}), so it moves with the prefix too.
file(RELATIVE_PATH LZ_PC_PREFIX "/lz_prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/lz_prefix")
string(REGEX REPLACE "/$" "" LZ_PC_PREFIX "${LZ_PC_PREFIX}")
set(LZ_PC_CFLAGS "")
set(LZ_PC_LIBDIRS "")
if(NOT LZ_XSIMD_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  string(APPEND LZ_PC_CFLAGS " -I${LZ_XSIMD_INCLUDE_DIR}")
endif()
if(LZ_KERNELS_SIMD_ARCH) # the compiled math's SIMD target (kernels/CMakeLists.txt)
  string(APPEND LZ_PC_CFLAGS " -DLZ_KERNELS_SIMD_ARCH=${LZ_KERNELS_SIMD_ARCH}")
endif()
get_target_property(_lz_tbb_lib TBB::tbb IMPORTED_LOCATION_RELEASE)
if(NOT _lz_tbb_lib)
  get_target_property(_lz_tbb_lib TBB::tbb IMPORTED_LOCATION_NONE)
endif()
foreach(_lz_lib IN ITEMS "${_lz_tbb_lib}" "${LZ_OPENBLAS_LIBRARY}")
  if(_lz_lib)
    get_filename_component(_lz_dir "${_lz_lib}" DIRECTORY)
    if(NOT _lz_dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
      string(APPEND LZ_PC_LIBDIRS " -L${_lz_dir}")
    endif()
  endif()
endforeach()
configure_file(cmake/lazuli.pc.in "${PROJECT_BINARY_DIR}/install/lazuli.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/install/lazuli.pc"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
