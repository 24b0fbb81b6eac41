// Device sparse products on the host system (lazuli's CSR kernels behind the device sparse
// interface); every CI build.
#define BOOST_TEST_MODULE device_sparse
#include "sparse.inl"
