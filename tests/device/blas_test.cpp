// Device BLAS interface on the host system (CBLAS behind it); runs in every CI build.
#define BOOST_TEST_MODULE device_blas
#include "blas.inl"
