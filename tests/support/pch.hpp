// The precompiled header of the suites added by lz_add_test (tests/CMakeLists.txt, option
// LZ_TEST_PCH): Boost.Test and the standard headers lazuli and the test support use. Parsing
// them costs each suite ~1 s per build; loading the precompiled form ~0.2 s
// (docs/decisions/ci-in-fifteen-minutes.md). lazuli's own headers stay out: the header would be
// rebuilt, before any suite, after every change to them (the quick loop), and GCC 12 does not
// keep the `#pragma GCC diagnostic` state of a precompiled header, which include/lz/simd.hpp
// needs for GCC's own AVX-512 intrinsics. Suites include what they use, so they build the same
// with LZ_TEST_PCH=OFF.
#pragma once

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
