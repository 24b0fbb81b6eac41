// Recording BLAS backend for tests: installs itself as the kernels/blas recorder for its
// lifetime and keeps every call (routine, flags, sizes, α, β, leading dims) the plan made.
#pragma once

#include <lz/kernels/blas/blas.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace lz_test {

struct recording : lz::kernels::blas::recorder {
  std::vector<lz::kernels::blas::call> calls;
  lz::kernels::blas::recorder* previous;

  recording() : previous(lz::kernels::blas::set_recorder(this)) {}
  ~recording() override { lz::kernels::blas::set_recorder(previous); }
  recording(const recording&) = delete;
  recording& operator=(const recording&) = delete;

  void record(const lz::kernels::blas::call& c) override { calls.push_back(c); }

  /// Calls whose routine name contains `what` ("gemm" counts dgemm, sgemm and gemm_generic).
  std::size_t count(std::string_view what) const {
    std::size_t n = 0;
    for (const auto& c : calls)
      if (std::string_view(c.routine).find(what) != std::string_view::npos) ++n;
    return n;
  }
  const lz::kernels::blas::call& only() const {
    if (calls.size() != 1)
      throw std::logic_error("expected exactly one BLAS call, got " + std::to_string(calls.size()));
    return calls.front();
  }
  std::string summary() const {
    std::string s;
    for (const auto& c : calls) s += std::string(c.routine) + " ";
    return s;
  }
};

} // namespace lz_test
