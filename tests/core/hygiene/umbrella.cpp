// Header hygiene: the umbrella header a user includes. tests/CMakeLists.txt lists every header
// this TU pulls in (-M, system headers too) and fails on TBB, CBLAS/OpenBLAS or cuBLAS ones:
// those belong in the compiled kernels (kernels/**/*.cpp|.cu) only.
#include <lz/lz.hpp>

int main() { return 0; }
