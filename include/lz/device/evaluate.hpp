// The device entry point: lz::assign(lz::device, dst, e), lz::eval(lz::device, e), assignment to
// device tensors and views. Follow `z = 2.5 * x + 1.5 * y;` (device tensors) through it:
//   1. device_tensor::operator= (tensor.hpp)   → detail::device_assign_with (here): space, rank
//                                                and shape checks, then the device rules:
//   2. reduce: an axis reduction writes straight into the destination (run_reduce_axis)
//      map:    everything else is ONE elementwise loop: the tree becomes a kernel tree
//              (kernel_view.hpp; nested reductions first, into pooled temporaries), the loop is
//              planned (kernels/thrust/plan.cpp: flat / linear / rows / general) and launched
//              (kernels/thrust/launch.hpp: thrust::transform / for_each_n on the stream)
//   3. lz::device waits for the stream; lz::device.on(s) returns at once (sync() later).
// Full reductions (lz::eval(lz::device, lz::sum(d))) are one thrust::transform_reduce and return
// their value to the host. A tree with a product anywhere (and, from lz::thresholds().level1_blas
// up, an axpy/scal shape) goes through the fusion pass instead, with device steps: device/plan.hpp.
#pragma once

#include <lz/device/kernel_view.hpp>
#include <lz/expr/solve.hpp>
#include <lz/expr/sparse.hpp>
#include <lz/kernels/alias.hpp>
#include <lz/kernels/thrust/launch.hpp>

#include <string>

namespace lz {
namespace detail {

inline kernels::dev::exec exec_of(const device_policy& p) noexcept { return {p.stream}; }

inline std::string stream_text(const device_policy& p) {
  return std::string(kernels::dev::backend()) + ", " + (p.stream ? "stream" : "default stream") +
         (p.async ? ", async" : ", sync");
}

template <class T, std::size_t R>
operand operand_of(const T* p, const index_t* s) {
  operand o;
  o.ptr = reinterpret_cast<char*>(const_cast<T*>(p));
  o.esize = sizeof(T);
  for (std::size_t k = 0; k < R; ++k) o.strides[k] = s[k];
  return o;
}

// True when some leaf of kernel tree k reads the destination's memory at another position (the
// loop then writes a temporary first). Same analysis as the CPU path (kernels/alias.hpp).
template <class T, std::size_t R, class K>
bool reads_dst_elsewhere(const kernels::dev::kdst<T, R>& d, K& k, const shape_t<R>& ext) {
  operand ops[kernels::cpu::max_operands];
  int n = 0;
  kernels::dev::for_each_kleaf(k, [&](auto& l) {
    using L = std::remove_cvref_t<decltype(*l.p)>;
    ops[n++] = operand_of<L, R>(l.p, l.s);
  });
  return kernels::reads_destination_elsewhere(operand_of<T, R>(d.p, d.s), ops, n, int(R),
                                              ext.data());
}

/// Plans and launches dst ⊕= k (strides of d and k are rewritten by the planner).
template <assign_op Op, class T, std::size_t R, class K>
void run_planned(const device_policy& pol, kernels::dev::kdst<T, R> d, K k, const shape_t<R>& ext) {
  index_t* st[kernels::cpu::max_operands];
  st[0] = d.s;
  const int n = 1 + collect_strides(k, st + 1);
  const kernels::dev::loop_plan L = kernels::dev::plan_loop(int(R), ext.data(), n, st, false);
  if (logging::on(logging::device))
    logging::write(logging::device, std::string("map ") + kernels::dev::describe(L) + " <- " +
                                        std::to_string(n - 1) + " leaves [" + stream_text(pol) +
                                        "]");
  kernels::dev::run_map<Op>(exec_of(pol), d, k, L);
}

template <class T, std::size_t R>
kernels::dev::kdst<T, R> make_kdst(T* p, const shape_t<R>& strides) {
  kernels::dev::kdst<T, R> d{p, {}};
  for (std::size_t k = 0; k < R; ++k) d.s[k] = strides[k];
  return d;
}

/// The map rule: one elementwise loop for the whole tree (a temporary first when the tree reads
/// the destination at other positions, as in d = transpose(d) + e).
template <assign_op Op, class T, std::size_t R, class E>
void device_map(const device_policy& pol, device_view<T, R> dst, const E& e, device_temps& temps) {
  kernel_build ctx{&pol, &temps};
  auto k = build_kernel<R>(e, root_map(e, dst.shape()), ctx);
  const auto d = make_kdst(dst.data(), dst.strides());
  const auto& ext = dst.shape();
  if (reads_dst_elsewhere(d, k, ext)) {
    const auto rm = strided_layout<R>::right(ext).strides;
    T* tp = static_cast<T*>(temps.get(device_bytes(dst.size(), sizeof(T))));
    if (logging::on(logging::device))
      logging::write(logging::device, "map reads its destination elsewhere: temporary");
    run_planned<assign_op::set>(pol, make_kdst(tp, rm), k, ext);
    run_planned<Op>(pol, d, make_kleaf<R>(static_cast<const T*>(tp), rm, root_map(dst, ext)), ext);
    return;
  }
  run_planned<Op>(pol, d, k, ext);
}

template <class Op, class A, class V>
A reduce_init() {
  if constexpr (kernels::dev::arg_accumulator<A>)
    return A{V{}, -1};
  else
    return Op::template identity<A>();
}

/// Full reduction on the device; returns the finalized value to the host (one
/// thrust::transform_reduce, which waits for its stream).
template <class Op, class Fin, class E>
auto device_reduce_full(const device_policy& pol, const reduce_expr<Op, Fin, E>& r) {
  using RE = reduce_expr<Op, Fin, E>;
  using V = value_t<E>;
  using A = typename RE::acc_type;
  constexpr std::size_t R = rank_v<E>;
  static_assert(space_v<E> != memory_space::host,
                "lz: this reduction reads host memory; evaluate it on the host or copy with "
                "lz::to_device");
  const auto s = r.arg.shape();
  index_t size = 1;
  for (std::size_t k = 0; k < R; ++k) size *= s[k];
  if (!Op::has_identity && size == 0) throw_empty_reduction(Op::name, s.data(), R);
  device_temps temps(pol.stream);
  kernel_build ctx{&pol, &temps};
  dim_map m;
  m.fill(-1);
  for (std::size_t k = 0; k < R; ++k) m[k] = int(k);
  auto k = build_kernel<R>(r.arg, m, ctx);
  index_t* st[kernels::cpu::max_operands];
  const int n = collect_strides(k, st);
  const kernels::dev::loop_plan L = kernels::dev::plan_loop(int(R), s.data(), n, st, RE::is_arg);
  if (logging::on(logging::device))
    logging::write(logging::device, std::string(Op::name) + " (full) " + kernels::dev::describe(L) +
                                        " <- " + std::to_string(n) + " leaves [" +
                                        stream_text(pol) + "]");
  const A acc = kernels::dev::run_reduce<Op, V, A, R>(exec_of(pol), k, L, reduce_init<Op, A, V>());
  return Fin{}(acc, size);
}

/// Axis reduction on the device straight into dst (⊕ = AOp). @pre dst has the result's shape.
template <assign_op AOp, class Op, class Fin, class E, class D, std::size_t RD>
void device_reduce_axis(const device_policy& pol, device_view<D, RD> dst,
                        const reduce_axis_expr<Op, Fin, E>& r, device_temps& temps) {
  using V = value_t<E>;
  using A = typename reduce_axis_expr<Op, Fin, E>::acc_type;
  constexpr std::size_t R = rank_v<E>;
  static_assert(RD + 1 == R);
  const auto s = r.arg.shape();
  const index_t len = s[r.axis], nout = dst.size();
  if (!Op::has_identity && len == 0 && nout > 0) throw_empty_reduction(Op::name, s.data(), R);
  if (nout == 0) return;
  kernel_build ctx{&pol, &temps};
  dim_map m; // the reduced axis moves last
  m.fill(-1);
  for (std::size_t k = 0; k < R; ++k)
    m[k] = k < r.axis ? int(k) : k == r.axis ? int(R - 1) : int(k - 1);
  auto k = build_kernel<R>(r.arg, m, ctx);
  kernels::dev::kdst<D, R> d{dst.data(), {}};
  for (std::size_t j = 0; j < RD; ++j) d.s[j] = dst.strides()[j];
  index_t* st[kernels::cpu::max_operands];
  st[0] = d.s;
  const int n = 1 + collect_strides(k, st + 1);
  // Plan the output dims only (the first R-1 stride slots); the axis stride stays in slot R-1.
  const kernels::dev::loop_plan out =
      kernels::dev::plan_loop(int(RD), dst.shape().data(), n, st, false);
  const A init = reduce_init<Op, A, V>();
  const auto ex = exec_of(pol);
  if (logging::on(logging::device))
    logging::write(logging::device, std::string(Op::name) + " along axis " +
                                        std::to_string(r.axis) + " (" + std::to_string(len) +
                                        ") into " + kernels::dev::describe(out) + " [" +
                                        stream_text(pol) + "]");
  // Few long outputs: one parallel transform_reduce per output keeps every thread busy (one
  // thread per output would serialize each). A segmented reduction (cub) is the GPU's better
  // answer; see docs/architecture-device.md.
  if (nout <= 32 && len >= 4096) {
    const auto ox = kernels::dev::make_index<RD>(out);
    for (index_t j = 0; j < nout; ++j) {
      index_t idx[R] = {};
      ox.unravel(j, idx);
      const auto kk = k.moved(idx, RD);
      kernels::dev::loop_plan L;
      L.p = kernels::dev::path::linear;
      L.rank = 1;
      L.slots = int(R);
      L.size = len;
      for (std::size_t q = 0; q < R; ++q) L.ext[q] = 1;
      L.ext[R - 1] = len;
      const A acc = kernels::dev::run_reduce<Op, V, A, R>(ex, kk, L, init);
      index_t off = 0;
      for (std::size_t q = 0; q < RD; ++q) off += idx[q] * d.s[q];
      D cur{};
      if constexpr (AOp != assign_op::set)
        kernels::dev::copy(&cur, d.p + off, sizeof(D), kernels::dev::copy_kind::device_to_host,
                           pol.stream);
      cur = kernels::dev::apply_assign<AOp>(cur, Fin{}(acc, len));
      kernels::dev::copy(d.p + off, &cur, sizeof(D), kernels::dev::copy_kind::host_to_device,
                         pol.stream);
    }
    return;
  }
  kernels::dev::run_reduce_axis<Op, Fin, A, V, AOp>(ex, d, k, out, len, init);
}

/// True when a product (matmul, sparse or solver node) sits anywhere in e, under maps, views or
/// reductions: such trees go through the fusion pass with device steps.
template <class E>
constexpr bool has_product() {
  using X = std::remove_cvref_t<E>;
  if constexpr (is_matmul_v<X> || is_spmul_v<X> || is_solve_v<X> || is_inv_v<X>)
    return true;
  else if constexpr (std::is_same_v<kind_t<X>, map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (false || ... || has_product<A>());
    }(static_cast<const X*>(nullptr));
  else if constexpr (requires { std::declval<const X&>().arg; })
    return has_product<decltype(std::declval<const X&>().arg)>();
  else
    return false;
}

// Defined in device/plan.hpp (which includes this header; device.hpp brings both): the fusion
// pass with device steps, for trees with products.
template <assign_op Op, class T, std::size_t R, class E>
void device_execute(const device_policy& pol, device_view<T, R> dst, const E& e,
                    device_temps& temps);

/// Whether dst ⊕= e goes through the fusion pass (device/plan.hpp) rather than straight to the
/// device reduce/map rules: products anywhere, or an axpy/scal shape from level1_blas up.
template <class T, std::size_t R, class E>
bool device_uses_plan(device_view<T, R> dst) {
  if constexpr (has_product<E>())
    return true;
  else if constexpr (R > 0 && fusion::rules::level1::matches<E, T>)
    return dst.size() >= thresholds().level1_blas;
  else
    return false;
}

template <assign_op Op, class T, std::size_t R, class E>
void device_assign_with(const device_policy& pol, device_view<T, R> dst, const E& e) {
  static_assert(!std::is_const_v<T>, "lz: cannot assign to a read-only device view");
  if constexpr (scalar_like<E>) {
    device_assign_with<Op>(pol, dst, scalar_expr<T>{static_cast<T>(e)});
  } else {
    static_assert(space_v<E> != memory_space::host,
                  "lz: the expression reads host memory: copy it to the device first "
                  "(lz::to_device(x)); lazuli never transfers implicitly");
    static_assert(space_v<E> == memory_space::host || within_space<E>(memory_space::device),
                  "lz: the expression reads memory outside the device's space; move it "
                  "explicitly first");
    static_assert(rank_v<E> == R || rank_v<E> == 0,
                  "lz: the expression's rank differs from the destination's rank");
    static_assert(static_shape_of<E>::fixed_leaves == 0,
                  "lz: a fixed-size tensor in a device expression: fixed tensors enter device "
                  "code through lz::device_batch expressions (copied into the kernel); copy one "
                  "to the device with lz::to_device(f) for other device expressions");
    (void)sizeof(check_narrowing<value_t<E>, T, E>);
    if constexpr (narrows<value_t<E>, T>() || static_shape_of<E>::fixed_leaves > 0)
      return; // (the static_assert above is the error; nothing more to instantiate)
    else {
      if constexpr (rank_v<E> == R && R > 0) {
        if (!broadcasts_to(e.shape(), dst.shape()))
          throw shape_error(std::string("lz: cannot assign shape ") + to_string(e.shape()) +
                            " to a device destination of shape " + to_string(dst.shape()) +
                            " in '" + assign_op_symbol(Op) + "'");
      }
      const long long t0 = logging::on(logging::device) ? logging::now_ns() : 0;
      {
        device_temps temps(pol.stream);
        if constexpr (has_product<E>()) {
          device_execute<Op>(pol, dst, e, temps);
        } else {
          bool done = false;
          if (device_uses_plan<T, R, E>(dst)) {
            device_execute<Op>(pol, dst, e, temps);
            done = true;
          } else if constexpr (fusion::is_axis_reduction_v<E>) {
            if (fusion::reduces_into(dst, e)) {
              device_reduce_axis<Op>(pol, dst, e, temps);
              done = true;
            }
          }
          if (!done) device_map<Op>(pol, dst, e, temps);
        }
      }
      if (!pol.async) kernels::dev::stream_sync(pol.stream);
      if (logging::on(logging::device) && !pol.async)
        logging::write(logging::device, "assign " + to_string(dst.layout()) + " done in " +
                                            std::to_string(double(logging::now_ns() - t0) * 1e-6) +
                                            " ms");
    }
  }
}

template <class T, std::size_t R, class E>
void device_assign_resize(device_tensor<T, R>& dst, const E& e) {
  static_assert(rank_v<E> == R, "lz: the expression's rank differs from the destination's rank");
  if (dst.shape() == e.shape() && (dst.data() || dst.empty())) {
    device_assign_with<assign_op::set>(device, dst.view(), e);
    return;
  }
  device_tensor<T, R> fresh(e.shape(), uninitialized); // the old contents survive a failure
  device_assign_with<assign_op::set>(device, fresh.view(), e);
  dst = std::move(fresh);
}

template <class E>
inline constexpr bool is_full_reduction_v = false;
template <class Op, class Fin, class E>
inline constexpr bool is_full_reduction_v<reduce_expr<Op, Fin, E>> = true;

} // namespace detail

template <class Op, class Fin, class E>
const typename reduce_expr<Op, Fin, E>::value_type*
device_materialize(const reduce_expr<Op, Fin, E>& r, detail::kernel_build& ctx) {
  using V = typename reduce_expr<Op, Fin, E>::value_type;
  const V v = detail::device_reduce_full(*ctx.pol, r);
  V* p = static_cast<V*>(ctx.temps->get(sizeof(V)));
  kernels::dev::copy(p, &v, sizeof(V), kernels::dev::copy_kind::host_to_device, ctx.pol->stream);
  return p;
}
template <class Op, class Fin, class E>
const typename reduce_axis_expr<Op, Fin, E>::value_type*
device_materialize(const reduce_axis_expr<Op, Fin, E>& r, detail::kernel_build& ctx) {
  using RE = reduce_axis_expr<Op, Fin, E>;
  using V = typename RE::value_type;
  V* p = static_cast<V*>(ctx.temps->get(detail::device_bytes(
      strided_layout<RE::rank>::right(r.shape()).required_span_size(), sizeof(V))));
  device_view<V, RE::rank> v(p, strided_layout<RE::rank>::right(r.shape()), detail::trusted);
  detail::device_reduce_axis<detail::assign_op::set>(*ctx.pol, v, r, *ctx.temps);
  return p;
}

/// dst = e on the device: `lz::assign(lz::device, y, 2.0 * x + y);` (no allocation; e's shape
/// must broadcast to dst's). With lz::device.on(s) the call returns before the work has run.
template <device_destination D, class E>
requires expression_or_scalar<E>
void assign(const device_policy& pol, D&& dst, const E& e) {
  detail::device_assign_with<detail::assign_op::set>(pol, device_view{dst.view()}, e);
}
template <device_destination D, class E>
requires expression_or_scalar<E>
void assign(D&& dst, const E& e) {
  detail::device_assign_with<detail::assign_op::set>(device, device_view{dst.view()}, e);
}

/// Evaluates a device expression into a new device tensor; a full reduction returns its value
/// to the host (`double s = lz::eval(lz::device, lz::sum(x));`).
template <expression E>
auto eval(const device_policy& pol, const E& e) {
  static_assert(space_v<E> != memory_space::host,
                "lz: lz::eval(lz::device, e) of an expression that reads host memory; copy it "
                "with lz::to_device(x) first");
  if constexpr (detail::is_full_reduction_v<std::remove_cvref_t<E>>) {
    return detail::device_reduce_full(pol, e);
  } else {
    device_tensor<value_t<E>, rank_v<E>> t(e.shape(), uninitialized);
    detail::device_assign_with<detail::assign_op::set>(pol, t.view(), e);
    return t;
  }
}
/// Device expressions evaluate on the device by default.
template <device_expression E>
auto eval(const E& e) {
  return eval(device, e);
}

/// Prints a device expression's value (evaluated on the device, then copied back).
template <device_expression E>
requires(!detail::is_kind_v<E, detail::leaf_kind>) std::ostream& operator<<(std::ostream& os,
                                                                            const E& e) {
  if constexpr (detail::is_full_reduction_v<std::remove_cvref_t<E>>) {
    const auto v = eval(device, e);
    detail::print_array(os, &v, detail::dtype_of<std::remove_cv_t<decltype(v)>>(), 0, nullptr,
                        nullptr, printoptions());
    return os;
  } else {
    const auto t = eval(device, e);
    return os << t.view();
  }
}

} // namespace lz
