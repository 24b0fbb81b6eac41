// Device products on the host system (CBLAS behind the device BLAS interface); every CI build.
#define BOOST_TEST_MODULE device_products
#include "products.inl"
