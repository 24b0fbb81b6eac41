# nvcc as C++20 for the files that evaluate device expressions, after enable_language(CUDA).
# Used by lazuli's own build (cmake/LazuliDevice.cmake) and installed with the package as
# lazuli-cuda-cxx20.cmake for consumers of lazuli::device_cuda:
#   find_package(lazuli CONFIG REQUIRED COMPONENTS device)
#   enable_language(CUDA)
#   include("${lazuli_DIR}/lazuli-cuda-cxx20.cmake")
# CMake < 3.25.2 does not know nvcc's -std=c++20 (docs/architecture-device.md, trap a); one
# cudart per program (trap c).
if(CMAKE_VERSION VERSION_LESS 3.25.2 AND CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"
   AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
endif()
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
