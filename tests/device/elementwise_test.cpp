// Device elementwise suite on Thrust's host system (runs in every CI build).
#define BOOST_TEST_MODULE device_elementwise
#include "elementwise.inl"
