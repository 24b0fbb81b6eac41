# Finds lazuli's fixed dependencies (all Debian 12 packages): xsimd, oneTBB, OpenBLAS (CBLAS).
# xsimd is header-only; Debian's xsimd target drags in an `xtl` link item that breaks links
# when xtl's CMake package is not loaded, so we take just its include directory.
find_path(LZ_XSIMD_INCLUDE_DIR xsimd/xsimd.hpp REQUIRED)
file(STRINGS "${LZ_XSIMD_INCLUDE_DIR}/xsimd/config/xsimd_config.hpp" _lz_xsimd_major
     REGEX "#define XSIMD_VERSION_MAJOR")
if(NOT _lz_xsimd_major MATCHES "XSIMD_VERSION_MAJOR 8")
  message(WARNING "lazuli is tested with xsimd 8 (found: ${_lz_xsimd_major})")
endif()
add_library(lz_xsimd INTERFACE)
target_include_directories(lz_xsimd SYSTEM INTERFACE "${LZ_XSIMD_INCLUDE_DIR}")

find_package(TBB REQUIRED CONFIG)

# OpenBLAS directly (not the generic libblas alternative): lz::info() reports its core type and
# thread count through openblas_get_corename / openblas_get_num_threads.
find_library(LZ_OPENBLAS_LIBRARY NAMES openblas REQUIRED)
find_path(LZ_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-pthread openblas REQUIRED)
add_library(lz_cblas INTERFACE)
target_link_libraries(lz_cblas INTERFACE "${LZ_OPENBLAS_LIBRARY}")
target_include_directories(lz_cblas SYSTEM INTERFACE "${LZ_CBLAS_INCLUDE_DIR}")
