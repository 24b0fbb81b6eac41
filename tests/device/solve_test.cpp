// Device solves on the host system (lazuli's LAPACK door behind the device LAPACK interface);
// every CI build.
#define BOOST_TEST_MODULE device_solve
#include "solve.inl"
