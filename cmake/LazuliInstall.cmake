# Install and export rules (on by default only at top level: LZ_INSTALL). Produces a relocatable
# package, modelled on fmt's and xtensor's:
#   <prefix>/include/lz/...                     headers of include/, fusion/include, kernels/include
#   <prefix>/<libdir>/liblazuli_kernels.a       the compiled kernels (lazuli::kernels)
#   <prefix>/<libdir>/cmake/lazuli/             lazuli-config.cmake (+ version, targets, dependencies)
#   <prefix>/<libdir>/liblazuli_device_*.a      the device backends, component `device`
#                                               (lazuli-device.cmake, lazuli-device-targets.cmake)
#   <prefix>/<libdir>/liblazuli_dist.a          lz::dist (MPI + ScaLAPACK), component `dist`
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

# Component `device`: find_package(lazuli COMPONENTS device) gives lazuli::device_host (Thrust's
# TBB host system, any C++ compiler), lazuli::device_cuda where lazuli was built with CUDA, and
# lazuli::device (the CUDA one when built, else the host one), with the Thrust this build used.
set(_lz_device_targets lazuli_device_host lz_thrust_headers)
if(LZ_HAVE_CUDA)
  list(APPEND _lz_device_targets lazuli_device_cuda)
  set_target_properties(lazuli_device_cuda PROPERTIES EXPORT_NAME device_cuda)
endif()
set_target_properties(lazuli_device_host PROPERTIES EXPORT_NAME device_host)
set_target_properties(lz_thrust_headers PROPERTIES EXPORT_NAME thrust_headers)
install(TARGETS ${_lz_device_targets} EXPORT lazuli-device-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT lazuli-device-targets NAMESPACE lazuli:: DESTINATION ${LZ_CMAKE_DIR})
export(EXPORT lazuli-device-targets NAMESPACE lazuli::
       FILE "${PROJECT_BINARY_DIR}/lazuli-device-targets.cmake")
configure_file(cmake/lazuli-device.cmake.in "${PROJECT_BINARY_DIR}/lazuli-device.cmake" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/lazuli-device.cmake" DESTINATION ${LZ_CMAKE_DIR})
install(FILES cmake/LazuliCudaCxx20.cmake DESTINATION ${LZ_CMAKE_DIR} RENAME lazuli-cuda-cxx20.cmake)
configure_file(cmake/LazuliCudaCxx20.cmake "${PROJECT_BINARY_DIR}/lazuli-cuda-cxx20.cmake" COPYONLY)

# Component `dist`: find_package(lazuli COMPONENTS dist) gives lazuli::dist (MPI + ScaLAPACK).
if(TARGET lazuli_dist)
  install(TARGETS lazuli_dist EXPORT lazuli-dist-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT lazuli-dist-targets NAMESPACE lazuli:: DESTINATION ${LZ_CMAKE_DIR})
  export(EXPORT lazuli-dist-targets NAMESPACE lazuli::
         FILE "${PROJECT_BINARY_DIR}/lazuli-dist-targets.cmake")
  configure_file(cmake/lazuli-dist.cmake.in "${PROJECT_BINARY_DIR}/lazuli-dist.cmake" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/lazuli-dist.cmake" DESTINATION ${LZ_CMAKE_DIR})
endif()
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
foreach(_lz_flag IN LISTS LZ_CONSUMER_ARCH_FLAGS) # the kernels' instruction set (CMakeLists.txt)
  string(APPEND LZ_PC_CFLAGS " ${_lz_flag}")
endforeach()
if(LZ_KERNELS_SIMD_ARCH) # the compiled math's SIMD target (kernels/CMakeLists.txt)
  string(APPEND LZ_PC_CFLAGS " -DLZ_KERNELS_SIMD_ARCH=${LZ_KERNELS_SIMD_ARCH}")
endif()
get_target_property(_lz_tbb_lib TBB::tbb IMPORTED_LOCATION_RELEASE)
if(NOT _lz_tbb_lib)
  get_target_property(_lz_tbb_lib TBB::tbb IMPORTED_LOCATION_NONE)
endif()
get_target_property(_lz_zlib_lib ZLIB::ZLIB IMPORTED_LOCATION_RELEASE)
if(NOT _lz_zlib_lib)
  get_target_property(_lz_zlib_lib ZLIB::ZLIB IMPORTED_LOCATION)
endif()
foreach(_lz_lib IN ITEMS "${_lz_tbb_lib}" "${LZ_BLAS_LIBRARY}" "${_lz_zlib_lib}")
  if(_lz_lib)
    get_filename_component(_lz_dir "${_lz_lib}" DIRECTORY)
    if(NOT _lz_dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
      string(APPEND LZ_PC_LIBDIRS " -L${_lz_dir}")
    endif()
  endif()
endforeach()
# TBB and the CBLAS through their own .pc files where the system has them (Requires:), so
# pkg-config brings their flags and paths; else by name in Libs.
set(LZ_PC_REQUIRES "")
set(LZ_PC_DEPLIBS "")
find_package(PkgConfig QUIET)
foreach(_lz_mod IN ITEMS tbb ${LZ_BLAS})
  set(_lz_found FALSE)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(_lz_pc_${_lz_mod} QUIET ${_lz_mod})
    set(_lz_found ${_lz_pc_${_lz_mod}_FOUND})
  endif()
  if(_lz_found)
    string(APPEND LZ_PC_REQUIRES " ${_lz_mod}")
  else()
    string(APPEND LZ_PC_DEPLIBS " -l${_lz_mod}")
  endif()
endforeach()
if(NOT LZ_BLAS_HAS_LAPACK) # the solvers' LAPACK, when the CBLAS carries none (LazuliDependencies)
  string(APPEND LZ_PC_DEPLIBS " -llapack")
endif()
# zlib (.npz archives): through its zlib.pc where the system has one, else -lz.
set(_lz_found FALSE)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(_lz_pc_zlib QUIET zlib)
  set(_lz_found ${_lz_pc_zlib_FOUND})
endif()
if(_lz_found)
  string(APPEND LZ_PC_REQUIRES " zlib")
else()
  string(APPEND LZ_PC_DEPLIBS " -lz")
endif()
configure_file(cmake/lazuli.pc.in "${PROJECT_BINARY_DIR}/install/lazuli.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/install/lazuli.pc"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
