# lazuli's dependencies as imported targets. Used twice: by lazuli's own build (included from
# CMakeLists.txt) and, installed as lazuli-dependencies.cmake, by the package configuration of an
# installed or build-tree lazuli (find_package(lazuli CONFIG)), so both see the same targets:
#   TBB::tbb          oneTBB's own CMake package (threads, behind kernels/cpu/parallel.cpp)
#   ZLIB::ZLIB        CMake's FindZLIB (DEFLATE in .npz archives, src/sparse_io.cpp); linked
#                     privately, so a consumer of the static library links it too
#   lazuli::xsimd     xsimd's include directory only: Debian's xsimd target drags in an `xtl`
#                     link item that breaks links when xtl's CMake package is not loaded
#   lazuli::cblas     the CBLAS lazuli calls: OpenBLAS itself by default, not the generic libblas
#                     alternative (lz::info() reports its core type and thread count through
#                     openblas_get_corename), or the library LZ_BLAS names (blis, flexiblas,
#                     cblas, ...); cblas.h is on its include path only inside lazuli's own build
#                     (header hygiene)
# Inside find_package(lazuli) a missing dependency makes lazuli "not found" with a message
# (find_dependency semantics) instead of stopping the consumer's configure step.
if(CMAKE_FIND_PACKAGE_NAME STREQUAL "lazuli")
  set(_lz_package_mode TRUE)
  include(CMakeFindDependencyMacro)
else()
  set(_lz_package_mode FALSE)
endif()

# Reports a missing dependency; in package mode ends this file (the config checks lazuli_FOUND).
macro(_lz_missing what)
  if(_lz_package_mode)
    set(lazuli_NOT_FOUND_MESSAGE "lazuli needs ${what}, which was not found")
    set(lazuli_FOUND FALSE)
    return()
  else()
    message(FATAL_ERROR "lazuli needs ${what}, which was not found (scripts/install_deps.sh)")
  endif()
endmacro()

if(_lz_package_mode)
  find_dependency(TBB CONFIG) # returns from this file with lazuli_FOUND FALSE when missing
  find_dependency(ZLIB)
else()
  find_package(TBB REQUIRED CONFIG)
  find_package(ZLIB REQUIRED)
endif()

if(NOT TARGET lazuli::xsimd)
  find_path(LZ_XSIMD_INCLUDE_DIR xsimd/xsimd.hpp HINTS ${_lz_xsimd_hint})
  if(NOT LZ_XSIMD_INCLUDE_DIR)
    _lz_missing("xsimd 8 (xsimd/xsimd.hpp)")
  endif()
  if(NOT _lz_package_mode)
    file(STRINGS "${LZ_XSIMD_INCLUDE_DIR}/xsimd/config/xsimd_config.hpp" _lz_xsimd_major
         REGEX "#define XSIMD_VERSION_MAJOR")
    if(NOT _lz_xsimd_major MATCHES "XSIMD_VERSION_MAJOR 8")
      message(WARNING "lazuli is tested with xsimd 8 (found: ${_lz_xsimd_major})")
    endif()
  endif()
  add_library(lazuli::xsimd INTERFACE IMPORTED)
  set_target_properties(lazuli::xsimd PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${LZ_XSIMD_INCLUDE_DIR}")
endif()

# The CBLAS: OpenBLAS unless LZ_BLAS names another library (lazuli's CMakeLists.txt; the package
# configuration passes the build's choice as _lz_blas_name).
if(NOT TARGET lazuli::cblas)
  if(_lz_package_mode)
    set(_lz_blas "${_lz_blas_name}")
  else()
    set(_lz_blas "${LZ_BLAS}")
  endif()
  if(NOT _lz_blas)
    set(_lz_blas openblas)
  endif()
  find_library(LZ_BLAS_LIBRARY NAMES ${_lz_blas} HINTS ${_lz_blas_hint})
  if(NOT LZ_BLAS_LIBRARY)
    _lz_missing("the CBLAS library '${_lz_blas}' (LZ_BLAS; lib${_lz_blas})")
  endif()
  add_library(lazuli::cblas UNKNOWN IMPORTED)
  set_target_properties(lazuli::cblas PROPERTIES IMPORTED_LOCATION "${LZ_BLAS_LIBRARY}")
  if(NOT _lz_package_mode)
    # Debian keeps each BLAS's cblas.h in its own directory (openblas-pthread, blis-openmp, ...).
    find_path(LZ_CBLAS_INCLUDE_DIR cblas.h
              PATH_SUFFIXES ${_lz_blas}-pthread ${_lz_blas}-openmp ${_lz_blas} ${_lz_blas}-serial
              REQUIRED)
    set_target_properties(lazuli::cblas PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${LZ_CBLAS_INCLUDE_DIR}")
  endif()
endif()

# LAPACK (the solvers, kernels/lapack): the CBLAS library's own when it carries one (OpenBLAS
# does), else the reference liblapack.
if(NOT TARGET lazuli::lapack)
  include(CheckFunctionExists)
  set(CMAKE_REQUIRED_LIBRARIES "${LZ_BLAS_LIBRARY}")
  set(CMAKE_REQUIRED_QUIET ON)
  check_function_exists(dgetrf_ LZ_BLAS_HAS_LAPACK)
  unset(CMAKE_REQUIRED_LIBRARIES)
  unset(CMAKE_REQUIRED_QUIET)
  add_library(lazuli::lapack INTERFACE IMPORTED)
  if(NOT LZ_BLAS_HAS_LAPACK)
    find_library(LZ_LAPACK_LIBRARY NAMES lapack)
    if(NOT LZ_LAPACK_LIBRARY)
      _lz_missing("a LAPACK library (liblapack; the CBLAS '${_lz_blas}' has none)")
    endif()
    set_target_properties(lazuli::lapack PROPERTIES INTERFACE_LINK_LIBRARIES "${LZ_LAPACK_LIBRARY}")
  endif()
endif()

if(NOT _lz_package_mode)
  # Older names, kept for targets inside lazuli's own tree.
  add_library(lz_xsimd ALIAS lazuli::xsimd)
  add_library(lz_cblas ALIAS lazuli::cblas)
endif()
