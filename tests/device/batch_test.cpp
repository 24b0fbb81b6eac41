// Device batch suite on Thrust's host system (runs in every CI build).
#define BOOST_TEST_MODULE device_batch
#include "batch.inl"
