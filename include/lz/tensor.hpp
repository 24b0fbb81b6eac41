// lz::tensor and lz::tensor_view with everything that assigns to them: the leaves
// (expr/tensor.hpp) and the engine that evaluates expressions into them (evaluate.hpp).
#pragma once

#include <lz/evaluate.hpp>
#include <lz/expr/tensor.hpp>
