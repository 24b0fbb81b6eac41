# The device backend's toolchain: CUDA when a CUDA compiler is found (LZ_ENABLE_CUDA, default ON
# then), and exactly one Thrust per build: the CUDA toolkit's CCCL when CUDA is enabled, else the
# system's (Debian libthrust-dev). Recipes and the CMake 3.25.1 traps worked around here are in
# docs/architecture-device.md (measured in shared/notes/gpu-build.md).
include(CheckLanguage)
check_language(CUDA)
# check_language leaves an empty normal variable that hides a cached host compiler (trap b).
unset(CMAKE_CUDA_HOST_COMPILER)
set(_lz_cuda_default OFF)
if(CMAKE_CUDA_COMPILER)
  set(_lz_cuda_default ON)
endif()
option(LZ_ENABLE_CUDA "Build the CUDA device backend (lazuli::device_cuda)" ${_lz_cuda_default})

set(LZ_HAVE_CUDA OFF)
if(LZ_ENABLE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "LZ_ENABLE_CUDA=ON but no CUDA compiler was found")
  endif()
  if(NOT CMAKE_CUDA_HOST_COMPILER)
    set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}" CACHE FILEPATH "nvcc host compiler")
  endif()
  # sm_90 SASS + compute_90 PTX (newer GPUs JIT the PTX); CUDAARCHS or -D override (trap e).
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND "$ENV{CUDAARCHS}" STREQUAL "")
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  enable_language(CUDA)
  include(LazuliCudaCxx20) # C++20 (trap a), one cudart (trap c)
  find_package(CUDAToolkit REQUIRED)
  set(LZ_HAVE_CUDA ON)
endif()

if(LZ_HAVE_CUDA)
  find_path(LZ_THRUST_INCLUDE_DIR thrust/version.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
            PATH_SUFFIXES cccl NO_DEFAULT_PATH REQUIRED)
else()
  find_path(LZ_THRUST_INCLUDE_DIR thrust/version.h REQUIRED)
endif()
file(STRINGS "${LZ_THRUST_INCLUDE_DIR}/thrust/version.h" _lz_thrust_version
     REGEX "^#define THRUST_VERSION [0-9]+")
string(REGEX MATCH "[0-9]+" _lz_thrust_version "${_lz_thrust_version}")
message(STATUS "lazuli device backend: Thrust ${_lz_thrust_version} from ${LZ_THRUST_INCLUDE_DIR}; "
               "CUDA ${LZ_HAVE_CUDA}")
add_library(lz_thrust_headers INTERFACE)
target_include_directories(lz_thrust_headers SYSTEM INTERFACE "${LZ_THRUST_INCLUDE_DIR}")
