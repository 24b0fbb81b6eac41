// lazuli umbrella header: everything a user needs (host side; the device backend has its own).
#pragma once

#include <lz/batch.hpp>
#include <lz/calibrate.hpp>
#include <lz/construct.hpp>
#include <lz/evaluate.hpp>
#include <lz/explain.hpp>
#include <lz/expr/fixed.hpp>
#include <lz/expr/matmul.hpp>
#include <lz/info.hpp>
#include <lz/io.hpp>
#include <lz/linalg.hpp>
#include <lz/ops/fixed_linalg.hpp>
#include <lz/ops/math.hpp>
#include <lz/ops/operators.hpp>
#include <lz/ops/reductions.hpp>
#include <lz/ranges.hpp>
#include <lz/sparse.hpp>
#include <lz/tensor.hpp>
#include <lz/views.hpp>
