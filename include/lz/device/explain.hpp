// lz::explain(lz::device, dst, e): the device plan as text, without running it. Names the rule
// (reduce into the destination, or map: one loop), the loop's access path and shape after
// coalescing, the temporaries (nested reductions, an aliasing copy) and the stream. Trees with
// products show the fusion pass's plan with device steps (device/plan.hpp): each device BLAS
// call with flags, sizes, leading dimensions, α and β, each loop, each pooled temporary.
#pragma once

#include <lz/device/plan.hpp>

#include <string>

namespace lz {

/// The plan lz::assign(pol, dst, e) would run, as text (nothing is evaluated).
template <device_destination D, class E>
requires expression<E> std::string explain(const device_policy& pol, D&& dst, const E& e) {
  auto dv = device_view{dst.view()};
  constexpr std::size_t R = decltype(dv)::rank;
  std::string out = "device assign " + to_string(dv.layout()) + " = " + detail::tree_text(e) +
                    "  [" + detail::stream_text(pol) + "]\n";
  using T = typename decltype(dv)::value_type;
  if (detail::device_uses_plan<T, R, E>(dv)) {
    if constexpr (rank_v<E> == R && R > 0)
      if (!broadcasts_to(e.shape(), dv.shape()))
        throw shape_error("lz: cannot assign shape " + detail::to_string(e.shape()) +
                          " to a device destination of shape " + detail::to_string(dv.shape()));
    detail::device_explain_sink s;
    detail::lower_device<detail::assign_op::set>(s, pol, dv, e);
    out.pop_back(); // text() adds the newline after the title
    return s.text(out);
  }
  if constexpr (detail::has_product<E>()) {
    return out; // (unreachable: products always take the plan)
  } else {
    std::vector<std::string> notes;
    detail::kernel_build ctx{&pol, nullptr, true, &notes};
    if constexpr (fusion::is_axis_reduction_v<E>) {
      if (fusion::reduces_into(dv, e))
        return out + "  rule reduce: one thrust::for_each_n over " + std::to_string(dv.size()) +
               " outputs, each along axis " + std::to_string(e.axis) + " (" +
               std::to_string(e.arg.shape()[e.axis]) + "), straight into the destination\n";
    }
    auto k = detail::build_kernel<R>(e, detail::root_map(e, dv.shape()), ctx);
    auto d = detail::make_kdst(dv.data(), dv.strides());
    const bool alias = detail::reads_dst_elsewhere(d, k, dv.shape());
    index_t* st[kernels::cpu::max_operands];
    st[0] = d.s;
    const int n = 1 + detail::collect_strides(k, st + 1);
    const auto L = kernels::dev::plan_loop(int(R), dv.shape().data(), n, st, false);
    out +=
        "  rule map: one " +
        std::string(L.p == kernels::dev::path::flat ? "thrust::transform" : "thrust::for_each_n") +
        ", path " + kernels::dev::describe(L) + ", " + std::to_string(n - 1) + " leaves\n";
    for (const auto& s : notes) out += "  temporary: " + s + "\n";
    if (alias)
      out += "  temporary: the tree reads the destination at other positions -> loop into a " +
             detail::to_string(dv.shape()) + " temporary, then one copy loop\n";
    return out;
  }
}

} // namespace lz
