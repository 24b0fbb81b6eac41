// The anchor libraries the benchmarks compare against, each included only when CMake found it
// (LZ_HAVE_EIGEN, LZ_HAVE_XTENSOR with XTENSOR_USE_XSIMD, LZ_HAVE_ARMADILLO).
#pragma once

#if LZ_HAVE_EIGEN
#include <Eigen/Core>
#endif
#if LZ_HAVE_XTENSOR
#include <xtensor/xadapt.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#endif
#if LZ_HAVE_ARMADILLO
#include <armadillo>
#endif
