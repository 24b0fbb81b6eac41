// Thrust launches of the device backend: one thrust::transform / for_each_n over a counting
// iterator for an elementwise loop (the functor carries the kernel tree BY VALUE), and
// thrust::transform_reduce for reductions. The execution policy carries the stream and an
// allocator that takes Thrust's own temporaries from the stream-ordered pool:
//   CUDA:        thrust::cuda::par_nosync(pool).on(stream)  (no hidden synchronization)
//   host system: thrust::device(pool)                       (THRUST_DEVICE_SYSTEM = TBB/OMP/CPP)
// This header instantiates Thrust algorithms, so in a CUDA build it must be compiled by nvcc.
#pragma once

#include <lz/device/config.hpp>
#include <lz/kernels/cuda/runtime.hpp>
#include <lz/kernels/thrust/plan.hpp>
#include <lz/kernels/thrust/tree.hpp>
#include <lz/ops/reduce_ops.hpp>

#if defined(LZ_DEVICE_CUDA) && !defined(__CUDACC__)
#error                                                                                             \
    "lz/device: in a CUDA build, code that evaluates device expressions must be compiled by nvcc (a .cu file); g++ files may only use <lz/device/tensor.hpp>"
#endif

#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system_error.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#if defined(LZ_DEVICE_CUDA)
#include <cuda_runtime.h>
#if THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CUDA
#error "lazuli::device_cuda needs Thrust's CUDA device system"
#endif
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#error "lazuli::device_host needs THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_TBB (or OMP, CPP)"
#endif

#include <string>
#include <type_traits>

namespace lz::kernels::dev {

/// Where and how a launch runs: its stream (nullptr: the default stream).
struct exec {
  void* stream = nullptr;
};

/// Thrust allocator over the stream-ordered pool (Thrust's reduction scratch space).
struct pool_allocator {
  using value_type = char;
  void* stream = nullptr;
  char* allocate(std::ptrdiff_t n) {
    return static_cast<char*>(pool_allocate(static_cast<std::size_t>(n), stream));
  }
  void deallocate(char* p, std::size_t n) { pool_deallocate(p, n, stream); }
};

/// Runs f(policy) with the build's Thrust execution policy for `ex`; Thrust's CUDA errors become
/// lz::device_error (with the CUDA error's name).
template <class F>
decltype(auto) with_policy(const exec& ex, const char* what, F&& f) {
  pool_allocator alloc{ex.stream};
  try {
#if defined(LZ_DEVICE_CUDA)
    return f(::thrust::cuda::par_nosync(alloc).on(static_cast<cudaStream_t>(ex.stream)));
#else
    return f(::thrust::device(alloc));
#endif
  } catch (const ::thrust::system_error& e) {
#if defined(LZ_DEVICE_CUDA)
    throw_cuda_error((std::string(what) + " (" + e.what() + ")").c_str(), e.code().value());
#else
    throw device_error(std::string("lz: ") + what + " failed: " + e.what(), e.code().value(),
                       "thrust::system_error");
#endif
  }
}

/// dst ⊕= v for =, +=, -=, *=, /=.
template <detail::assign_op Op, class D, class V>
LZ_HD D apply_assign(const D& o, const V& v) {
  if constexpr (Op == detail::assign_op::set)
    return static_cast<D>(v);
  else if constexpr (Op == detail::assign_op::add) // (the functors: integers wrap, x / 0 = 0)
    return static_cast<D>(fn::plus_fn{}(o, v));
  else if constexpr (Op == detail::assign_op::sub)
    return static_cast<D>(fn::minus_fn{}(o, v));
  else if constexpr (Op == detail::assign_op::mul)
    return static_cast<D>(fn::multiplies_fn{}(o, v));
  else
    return static_cast<D>(fn::divides_fn{}(o, v));
}

// ---- elementwise -------------------------------------------------------------------------------

/// One element of an elementwise loop (the functor Thrust copies to the device). The contiguous
/// path (Flat) is a kernel of its own, the fast one; the strided paths share one kernel with the
/// path a run-time field, the same for every thread (as reduce_elem_fn below): a rank-3 tree
/// compiles two map kernels per assignment operator instead of four.
template <class D, std::size_t R, class K, detail::assign_op Op, bool Flat>
struct map_fn {
  kdst<D, R> d;
  K k;
  loop_index<R> ix;
  path p = path::flat;
  LZ_HD void operator()(index_t i) const {
    if constexpr (Flat) {
      D& o = d.flat(i);
      o = apply_assign<Op>(o, k.flat(i));
    } else {
      if constexpr (R >= 3)
        if (p == path::general) {
          index_t idx[R];
          ix.unravel(i, idx);
          D& o = d.at(idx);
          o = apply_assign<Op>(o, k.at(idx));
          return;
        }
      if constexpr (R >= 2)
        if (p == path::rows) {
          const index_t r = ix.div[R - 1].div(i), c = i - r * ix.ext[R - 1];
          D& o = d.at2(r, c);
          o = apply_assign<Op>(o, k.at2(r, c));
          return;
        }
      D& o = d.lin(i);
      o = apply_assign<Op>(o, k.lin(i));
    }
  }
};

/// The contiguous fast path of `=`: a pure value per index, for thrust::transform.
template <class D, class K>
struct flat_value_fn {
  K k;
  LZ_HD D operator()(index_t i) const { return static_cast<D>(k.flat(i)); }
};

/// Elementwise loop dst ⊕= k over the planned loop L. Enqueued on ex.stream; does not wait.
template <detail::assign_op Op, class D, std::size_t R, class K>
void run_map(const exec& ex, const kdst<D, R>& d, const K& k, const loop_plan& L) {
  static_assert(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<kdst<D, R>>,
                "lz: device kernel trees must be trivially copyable");
  if (L.size == 0) return;
  const loop_index<R> ix = make_index<R>(L);
  with_policy(ex, "thrust::for_each_n (device map)", [&](auto&& pol) {
    const ::thrust::counting_iterator<index_t> first(0);
    if (L.p == path::flat) {
      if constexpr (Op == detail::assign_op::set)
        ::thrust::transform(pol, first, first + L.size, d.p, flat_value_fn<D, K>{k});
      else
        ::thrust::for_each_n(pol, first, L.size, map_fn<D, R, K, Op, true>{d, k, ix});
      return;
    }
    if constexpr (R >= 1) // linear, rows or general
      ::thrust::for_each_n(pol, first, L.size, map_fn<D, R, K, Op, false>{d, k, ix, L.p});
  });
  count_launch();
  check_launch("device map launch");
}

// ---- reductions --------------------------------------------------------------------------------

template <class A>
concept arg_accumulator = requires(A a) {
  a.index;
};

/// Combine of reduction Op, usable on the device. Arg-reductions use a commutative total order
/// (NaN first, then the better value, then the smaller index) because Thrust's reduce may
/// combine partials in any order; it selects the same element as the CPU's ordered combine.
template <class Op>
struct combiner {
  template <class A>
  LZ_HD A operator()(const A& a, const A& b) const {
    if constexpr (arg_accumulator<A>) {
      constexpr bool is_max = std::is_same_v<Op, red::argmax_op>;
      if (a.index < 0) return b;
      if (b.index < 0) return a;
      const bool an = a.value != a.value, bn = b.value != b.value; // NaN (floating only)
      if (an || bn) {
        if (an && bn) return a.index < b.index ? a : b;
        return an ? a : b;
      }
      if (is_max ? b.value > a.value : b.value < a.value) return b;
      if (is_max ? a.value > b.value : a.value < b.value) return a;
      return a.index < b.index ? a : b;
    } else {
      return Op::combine(a, b);
    }
  }
};

/// Element i of a reduction's operand, lifted to the accumulator (with its logical index for
/// arg-reductions). The access path is a run-time field, as in map_fn's strided kernel: a
/// reduction is one CUB reduce (three kernels) per tree instead of one per path, so a rank-3
/// tree compiles one instead of four; the branch is the same for every thread.
template <class A, class V, std::size_t R, class K>
struct reduce_elem_fn {
  K k;
  loop_index<R> ix;
  path p = path::flat;
  LZ_HD A operator()(index_t i) const { return lift(value(i), i); }
  LZ_HD V value(index_t i) const {
    if constexpr (R >= 3)
      if (p == path::general) {
        index_t idx[R];
        ix.unravel(i, idx);
        return static_cast<V>(k.at(idx));
      }
    if constexpr (R >= 2)
      if (p == path::rows) {
        const index_t r = ix.div[R - 1].div(i), c = i - r * ix.ext[R - 1];
        return static_cast<V>(k.at2(r, c));
      }
    if constexpr (R >= 1)
      if (p == path::linear) return static_cast<V>(k.lin(i));
    return static_cast<V>(k.flat(i));
  }
  LZ_HD static A lift(V v, index_t i) {
    if constexpr (arg_accumulator<A>)
      return A{v, i};
    else
      return static_cast<A>(v);
  }
};

/// Full reduction of kernel tree k (value type V) by Op over the planned loop L, starting from
/// init (the identity, or "nothing" for arg-reductions). Returns the accumulator to the host: a
/// transform_reduce synchronizes its stream.
template <class Op, class V, class A, std::size_t R, class K>
A run_reduce(const exec& ex, const K& k, const loop_plan& L, const A& init) {
  if (L.size == 0) return init;
  const reduce_elem_fn<A, V, R, K> elem{k, make_index<R>(L), L.p};
  const A r = with_policy(ex, "thrust::transform_reduce (device reduction)", [&](auto&& pol) -> A {
    const ::thrust::counting_iterator<index_t> first(0), last(L.size);
    return ::thrust::transform_reduce(pol, first, last, elem, init, combiner<Op>{});
  });
  count_launch();
  return r;
}

/// One output of an axis reduction per call: the tree's leading R-1 dims are the output's
/// (planned by `ox`), dim R-1 is the reduced axis (stride s[R-1] in every leaf). Blocks of 128
/// elements are combined in a binary cascade, so float sums grow their error like log(n), and
/// the result does not depend on the thread count.
template <class Op, class Fin, class A, class V, class D, std::size_t R, class K,
          detail::assign_op AOp>
struct axis_fn {
  kdst<D, R> d; // output strides in slots 0..R-2
  K k;
  loop_index<R - 1> ox;
  index_t len;
  A init;
  LZ_HD void operator()(index_t j) const {
    index_t idx[R];
    ox.unravel(j, idx);
    idx[R - 1] = 0;
    const K kk = k.moved(idx, R - 1);
    const combiner<Op> comb{};
    A level[48];
    unsigned long long blocks = 0;
    for (index_t t = 0; t < len;) {
      const index_t end = len - t > 128 ? t + 128 : len;
      A s = init;
      for (; t < end; ++t) {
        const V v = static_cast<V>(kk.lin(t));
        if constexpr (arg_accumulator<A>)
          s = comb(s, A{v, t});
        else
          s = comb(s, static_cast<A>(v));
      }
      int l = 0;
      for (unsigned long long c = blocks; c & 1; c >>= 1, ++l) s = comb(level[l], s);
      level[l] = s;
      ++blocks;
    }
    A acc = init;
    for (int l = 47; l >= 0; --l)
      if ((blocks >> l) & 1) acc = comb(acc, level[l]);
    D& o = d.at(idx);
    o = apply_assign<AOp>(o, Fin{}(acc, len));
  }
};

/// Axis reduction: nout outputs, each over `len` elements. Enqueued; does not wait.
template <class Op, class Fin, class A, class V, detail::assign_op AOp, class D, std::size_t R,
          class K>
void run_reduce_axis(const exec& ex, const kdst<D, R>& d, const K& k, const loop_plan& out,
                     index_t len, const A& init) {
  static_assert(R >= 1);
  if (out.size == 0) return;
  const loop_index<R - 1> ox = make_index<R - 1>(out);
  with_policy(ex, "thrust::for_each_n (device axis reduction)", [&](auto&& pol) {
    ::thrust::for_each_n(pol, ::thrust::counting_iterator<index_t>(0), out.size,
                         axis_fn<Op, Fin, A, V, D, R, K, AOp>{d, k, ox, len, init});
  });
  count_launch();
  check_launch("device axis reduction launch");
}

} // namespace lz::kernels::dev
