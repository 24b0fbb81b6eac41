// Device plans: products (and everything around them) on the device through the SAME fusion pass
// as the host. fusion::plan_assign (fusion/rules.hpp) makes every decision — gemm/gemv/syrk/chain
// order, α/β folding, trans flags from layouts, copies into BLAS layouts, own kernels for integer
// or awkward small products, temporaries for aliasing, nested groups — and calls a sink for each
// step; the sinks here turn the steps into device work:
//   gemm/gemv/axpy/scal → lz::kernels::dev::blas (cuBLAS, or CBLAS on the host system)
//   syrk                → one device gemm (the device BLAS interface has no syrk + mirror)
//   lapack (solves)     → lz::kernels::dev::lapack: cuSOLVER on a GPU, LAPACK on the host system
//   own-kernel steps    → kernels/thrust/gemm_generic.hpp (one Thrust launch, any strides)
//   reduce / map        → the device reduce rule and the one-loop map (device/evaluate.hpp)
//   temporaries         → the stream-ordered pool (device_temps), never cudaMalloc
// One device-only rule runs first: maximum(α·A·B + broadcast_to(bias, {m, n}), 0) → one
// cuBLASLt matmul with the bias+ReLU epilogue (falling back to gemm + one elementwise pass).
// device_exec_sink runs; device_explain_sink records (lz::explain(lz::device, dst, e)).
#pragma once

#include <lz/device/evaluate.hpp>
#include <lz/fusion/rules.hpp>
#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/cuda/lapack.hpp>
#include <lz/kernels/cuda/sparse.hpp>
#include <lz/kernels/thrust/gemm_generic.hpp>

#include <string>
#include <vector>

namespace lz {
namespace detail {

/// One bias+ReLU step: C = max(alpha·op(A)·op(B) + bias (per column), 0), row-major C.
template <class V>
struct bias_relu_step {
  fusion::gemm_step<V> g;
  const V* bias = nullptr;
  fusion::origin bias_from{};
};

// Device BLAS routine name of a step, as the build runs it: cublasDgemm / cblas_dgemm.
template <class V>
std::string device_routine(const char* op) {
  const bool f = std::is_same_v<V, float>;
  return LZ_DEVICE_IS_GPU ? std::string("cublas") + (f ? "S" : "D") + op
                          : std::string("cblas_") + (f ? "s" : "d") + op;
}

// Device LAPACK routine name of a solver step, as the build runs it.
template <class V>
std::string device_lapack_routine(fusion::lapack_op op) {
  const std::string t = std::is_same_v<V, float> ? "S" : "D";
  if (!LZ_DEVICE_IS_GPU)
    return std::string("host system ") + fusion::detail_plan::lapack_name<V>(op);
  switch (op) {
  case fusion::lapack_op::getri:
    return "cusolverDn" + t + "getrs against I (getri)";
  case fusion::lapack_op::trtrs:
    return "cublas" + t + "trsm (trtrs)";
  case fusion::lapack_op::gels:
    return "cusolverDn" + t + "geqrf + ormqr, cublas" + t + "trsm (gels)";
  default:
    return "cusolverDn" + t + (fusion::detail_plan::lapack_name<V>(op) + 1);
  }
}

template <class V>
constexpr void require_device_element() {
  static_assert(std::is_arithmetic_v<V>,
                "lz: device products need arithmetic elements (complex on the device is not "
                "supported)");
}

/// Runs each step on the device as it is lowered (the normal path of a device assignment).
class device_exec_sink {
 public:
  template <class U, std::size_t R>
  using view = device_view<U, R>;

  device_exec_sink(const device_policy& pol, device_temps& temps) : pol_(pol), temps_(temps) {}
  device_exec_sink(const device_exec_sink&) = delete;
  device_exec_sink& operator=(const device_exec_sink&) = delete;

  /// A fresh row-major temporary from the stream-ordered pool (returned with the assignment).
  template <class T, std::size_t R>
  device_view<T, R> temp(const shape_t<R>& s, const char* why) {
    const auto l = strided_layout<R>::right(s);
    T* p = static_cast<T*>(temps_.get(device_bytes(l.size(), sizeof(T))));
    ++ntemps_;
    if (LZ_UNLIKELY(logging::on(logging::alloc)))
      logging::write(logging::alloc,
                     std::string("device temporary ") + to_string(l) + " " +
                         fusion::detail_plan::format_bytes(std::size_t(l.size()) * sizeof(T)) +
                         " (" + why + ")");
    return device_view<T, R>(p, l, trusted);
  }
  int last_temp() const { return ntemps_ - 1; }
  fusion::origin origin_of(const void*) const { return {}; }
  void set_dst(const void*) {}
  bool noting() const { return logging::on(logging::fusion); }
  void note(fusion::detail_plan::note_text msg) { fusion::detail_plan::log_note(msg); }

  template <class V>
  void gemm(const char* rule, const fusion::gemm_step<V>& g) {
    require_device_element<V>();
    trace(rule, g.generic ? "gemm_generic" : "gemm", g.m, g.n, g.k);
    if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>) {
      if (!g.generic) {
        kernels::dev::blas::gemm(pol_.stream, g.o, g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.A.ptr,
                                 g.lda, g.B.ptr, g.ldb, g.beta, g.C.ptr, g.ldc);
        return;
      }
    }
    kernels::dev::gemm_generic<V>(exec_of(pol_), g.m, g.n, g.k, g.alpha, g.A.ptr, g.A.rs, g.A.cs,
                                  g.B.ptr, g.B.rs, g.B.cs, g.beta, g.C.ptr, g.C.rs, g.C.cs);
  }
  template <class V>
  void gemv(const char* rule, const fusion::gemv_step<V>& g) {
    require_device_element<V>();
    trace(rule, g.generic ? "gemv_generic" : "gemv", g.m, g.n, 0);
    if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>) {
      if (!g.generic) {
        kernels::dev::blas::gemv(pol_.stream, g.o, g.t, g.m, g.n, g.alpha, g.A.ptr, g.lda, g.x.ptr,
                                 g.x.rs, g.beta, g.y.ptr, g.y.rs);
        return;
      }
    }
    // g.A is op(A) as used (rows × cols, any strides).
    kernels::dev::gemv_generic<V>(exec_of(pol_), g.A.rows, g.A.cols, g.alpha, g.A.ptr, g.A.rs,
                                  g.A.cs, g.x.ptr, g.x.rs, g.beta, g.y.ptr, g.y.rs);
  }
  /// syrk (C = α·op(A)·op(A)ᵀ + β·C) as one gemm with B = A and the opposite flag.
  template <class V>
  void syrk(const char* rule, const fusion::syrk_step<V>& g) {
    trace(rule, "syrk as gemm", g.n, g.n, g.k);
    if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>) {
      using kernels::blas::trans;
      const trans tb = g.t == trans::none ? trans::transpose : trans::none;
      kernels::dev::blas::gemm(pol_.stream, g.o, g.t, tb, g.n, g.n, g.k, g.alpha, g.A.ptr, g.lda,
                               g.A.ptr, g.lda, g.beta, g.C.ptr, g.ldc);
    }
  }
  template <class V>
  void axpy(const char* rule, const fusion::axpy_step<V>& g) {
    trace(rule, "axpy", g.n, 0, 0);
    if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>)
      kernels::dev::blas::axpy(pol_.stream, g.n, g.alpha, g.x.ptr, g.x.rs, g.y.ptr, g.y.rs);
  }
  template <class V>
  void scal(const char* rule, const fusion::scal_step<V>& g) {
    trace(rule, "scal", g.n, 0, 0);
    if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>)
      kernels::dev::blas::scal(pol_.stream, g.n, g.alpha, g.x.ptr, g.x.rs);
  }
  /// A solver step: cuSOLVER (and cuBLAS's trsm) on a GPU, lazuli's LAPACK door on the host
  /// system (kernels/include/lz/kernels/cuda/lapack.hpp); pivots and workspaces in the pool.
  /// LAPACK's info > 0 throws lz::linalg_error naming the user's call, before the destination
  /// is written (the solver lowering factors first: fusion/solvers.hpp).
  template <class V>
  void lapack(const char* rule, const fusion::lapack_step<V>& g) {
    require_device_element<V>();
    if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>) run_lapack(rule, g);
  }

 private:
  template <class V>
  void run_lapack(const char* rule, const fusion::lapack_step<V>& g) {
    namespace dl = kernels::dev::lapack;
    trace(rule, fusion::detail_plan::lapack_name<V>(g.op), g.m, g.n, g.nrhs);
    void* st = pol_.stream;
    int info = 0;
    switch (g.op) {
    case fusion::lapack_op::getrf:
      info = dl::getrf(st, g.m, g.n, g.A.ptr, g.A.cs, g.ipiv);
      break;
    case fusion::lapack_op::getrs:
      dl::getrs(st, g.t, g.n, g.nrhs, g.A.ptr, g.A.cs, g.ipiv, g.B.ptr, g.B.cs);
      break;
    case fusion::lapack_op::getri:
      info = dl::getri(st, g.n, g.A.ptr, g.A.cs, g.ipiv);
      break;
    case fusion::lapack_op::potrf:
      info = dl::potrf(st, g.u, g.n, g.A.ptr, g.A.cs);
      break;
    case fusion::lapack_op::potrs:
      dl::potrs(st, g.u, g.n, g.nrhs, g.A.ptr, g.A.cs, g.B.ptr, g.B.cs);
      break;
    case fusion::lapack_op::trtrs:
      info = dl::trtrs(st, g.u, g.t, g.n, g.nrhs, g.A.ptr, g.A.cs, g.B.ptr, g.B.cs);
      break;
    case fusion::lapack_op::gels:
      info = dl::gels(st, g.t, g.m, g.n, g.nrhs, g.A.ptr, g.A.cs, g.B.ptr, g.B.cs);
      break;
    case fusion::lapack_op::trcheck:
      info = dl::trcheck(st, g.n, g.A.ptr, g.A.cs);
      break;
    }
    if (info > 0)
      fusion::detail_plan::throw_lapack_info(g.call, fusion::detail_plan::lapack_name<V>(g.op),
                                             info, g.m, g.n);
  }

 public:
  /// A sparse step: cusparseSpMV / cusparseSpMM (lazuli's CPU kernel on the host system).
  /// cuSPARSE takes contiguous vectors and row- or column-major matrices: an operand in another
  /// layout is packed into a pool temporary first (one device loop), a result written through
  /// one and copied back.
  template <class V>
  void sparse(const char* rule, const fusion::sparse_step<V>& g) {
    require_device_element<V>();
    if (g.op == fusion::sparse_op::add || g.op == fusion::sparse_op::multd ||
        g.op == fusion::sparse_op::summv || g.fill.fill)
      throw std::logic_error( // (expr/sparse.hpp refuses device operands to A + D, A * B, A + B)
          "lz: sparse + dense and sparse x sparse are not wired on the device");
    using kernels::blas::order;
    trace(rule, g.op == fusion::sparse_op::spmv ? "csrmv" : "csrmm", g.A.rows, g.A.cols, g.k);
    const kernels::dev::sparse::csr<V> A{g.A.rows,    g.A.cols,    g.A.nnz,   g.A.index_bits,
                                         g.A.row_ptr, g.A.col_idx, g.A.values};
    // A writable view of C (rank R), and a fresh temporary of its shape in order `o`.
    const auto c_view = [&]<std::size_t R>(std::integral_constant<std::size_t, R>) {
      strided_layout<R> l;
      l.extents[0] = g.C.rows, l.strides[0] = g.C.rs;
      if constexpr (R == 2) l.extents[1] = g.C.cols, l.strides[1] = g.C.cs;
      return device_view<V, R>(g.C.ptr, l, trusted);
    };
    if (g.op == fusion::sparse_op::spmv) {
      const V* x = g.B.ptr;
      if (g.B.rows > 1 && g.B.rs != 1) {
        const auto t = temp<V, 1>(shape_t<1>{g.B.rows}, "sparse product operand (contiguous)");
        device_map<assign_op::set>(pol_, t, fusion::view_of<1>(*this, g.B), temps_);
        x = t.data();
      }
      if (g.C.rows > 1 && g.C.rs != 1) {
        const auto y = c_view(std::integral_constant<std::size_t, 1>{});
        const auto t = temp<V, 1>(shape_t<1>{g.C.rows}, "sparse product result (contiguous)");
        if (g.beta != V(0)) device_map<assign_op::set>(pol_, t, device_view<const V, 1>(y), temps_);
        kernels::dev::sparse::spmv(pol_.stream, g.t, A, g.alpha, x, g.beta, t.data());
        device_map<assign_op::set>(pol_, y, device_view<const V, 1>(t), temps_);
        return;
      }
      kernels::dev::sparse::spmv(pol_.stream, g.t, A, g.alpha, x, g.beta, g.C.ptr);
      return;
    }
    // SpMM: C's order (row-major when it is neither), B packed into that order when it differs.
    const auto order_of = [](index_t rows, index_t cols, index_t rs, index_t cs, order& o,
                             index_t& ld) {
      if ((cs == 1 || cols == 1) && rs >= std::max<index_t>(cols, 1)) {
        o = order::row_major, ld = std::max<index_t>(rs, 1);
        return true;
      }
      if ((rs == 1 || rows == 1) && cs >= std::max<index_t>(rows, 1)) {
        o = order::col_major, ld = std::max<index_t>(cs, 1);
        return true;
      }
      return false;
    };
    // A temporary of shape rows × cols stored in order o.
    const auto packed = [&](index_t rows, index_t cols, order o, const char* why) {
      const auto t =
          temp<V, 2>(o == order::row_major ? shape_t<2>{rows, cols} : shape_t<2>{cols, rows}, why);
      strided_layout<2> l;
      l.extents = {rows, cols};
      l.strides = o == order::row_major ? shape_t<2>{cols, 1} : shape_t<2>{1, rows};
      return device_view<V, 2>(t.data(), l, trusted);
    };
    order oc = order::row_major, ob = order::row_major;
    index_t ldc = 0, ldb = 0;
    const auto Cv = c_view(std::integral_constant<std::size_t, 2>{});
    device_view<V, 2> C = Cv;
    const bool c_ok = order_of(g.C.rows, g.C.cols, g.C.rs, g.C.cs, oc, ldc);
    if (!c_ok) {
      C = packed(g.C.rows, g.C.cols, oc, "sparse product result (row-major)");
      ldc = std::max<index_t>(g.C.cols, 1);
      if (g.beta != V(0)) device_map<assign_op::set>(pol_, C, device_view<const V, 2>(Cv), temps_);
    }
    const V* B = g.B.ptr;
    if (!order_of(g.B.rows, g.B.cols, g.B.rs, g.B.cs, ob, ldb) || ob != oc) {
      const auto t = packed(g.B.rows, g.B.cols, oc, "sparse product operand (C's order)");
      device_map<assign_op::set>(pol_, t, fusion::view_of<2>(*this, g.B), temps_);
      B = t.data();
      ob = oc;
      ldb = std::max<index_t>(oc == order::row_major ? g.B.cols : g.B.rows, 1);
    }
    kernels::dev::sparse::spmm(pol_.stream, g.t, A, g.k, g.alpha, B, ob, ldb, g.beta, C.data(), oc,
                               ldc);
    if (!c_ok) device_map<assign_op::set>(pol_, Cv, device_view<const V, 2>(C), temps_);
  }
  /// One cuBLASLt call; when the epilogue is unavailable, gemm (β = 0) then ONE elementwise pass
  /// dst = maximum(dst + bias, 0) (`pass` builds that tree over the destination).
  template <class V, class Pass>
  void bias_relu(const bias_relu_step<V>& b, Pass&& pass) {
    const auto& g = b.g;
    trace("bias+relu", "gemm_bias_relu", g.m, g.n, g.k);
    if (kernels::dev::blas::gemm_bias_relu(pol_.stream, g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.A.ptr,
                                           g.lda, g.B.ptr, g.ldb, b.bias, g.C.ptr, g.ldc))
      return;
    if (logging::on(logging::device))
      logging::write(logging::device, kernels::dev::blas::epilogue_used(sizeof(V))
                                          ? "bias+relu: epilogue unavailable, gemm + one pass"
                                          : "bias+relu: gemm + one pass (epilogue policy)");
    kernels::dev::blas::gemm(pol_.stream, g.o, g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.A.ptr, g.lda,
                             g.B.ptr, g.ldb, V(0), g.C.ptr, g.ldc);
    pass();
  }

  /// A reduction step straight into dst (the reduce rule decided that it applies).
  template <assign_op Op, class T, std::size_t R, class E>
  void reduce(const device_policy& pol, device_view<T, R> dst, const E& e) {
    if constexpr (fusion::is_axis_reduction_v<E>) {
      device_reduce_axis<Op>(pol, dst, e, temps_);
    } else {
      const auto v = device_reduce_full(pol, e);
      T cur{};
      if constexpr (Op != assign_op::set)
        kernels::dev::copy(&cur, dst.data(), sizeof(T), kernels::dev::copy_kind::device_to_host,
                           pol.stream);
      cur = kernels::dev::apply_assign<Op>(cur, v);
      kernels::dev::copy(dst.data(), &cur, sizeof(T), kernels::dev::copy_kind::host_to_device,
                         pol.stream);
    }
  }
  /// The map rule on the device: one Thrust loop (no opaque nodes are left in e).
  template <assign_op Op, class T, std::size_t R, class E>
  void map(const device_policy& pol, device_view<T, R> dst, const E& e) {
    device_map<Op>(pol, dst, e, temps_);
  }

 private:
  void trace(const char* rule, const char* step, index_t m, index_t n, index_t k) const {
    if (LZ_UNLIKELY(logging::on(logging::device)))
      logging::write(logging::device, std::string(step) + " m=" + std::to_string(m) +
                                          " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                                          " [rule " + rule + ", " + stream_text(pol_) + "]");
  }
  const device_policy& pol_;
  device_temps& temps_;
  int ntemps_ = 0;
};

static_assert(fusion::plan_sink<device_exec_sink, device_policy>);

/// Text of the device map rule for dst ⊕= e (a dry kernel build: nothing runs).
template <assign_op Op, class T, std::size_t R, class E>
std::string device_map_text(const device_policy& pol, device_view<T, R> dst, const E& e,
                            const std::string& dst_name, bool& alias,
                            std::vector<std::string>& notes) {
  kernel_build ctx{&pol, nullptr, true, &notes};
  auto k = build_kernel<R>(e, root_map(e, dst.shape()), ctx);
  auto d = make_kdst(dst.data(), dst.strides());
  alias = reads_dst_elsewhere(d, k, dst.shape());
  index_t* st[kernels::cpu::max_operands];
  st[0] = d.s;
  const int n = 1 + collect_strides(k, st + 1);
  const auto L = kernels::dev::plan_loop(int(R), dst.shape().data(), n, st, false);
  const bool transform = L.p == kernels::dev::path::flat && Op == assign_op::set;
  return "loop " + dst_name + " " + assign_op_symbol(Op) + " f(" + std::to_string(n - 1) +
         " leaves): one " + (transform ? "thrust::transform" : "thrust::for_each_n") + ", path " +
         kernels::dev::describe(L);
}

/// Records the device plan as text (lz::explain(lz::device, dst, e)); BLAS steps are named as
/// the build runs them (cublasDgemm on a GPU, cblas_dgemm on the host system).
class device_explain_sink : public fusion::explain_sink {
 public:
  template <class U, std::size_t R>
  using view = device_view<U, R>;

  template <class T, std::size_t R>
  device_view<T, R> temp(const shape_t<R>& s, const char* why) {
    const auto t = fusion::explain_sink::temp<T, R>(s, why); // placeholder, numbered
    return device_view<T, R>(t.data(), t.layout(), trusted);
  }

  template <class V>
  void gemm(const char* rule, const fusion::gemm_step<V>& g) {
    require_device_element<V>();
    step(fusion::detail_plan::describe_gemm(
             g.generic ? "thrust gemm_generic" : device_routine<V>("gemm").c_str(), g.generic,
             char(g.o), char(g.ta), char(g.tb), g.m, g.n, g.k,
             fusion::detail_plan::scalar_text(g.alpha), fusion::detail_plan::scalar_text(g.beta),
             g.lda, g.ldb, g.ldc, g.A.from.id, g.B.from.id, g.C.from.id),
         rule);
  }
  template <class V>
  void gemv(const char* rule, const fusion::gemv_step<V>& g) {
    require_device_element<V>();
    step(fusion::detail_plan::describe_gemv(
             g.generic ? "thrust gemv_generic" : device_routine<V>("gemv").c_str(), g.generic,
             char(g.o), char(g.t), g.m, g.n, fusion::detail_plan::scalar_text(g.alpha),
             fusion::detail_plan::scalar_text(g.beta), g.lda, g.x.rs, g.y.rs, g.A.from.id,
             g.x.from.id, g.y.from.id),
         rule);
  }
  /// A solver step, named as the build runs it: cusolverDnDgetrf (cublasDtrsm for a triangular
  /// solve) on a GPU, "host system dgetrf" on the host system.
  template <class V>
  void lapack(const char* rule, const fusion::lapack_step<V>& g) {
    require_device_element<V>();
    if (g.op == fusion::lapack_op::trcheck)
      step(fusion::detail_plan::describe_trcheck(g.n, g.A.from.id), rule);
    else
      step(fusion::detail_plan::describe_lapack(device_lapack_routine<V>(g.op).c_str(), char(g.t),
                                                char(g.u), g.m, g.n, g.nrhs, g.A.cs, g.B.cs,
                                                g.A.from.id, g.B.from.id),
           rule);
  }
  template <class V>
  void sparse(const char* rule, const fusion::sparse_step<V>& g) {
    require_device_element<V>();
    if (g.op == fusion::sparse_op::add || g.op == fusion::sparse_op::multd ||
        g.op == fusion::sparse_op::summv || g.fill.fill)
      throw std::logic_error( // (expr/sparse.hpp refuses device operands to A + D, A * B, A + B)
          "lz: sparse + dense and sparse x sparse are not wired on the device");
    const bool v = g.op == fusion::sparse_op::spmv;
    const std::string routine =
        LZ_DEVICE_IS_GPU ? (v ? "cusparseSpMV " : "cusparseSpMM ") : "host system ";
    step(fusion::detail_plan::describe_sparse(
             (routine + fusion::detail_plan::blas_name<V>(v ? "csrmv" : "csrmm")).c_str(),
             char(g.t), g.A.rows, g.A.cols, g.A.nnz, g.k, fusion::detail_plan::scalar_text(g.alpha),
             fusion::detail_plan::scalar_text(g.beta), g.B.rs, g.C.rs, g.A.from.id, g.B.from.id,
             g.C.from.id),
         rule);
  }
  template <class V>
  void syrk(const char* rule, const fusion::syrk_step<V>& g) {
    using kernels::blas::trans;
    const trans tb = g.t == trans::none ? trans::transpose : trans::none;
    step(fusion::detail_plan::describe_gemm(device_routine<V>("gemm").c_str(), false, char(g.o),
                                            char(g.t), char(tb), g.n, g.n, g.k,
                                            fusion::detail_plan::scalar_text(g.alpha),
                                            fusion::detail_plan::scalar_text(g.beta), g.lda, g.lda,
                                            g.ldc, g.A.from.id, g.A.from.id, g.C.from.id) +
             "  (syrk pattern, one gemm on the device)",
         rule);
  }
  template <class V>
  void axpy(const char* rule, const fusion::axpy_step<V>& g) {
    step(fusion::detail_plan::describe_level1(device_routine<V>("axpy").c_str(), g.n,
                                              fusion::detail_plan::scalar_text(g.alpha), g.x.rs,
                                              g.y.rs, g.x.from.id, g.y.from.id),
         rule);
  }
  template <class V>
  void scal(const char* rule, const fusion::scal_step<V>& g) {
    step(fusion::detail_plan::describe_level1(device_routine<V>("scal").c_str(), g.n,
                                              fusion::detail_plan::scalar_text(g.alpha), g.x.rs, 0,
                                              g.x.from.id, fusion::origin::user),
         rule);
  }
  template <class V, class Pass>
  void bias_relu(const bias_relu_step<V>& b, Pass&&) {
    const auto& g = b.g;
    const bool epilogue = kernels::dev::blas::epilogue_used(sizeof(V));
    const std::string name = !epilogue ? device_routine<V>("gemm") + " then one bias+relu pass"
                             : LZ_DEVICE_IS_GPU
                                 ? std::string("cublasLtMatmul ") +
                                       (std::is_same_v<V, float> ? "s" : "d") +
                                       "gemm + RELU_BIAS epilogue"
                                 : "device " + device_routine<V>("gemm") + " + bias + relu";
    step(fusion::detail_plan::describe_gemm(name.c_str(), false, char(g.o), char(g.ta), char(g.tb),
                                            g.m, g.n, g.k,
                                            fusion::detail_plan::scalar_text(g.alpha), "0", g.lda,
                                            g.ldb, g.ldc, g.A.from.id, g.B.from.id, g.C.from.id) +
             (epilogue ? ", bias per column (one call; gemm + one elementwise pass if the epilogue "
                         "is unavailable)"
                       : ", bias per column (the epilogue policy prefers gemm + one pass for "
                         "this type)"),
         "bias+relu");
  }

  template <assign_op Op, class T, std::size_t R, class E>
  void reduce(const device_policy&, device_view<T, R> dst, const E& e) {
    if constexpr (fusion::is_axis_reduction_v<E>) {
      step(std::string("reduce ") + std::remove_cvref_t<E>::op_name() + " along axis " +
               std::to_string(e.axis) + " (" + std::to_string(e.arg.shape()[e.axis]) + ") → " +
               name_of(dst.data()) + to_string(dst.layout()) + ": one thrust::for_each_n over " +
               std::to_string(dst.size()) + " outputs",
           "reduce");
    } else {
      step(std::string("reduce ") + std::remove_cvref_t<E>::op_name() + " over " +
               to_string(e.arg.shape()) + " → " + name_of(dst.data()) +
               ": one thrust::transform_reduce, the value copied into place",
           "reduce");
    }
  }
  template <assign_op Op, class T, std::size_t R, class E>
  void map(const device_policy& pol, device_view<T, R> dst, const E& e) {
    bool alias = false;
    std::vector<std::string> notes;
    std::string text = device_map_text<Op>(pol, dst, e, name_of(dst.data()), alias, notes);
    for (const auto& n : notes) note({"nested reduction: ", n});
    if (alias) {
      (void)temp<T, R>(dst.shape(), "aliasing: the loop reads the destination elsewhere");
      text += " into the temporary, then one copy loop";
    }
    step(text, "map");
  }
};

// ---- bias+ReLU (device-only rule, tried before the shared list) --------------------------------
//   dst = maximum(α·op(A)·op(B) + broadcast_to(bias, {m, n}), 0)   (or maximum(0, ...))
//   → ONE cuBLASLt matmul with the RELU_BIAS epilogue (bias[j] added to column j), when A and B
//   are device views (any scalars/transposes peeled) in BLAS layouts, dst is row-major with unit
//   column stride, the bias is a contiguous vector of length n, and nothing overlaps dst.
//   Otherwise the shared rules plan it (nested: gemm β=0, one bias+ReLU loop).
namespace detail_bias_relu {

using fusion::detail_terms::arg_t;
using fusion::detail_terms::is_scalar;

// Which argument of maximum(X, 0) / maximum(0, X) is X (-1: not that shape).
template <class E>
constexpr int relu_arg() {
  if constexpr (fusion::detail_terms::is_map_of<fn::maximum_fn, E>()) {
    if constexpr (is_scalar<arg_t<E, 1>>() && !is_scalar<arg_t<E, 0>>())
      return 0;
    else if constexpr (is_scalar<arg_t<E, 0>>() && !is_scalar<arg_t<E, 1>>())
      return 1;
    else
      return -1;
  } else {
    return -1;
  }
}

// A product term whose two factors peel to device leaves of element type T (no temporaries).
template <class T, class X>
constexpr bool leaf_product() {
  using M = fusion::detail_operands::peeled_t<X>;
  if constexpr (!is_matmul_v<M>) {
    return false;
  } else {
    using L = fusion::detail_operands::peeled_t<decltype(std::declval<M>().lhs)>;
    using Rh = fusion::detail_operands::peeled_t<decltype(std::declval<M>().rhs)>;
    return rank_v<M> == 2 && std::is_same_v<kind_t<L>, leaf_kind> &&
           std::is_same_v<kind_t<Rh>, leaf_kind> && std::is_same_v<value_t<L>, T> &&
           std::is_same_v<value_t<Rh>, T>;
  }
}

// A bias term: broadcast_to(bias, {m, n}) of a device vector is a rank-2 view with row stride 0
// (checked at run time); a broadcast node over a rank-1 view is the same thing.
template <class T, class X>
constexpr bool bias_term() {
  if constexpr (std::is_same_v<kind_t<X>, leaf_kind>) {
    return rank_v<X> == 2 && std::is_same_v<value_t<X>, T>;
  } else if constexpr (std::is_same_v<kind_t<X>, broadcast_kind> && rank_v<X> == 2) {
    using B = std::remove_cvref_t<decltype(std::declval<X>().arg)>;
    return std::is_same_v<kind_t<B>, leaf_kind> && rank_v<B> == 1 && std::is_same_v<value_t<B>, T>;
  } else {
    return false;
  }
}

// The bias vector's memory when `term` is a per-column bias of an m×n result (contiguous).
template <class T, class X>
const T* bias_of(const X& term, index_t m, index_t n) {
  if constexpr (std::is_same_v<kind_t<X>, leaf_kind>) {
    const auto& l = term.layout();
    const bool ok = l.extents[0] == m && l.extents[1] == n && (m == 1 || l.strides[0] == 0) &&
                    (n == 1 || l.strides[1] == 1);
    return ok ? term.data() : nullptr;
  } else {
    const auto& v = term.arg;
    const bool ok = v.shape()[0] == n && (n == 1 || v.layout().strides[0] == 1);
    return ok ? v.data() : nullptr;
  }
}

template <class T, class E>
constexpr bool candidate() {
  if constexpr (!(std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    return false;
  } else {
    constexpr int i = relu_arg<E>();
    if constexpr (i < 0) {
      return false;
    } else {
      using X = arg_t<E, std::size_t(i)>;
      constexpr auto c = fusion::term_counts_v<X>;
      return rank_v<X> == 2 && c.products == 1 && c.others == 1 && c.product_rank == 2;
    }
  }
}

} // namespace detail_bias_relu

/// The bias+ReLU rule; false (having emitted nothing) when it does not apply.
template <class Sink, class T, class E>
bool try_bias_relu(Sink& s, const device_policy& pol, device_view<T, 2> dst, const E& e) {
  using namespace detail_bias_relu;
  using kernels::blas::order;
  using kernels::blas::trans;
  constexpr std::size_t xi = std::size_t(relu_arg<E>());
  if (get<1 - xi>(e.args).value != 0) return false;
  const auto& x = get<xi>(e.args);
  if (x.shape() != dst.shape() || fusion::touches_dst(dst, x)) return false;
  const index_t m = dst.shape()[0], n = dst.shape()[1];
  bool ok = true;
  bias_relu_step<T> b;
  T alpha{};
  bool has_bias = false;
  fusion::for_each_term(x, T(1), [&](const auto& term, const T& coef) {
    using X = std::remove_cvref_t<decltype(term)>;
    if constexpr (fusion::detail_terms::is_product_term<X>()) {
      if constexpr (leaf_product<T, X>()) {
        fusion::scaled_mat<T> f[2];
        std::size_t nf = 0;
        alpha = coef;
        fusion::detail_products::collect<T>(s, pol, term, false, alpha, f, nf, "bias+relu");
        b.g.A = f[0].m;
        b.g.B = f[1].m;
      } else {
        ok = false;
      }
    } else if constexpr (bias_term<T, X>()) {
      b.bias = bias_of<T>(term, m, n);
      ok = ok && coef == T(1) && b.bias != nullptr;
      has_bias = true;
    } else {
      ok = false;
    }
  });
  if (!ok || !has_bias || m == 0 || n == 0 || b.g.A.cols == 0) return false;
  const fusion::mat<T> C = fusion::mat_of_dst(dst, s.origin_of(dst.data()));
  const fusion::blas_view cv = fusion::blas_view_of(C, order::row_major);
  const fusion::blas_view av = fusion::blas_view_of(b.g.A, order::row_major);
  const fusion::blas_view bv = fusion::blas_view_of(b.g.B, order::row_major);
  if (!cv.ok || cv.t != trans::none || !av.ok || !bv.ok) {
    if (s.noting())
      s.note({"bias+relu rule skipped: an operand or the destination is not a row-major BLAS "
              "layout"});
    return false;
  }
  auto& g = b.g;
  g.o = order::row_major, g.ta = av.t, g.tb = bv.t, g.lda = av.ld, g.ldb = bv.ld, g.ldc = cv.ld;
  g.m = m, g.n = n, g.k = g.A.cols, g.alpha = alpha, g.beta = T(0), g.C = C;
  s.bias_relu(b, [&] {
    // The fallback's one elementwise pass: dst = maximum(dst + bias, 0), in place.
    const device_view<const T, 1> bias(b.bias, strided_layout<1>::right({n}), trusted);
    const device_view<const T, 2> c(dst.data(), dst.layout(), trusted);
    s.template map<assign_op::set>(pol, dst,
                                   lz::maximum(c + lz::broadcast_to(bias, shape_t<2>{m, n}), T(0)));
  });
  return true;
}

static_assert(fusion::plan_sink<device_explain_sink, device_policy>);

/// The bias+ReLU rule as a list entry: tried first on the device.
struct bias_relu_rule {
  static constexpr const char* name = "bias+relu";
  static constexpr fusion::rule_id id = fusion::rule_id::bias_relu;
  static constexpr bool always = false; ///< apply never declines once selected
  template <class T, std::size_t R, class E>
  static constexpr bool selects = R == 2 && detail_bias_relu::candidate<T, E>();
  template <assign_op Op, class Sink, template <class, std::size_t> class View, class T,
            std::size_t R, class E>
  static bool apply(Sink& s, const device_policy& pol, View<T, R> dst, const E& e) {
    if constexpr (Op == assign_op::set && R == 2)
      return try_bias_relu(s, pol, dst, e);
    else
      return false;
  }
};

/// The device's rule order: the bias+ReLU rule, then the shared list (fusion/rules.hpp).
template <class L>
struct device_rules_of;
template <class... Rules>
struct device_rules_of<fusion::rule_list<Rules...>> {
  using type = fusion::rule_list<bias_relu_rule, Rules...>;
};
using device_rule_order = device_rules_of<fusion::rule_order>::type;

/// Plans dst ⊕= e on the device through the device's rule order.
template <assign_op Op, class Sink, class T, std::size_t R, class E>
void lower_device(Sink& s, const device_policy& pol, device_view<T, R> dst, const E& e) {
  s.set_dst(dst.data());
  device_rule_order::plan<Op>(s, pol, dst, e);
}

template <assign_op Op, class T, std::size_t R, class E>
void device_execute(const device_policy& pol, device_view<T, R> dst, const E& e,
                    device_temps& temps) {
  device_exec_sink s(pol, temps);
  lower_device<Op>(s, pol, dst, e);
}

} // namespace detail

template <class A, class B>
const typename matmul_expr<A, B>::value_type* device_materialize(const matmul_expr<A, B>& p,
                                                                 detail::kernel_build& ctx) {
  using V = typename matmul_expr<A, B>::value_type;
  constexpr std::size_t R = matmul_expr<A, B>::rank;
  const auto l = strided_layout<R>::right(p.shape());
  V* ptr = static_cast<V*>(ctx.temps->get(detail::device_bytes(l.size(), sizeof(V))));
  detail::device_execute<detail::assign_op::set>(
      *ctx.pol, device_view<V, R>(ptr, l, detail::trusted), p, *ctx.temps);
  return ptr;
}

} // namespace lz
