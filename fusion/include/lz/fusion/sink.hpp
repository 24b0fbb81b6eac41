// The backend seam: what a plan sink provides. A rule (rules/*.hpp) decides; it hands each
// decided step to a sink and never asks which backend it runs on. A backend is a pair of sinks
// — one runs the steps, one describes them for lz::explain — plus its compiled kernels:
//   memory      `view<U, R>`: the view kind over the backend's memory (temporaries, groups);
//               `temp<U, R>(shape, why)`: a fresh row-major temporary, freed when the plan ends;
//               `last_temp()`: its number (explain labels it tmpN)
//   labels      `set_dst(p)`, `origin_of(p)`: dst, tmpN or user memory, for explain
//   notes       `noting()`, `note({pieces})`: why a rule did or did not apply
//   products    `gemm`, `gemv`, `syrk`, `axpy`, `scal` (rule name, step; plan.hpp)
//   solvers     `lapack` (rule name, lapack_step: getrf, getrs, getri, potrf, potrs, trtrs, gels)
//   sparse      `sparse` (rule name, sparse_step: one SpMV or SpMM over a CSR operand)
//   loops       `map<Op>(pol, dst, e)`: dst ⊕= e as one elementwise loop (no opaque node in e)
//   reductions  `reduce<Op>(pol, dst, e)`: an axis reduction of dst's shape, or a full reduction
//               into a rank-0 dst, straight into dst
// Call recording is below the executing sinks: every kernels::blas call reports to the
// process-wide recorder (kernels/blas/trace.cpp); device BLAS calls to
// kernels::dev::blas::record_calls. Models: exec_sink and explain_sink (plan.hpp, host),
// device_exec_sink and device_explain_sink (include/lz/device/plan.hpp), each checked below or
// next to its definition.
#pragma once

#include <lz/fusion/plan.hpp>

#include <concepts>

namespace lz::fusion {

/// S can receive the steps of a plan run under policy P (see the header).
template <class S, class P>
concept plan_sink = requires(S& s, const S& cs, const P& pol, const void* p, const char* rule,
                             typename S::template view<double, 2> d,
                             typename S::template view<const double, 2> a) {
  { s.template temp<double, 2>(shape_t<2>{}, rule) } -> std::same_as<decltype(d)>;
  { cs.last_temp() } -> std::same_as<int>;
  s.set_dst(p);
  { cs.origin_of(p) } -> std::same_as<origin>;
  { cs.noting() } -> std::same_as<bool>;
  s.note({rule, 1, shape_t<2>{}});
  s.gemm(rule, gemm_step<double>{});
  s.gemv(rule, gemv_step<double>{});
  s.syrk(rule, syrk_step<double>{});
  s.axpy(rule, axpy_step<double>{});
  s.scal(rule, scal_step<double>{});
  s.lapack(rule, lapack_step<double>{});
  s.sparse(rule, sparse_step<double>{});
  s.template map<lz::detail::assign_op::set>(pol, d, a);
  s.template reduce<lz::detail::assign_op::set>(pol, d, a);
};

static_assert(plan_sink<exec_sink, auto_policy> && plan_sink<exec_sink, seq_policy>);
static_assert(plan_sink<explain_sink, auto_policy> && plan_sink<explain_sink, par_policy>);

} // namespace lz::fusion
