// Random expression trees for differential testing against the reference evaluator (tests/core/
// random_tree_test.cpp, the fuzzer in tests/reliability). A tree's STRUCTURE is a compile-time
// skeleton type (a handful of them, so compile time stays sane); everything else is chosen at
// run time from a seeded "genome":
//   - each dyn node's operation (dyn_*_fn::which; 0 passes its first operand through, so one
//     skeleton yields many shallower trees). The functors' generic bodies also take xsimd
//     batches, so the SIMD kernels run the same trees;
//   - each leaf's view: raw strides through lz::adopt (row/column-major, padded, strided,
//     reversed, permuted, stride-0, unaligned), lz::permute of a buffer, a slice with steps
//     (negative too), lz::broadcast_to from extent-1 or lower-rank views, NumPy extent-1 dims;
//   - values (with NaN, ±Inf, denormals for floats), the root shape, the policy, the assignment
//     operator, and the destination: fresh memory with any writable layout, or memory a leaf
//     reads (same position, reversed, shifted by one, transposed) to exercise aliasing;
//   - products (A*B, A*x through lz's `*`, inner extent 0-70), sums and means (per axis and
//     full) and mixed element types (float with double, int32 with int64).
// Comparison: elementwise operations are IEEE-exact (no transcendental functions), so the engine
// must match the reference bit for bit (NaN matching NaN). Products and sums read "exact"
// subtrees (whole values, operations that keep them whole and small), so every order of
// summation gives the same bits too. Tolerance trees (genome::tol) instead give products and
// sums general values and compare within 2·gamma_N·M, M from the tree's magnitude twin (see
// run()): the standard forward error bound of the operations the tree performs.
// A failing case is shrunk (operations → pass-through, layouts → row-major, shape halved,
// policy → seq, operator → =) and printed as C++-like source: a minimal reproducer.
#pragma once

#include <support/generators.hpp>

#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>
#include <typeinfo>

namespace lz_test::tree {

// ---- functors whose operation is chosen at run time ----------------------------------------

template <class A>
struct lane {
  using type = A;
};
template <class T, class Arch>
struct lane<xsimd::batch<T, Arch>> {
  using type = T;
};
template <class A>
using lane_t = typename lane<A>::type;

/// `mag + op`: the magnitude twin of op, used to bound rounding errors in tolerance trees
/// (every twin not listed passes its first operand through: -x, |x|, max(x, 0) ↦ |x|).
inline constexpr int mag = 100;

/// Number of operations of each functor for element type T (which ∈ [0, n)).
template <class T>
inline constexpr int unary_ops = std::is_floating_point_v<T> ? 9 : 5;
template <class T>
inline constexpr int binary_ops = std::is_floating_point_v<T> ? 9 : 7;
template <class T>
inline constexpr int ternary_ops = 4;

// Integer products clamp their operands to ±1000, so no tree of depth <= 10 overflows int32.
template <class A>
A clamp_1000(const A& a) {
  using L = lane_t<A>;
  return lz::fn::minimum_fn{}(lz::fn::maximum_fn{}(a, A(L(-1000))), A(L(1000)));
}

/// x ↦ op(x): 0 x, then (floating) -x |x| x² √|x| ⌊x⌋ max(x,0) x/2 ⌈x⌉, (integer) -x |x|
/// clamp(x)² max(x,0).
struct dyn_unary_fn {
  int which = 0;
  static constexpr const char* name = "dyn_unary";
  static constexpr int cost = 2;
  template <class A>
  LZ_NOINLINE A operator()(const A& a) const {
    using L = lane_t<A>;
    using std::abs, std::sqrt, std::floor, std::ceil; // batches find xsimd's by ADL
    if constexpr (std::is_floating_point_v<L>) {
      switch (which) {
      case mag + 7: // magnitude twins (tolerance trees): a bound on |x| through each op
        return a * A(L(0.5));
      case 1: // lz's negation: xsimd 8.1's AVX-512 `-a` is 0 - a, which loses the sign of zero
        return lz::fn::negate_fn{}(a);
      case 2:
        return abs(a);
      case 3:
        return a * a;
      case 4:
        return sqrt(abs(a));
      case 5:
        return floor(a);
      case 6:
        return lz::fn::maximum_fn{}(a, A(L(0)));
      case 7:
        return a * A(L(0.5));
      case 8:
        return ceil(a);
      default:
        return a;
      }
    } else {
      switch (which) {
      case 1:
        return -a;
      case 2:
        return abs(a);
      case 3:
        return clamp_1000(a) * clamp_1000(a);
      case 4:
        return lz::fn::maximum_fn{}(a, A(L(0)));
      default:
        return a;
      }
    }
  }
};

/// (x, y) ↦ op: 0 x, 1 y, 2 x+y, 3 x-y, then (floating) x*y x/y max min (x+y)/2, (integer)
/// clamp(x)*clamp(y) max min.
struct dyn_binary_fn {
  int which = 0;
  static constexpr const char* name = "dyn_binary";
  static constexpr int cost = 2;
  template <class A>
  LZ_NOINLINE A operator()(const A& a, const A& b) const {
    using L = lane_t<A>;
    switch (which) {
    case mag + 1:
    case 1:
      return b;
    case mag + 2: // |x ± y| <= |x| + |y|
    case mag + 3:
      return a + b;
    case mag + 6: // max and min are 1-Lipschitz: the larger bound
    case mag + 7:
      return lz::fn::maximum_fn{}(a, b);
    case mag + 8:
      return (a + b) * A(L(0.5));
    case 2:
      return a + b;
    case 3:
      return a - b;
    default:
      break;
    }
    if constexpr (std::is_floating_point_v<L>) {
      switch (which) {
      case 4:
        return a * b;
      case 5:
        return a / b;
      case 6:
        return lz::fn::maximum_fn{}(a, b);
      case 7:
        return lz::fn::minimum_fn{}(a, b);
      case 8:
        return (a + b) * A(L(0.5));
      default:
        return a;
      }
    } else {
      switch (which) {
      case 4:
        return clamp_1000(a) * clamp_1000(b);
      case 5:
        return lz::fn::maximum_fn{}(a, b);
      case 6:
        return lz::fn::minimum_fn{}(a, b);
      default:
        return a;
      }
    }
  }
};

/// (x, y, z) ↦ op: 0 x, 1 where(x < y, y, z), 2 min(max(x, y), z), 3 (floating) where(x == x,
/// y, z) (a NaN test), (integer) where(x > 0, y, z).
struct dyn_ternary_fn {
  int which = 0;
  static constexpr const char* name = "dyn_ternary";
  static constexpr int cost = 3;
  template <class A>
  LZ_NOINLINE A operator()(const A& a, const A& b, const A& c) const {
    using L = lane_t<A>;
    using lz::fn::select;
    switch (which) {
    case mag + 2: // clamp is 1-Lipschitz in each operand
      return lz::fn::maximum_fn{}(lz::fn::maximum_fn{}(a, b), c);
    case 1:
      return select(a < b, b, c);
    case 2:
      return lz::fn::minimum_fn{}(lz::fn::maximum_fn{}(a, b), c);
    case 3:
      if constexpr (std::is_floating_point_v<L>)
        return select(a == a, b, c);
      else
        return select(a > A(L(0)), b, c);
    default:
      return a;
    }
  }
};

// `x /* unused: y */`, with y's own comments turned into brackets (comments do not nest).
inline std::string unused(const std::string& x, const std::string& y) {
  std::string u = y;
  for (std::size_t p; (p = u.find("/*")) != std::string::npos;) u.replace(p, 2, "[");
  for (std::size_t p; (p = u.find("*/")) != std::string::npos;) u.replace(p, 2, "]");
  return x + " /* unused: " + u + " */";
}

template <class T>
std::string unary_src(int which, const std::string& x) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (which) {
    case 1:
      return "-(" + x + ")";
    case 2:
      return "lz::abs(" + x + ")";
    case 3:
      return "lz::square(" + x + ")";
    case 4:
      return "lz::sqrt(lz::abs(" + x + "))";
    case 5:
      return "lz::floor(" + x + ")";
    case 6:
      return "lz::maximum(" + x + ", 0)";
    case 7:
      return "(" + x + " * 0.5)";
    case 8:
      return "lz::ceil(" + x + ")";
    default:
      return x;
    }
  } else {
    switch (which) {
    case 1:
      return "-(" + x + ")";
    case 2:
      return "lz::abs(" + x + ")";
    case 3:
      return "lz::square(lz::clamp(" + x + ", -1000, 1000))";
    case 4:
      return "lz::maximum(" + x + ", 0)";
    default:
      return x;
    }
  }
}

template <class T>
std::string binary_src(int which, const std::string& x, const std::string& y) {
  switch (which) {
  case 0:
    return unused(x, y);
  case 1:
    return unused(y, x);
  case 2:
    return "(" + x + " + " + y + ")";
  case 3:
    return "(" + x + " - " + y + ")";
  default:
    break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (which) {
    case 4:
      return "(" + x + " * " + y + ")";
    case 5:
      return "(" + x + " / " + y + ")";
    case 6:
      return "lz::maximum(" + x + ", " + y + ")";
    case 7:
      return "lz::minimum(" + x + ", " + y + ")";
    default:
      return "((" + x + " + " + y + ") * 0.5)";
    }
  } else {
    switch (which) {
    case 4:
      return "(lz::clamp(" + x + ", -1000, 1000) * lz::clamp(" + y + ", -1000, 1000))";
    case 5:
      return "lz::maximum(" + x + ", " + y + ")";
    default:
      return "lz::minimum(" + x + ", " + y + ")";
    }
  }
}

template <class T>
std::string ternary_src(int which, const std::string& x, const std::string& y,
                        const std::string& z) {
  switch (which) {
  case 1:
    return "lz::where(" + x + " < " + y + ", " + y + ", " + z + ")";
  case 2:
    return "lz::minimum(lz::maximum(" + x + ", " + y + "), " + z + ")";
  case 3:
    return std::is_floating_point_v<T> ? "lz::where(" + x + " == " + x + ", " + y + ", " + z + ")"
                                       : "lz::where(" + x + " > 0, " + y + ", " + z + ")";
  default:
    return unused(x, y + ", " + z);
  }
}

// ---- skeletons: the compile-time structure of a tree --------------------------------------

struct leaf {};   ///< a view of random layout (the genome picks how it is made)
struct scalar {}; ///< a constant (rank 0, broadcast)
template <class C>
struct un {}; ///< dyn_unary_fn
template <class A, class B>
struct bin {}; ///< dyn_binary_fn
template <class A, class B, class C>
struct tern {}; ///< dyn_ternary_fn
template <class C>
struct perm {}; ///< lz::permute of the subtree by a run-time permutation (rank >= 2)
template <class C>
struct bcast {}; ///< lz::broadcast_to of a subtree of rank R-1 (rank >= 2)
template <class C>
struct max_axis {}; ///< lz::max(subtree of rank R+1, run-time axis): an opaque node
template <class C>
struct min_all {}; ///< lz::min(subtree): a full reduction broadcast as a scalar
template <class A, class B>
struct mm {}; ///< A * B, matrix product (rank 2; operands exact, see restrict_op)
template <class A, class B>
struct mv {}; ///< A * x, matrix-vector product (rank 1)
template <class C>
struct sum_axis {}; ///< lz::sum(subtree of rank R+1, run-time axis)
template <class C>
struct mean_axis {}; ///< lz::mean(subtree of rank R+1, run-time axis)
template <class C>
struct sum_all {}; ///< lz::sum(subtree): broadcast as a scalar
template <class A, class B>
struct mix {}; ///< lz::cast<T>(A + B) where B has the other element type (other_t<T>)

/// Operation levels on the longest root-to-leaf path.
template <class S>
inline constexpr int depth_v = 0;
template <class C>
inline constexpr int depth_v<un<C>> = 1 + depth_v<C>;
template <class A, class B>
inline constexpr int depth_v<bin<A, B>> = 1 + std::max(depth_v<A>, depth_v<B>);
template <class A, class B, class C>
inline constexpr int depth_v<tern<A, B, C>> = 1 + std::max({depth_v<A>, depth_v<B>, depth_v<C>});
template <class C>
inline constexpr int depth_v<perm<C>> = 1 + depth_v<C>;
template <class C>
inline constexpr int depth_v<bcast<C>> = 1 + depth_v<C>;
template <class C>
inline constexpr int depth_v<max_axis<C>> = 1 + depth_v<C>;
template <class C>
inline constexpr int depth_v<min_all<C>> = 1 + depth_v<C>;
template <class A, class B>
inline constexpr int depth_v<mm<A, B>> = 1 + std::max(depth_v<A>, depth_v<B>);
template <class A, class B>
inline constexpr int depth_v<mv<A, B>> = 1 + std::max(depth_v<A>, depth_v<B>);
template <class C>
inline constexpr int depth_v<sum_axis<C>> = 1 + depth_v<C>;
template <class C>
inline constexpr int depth_v<mean_axis<C>> = 1 + depth_v<C>;
template <class C>
inline constexpr int depth_v<sum_all<C>> = 1 + depth_v<C>;
template <class A, class B>
inline constexpr int depth_v<mix<A, B>> = 1 + std::max(depth_v<A>, depth_v<B>);

/// Standard skeletons (depth >= 6); `views` and `mixed` need rank >= 2.
namespace skeletons {
using L = leaf;
using S = scalar;
/// A deep chain of every functor kind (depth 9).
using deep_chain = un<bin<un<bin<un<tern<un<bin<un<L>, L>>, L, S>>, un<L>>>, bin<L, L>>>;
/// Wide and deep: 13 leaves.
using bushy = bin<tern<bin<un<L>, L>, un<bin<L, S>>, bin<L, un<L>>>,
                  un<bin<tern<L, un<L>, L>, bin<un<L>, un<bin<L, L>>>>>>;
/// Permutations and broadcasts of subtrees (permute_expr / broadcast_expr nodes).
using views =
    bin<perm<un<bin<perm<bin<un<L>, L>>, un<L>>>>, un<bin<bcast<un<bin<L, L>>>, perm<un<L>>>>>;
/// Axis and full reductions inside elementwise trees (opaque nodes).
using reductions = bin<un<bin<max_axis<bin<un<L>, L>>, un<L>>>,
                       tern<min_all<un<bin<L, L>>>, un<bin<L, max_axis<un<L>>>>, L>>;
/// All node kinds together.
using mixed =
    un<bin<perm<tern<un<L>, bcast<bin<un<L>, L>>, max_axis<bin<L, L>>>>, bin<un<bin<L, S>>, L>>>;
/// Matrix products inside elementwise trees: a transposed operand, C + A*B, a broadcast
/// matrix-vector product, a product of subtrees (rank 2).
using products = bin<un<bin<mm<un<L>, bin<L, L>>, L>>,
                     tern<bin<L, mm<perm<L>, un<L>>>, bcast<mv<L, un<L>>>, un<L>>>;
/// The bare product patterns the fusion pass plans as one BLAS call: C = A*B, C = C + A*B
/// (with aliasing destinations: C = A*C, C = C + A*B in place).
using gemm_like = bin<L, mm<L, perm<L>>>;
/// Matrix-vector products (rank 1): y = A*x + y, y = A^T*x, products of subtrees.
using gemv_like = bin<un<mv<L, bin<L, L>>>, bin<L, mv<perm<un<L>>, L>>>;
/// Sums and means along axes and over everything, inside elementwise trees.
using sums = bin<un<sum_axis<bin<un<L>, L>>>, tern<sum_all<un<L>>, mean_axis<un<L>>, un<L>>>;
/// Mixed element types (float with double, int32 with int64) and a product (rank 2).
using mixed_types = un<bin<mix<un<L>, bin<L, un<L>>>, tern<L, mix<L, mm<L, L>>, un<L>>>>;
} // namespace skeletons

// ---- the genome ---------------------------------------------------------------------------

struct node_gene {
  int which = 0;          ///< operation; permutation index for perm; axis for max_axis
  index_t extent = 1;     ///< max_axis: extent of the reduced axis
  std::uint64_t seed = 0; ///< min_all: shape of the reduced subtree
};

enum class leaf_form { adopt, permuted, sliced, broadcast_to, broadcast_lower, numpy_ones };
inline const char* to_string(leaf_form f) {
  static const char* n[] = {"adopt",        "permuted",        "sliced",
                            "broadcast_to", "broadcast_lower", "numpy_ones"};
  return n[int(f)];
}

struct leaf_gene {
  leaf_form form = leaf_form::adopt;
  layout_kind kind = layout_kind::row;
  std::uint64_t layout_seed = 0, value_seed = 0;
  unsigned ones = 0; ///< dims of extent 1 (broadcast_to / numpy_ones)
  values vals = values::plain;
  bool simple() const {
    return form == leaf_form::adopt && kind == layout_kind::row && vals == values::plain;
  }
};

/// Where the result goes. `alias` != none: the destination is memory a full-shape leaf reads.
enum class alias_mode { none, same, reversed, shifted, transposed };
inline const char* to_string(alias_mode m) {
  static const char* n[] = {"none", "same position", "reversed", "shifted by one", "transposed"};
  return n[int(m)];
}

/// How the result is produced: lz::assign(policy, dst, e) or a compound operator (automatic
/// policy) or lz::eval(policy, e) into a new tensor.
enum class how { assign, add, sub, mul, div, eval };
enum class policy { seq, simd, par, automatic };
inline const char* to_string(policy p) {
  static const char* n[] = {"lz::seq", "lz::simd", "lz::par", "lz::automatic"};
  return n[int(p)];
}

/// Checked builds (LZ_CHECKED): the tree is evaluated while its leaves live, or after they were
/// freed, as when a function returns an expression over its local tensors (`returned`) or an
/// expression is kept in a variable that outlives them (`stored`); those must throw
/// lz::lifetime_error and leave the destination untouched.
enum class lifetime_mode { alive, returned, stored };
inline const char* to_string(lifetime_mode m) {
  static const char* n[] = {"alive", "returned", "stored"};
  return n[int(m)];
}

/// Everything that determines one tree (besides its skeleton and element type).
struct genome {
  std::uint64_t seed = 0;
  std::vector<index_t> shape;
  std::vector<node_gene> nodes;
  std::vector<leaf_gene> leaves;
  layout_kind dst_kind = layout_kind::row;
  std::uint64_t dst_seed = 0;
  alias_mode alias = alias_mode::none;
  how op = how::assign;
  policy pol = policy::automatic;
  bool plant_fault = false; ///< testing the shrinker: corrupt the result when shape[0] >= 3
  bool tol = false; ///< a tolerance tree: general values in products/sums, compared within a bound
  lifetime_mode life = lifetime_mode::alive; ///< drawn in checked builds only
};

// ---- building a tree from a skeleton and a genome -----------------------------------------

template <class E>
struct built {
  E expr;
  std::string src;
};
template <class E>
built(E, std::string) -> built<E>;

/// A full-shape leaf whose memory a destination may alias.
struct alias_candidate {
  void* data;
  std::array<index_t, lz::max_rank> strides{};
  std::string src;
};

// Element type names for reproducers.
template <class T>
const char* type_src() {
  return std::is_same_v<T, float>    ? "float"
         : std::is_same_v<T, double> ? "double"
         : sizeof(T) == 4            ? "std::int32_t"
                                     : "std::int64_t";
}

/// The other element type a `mix` node combines with T: float <-> double, int32 <-> int64.
template <class T>
using other_t = std::conditional_t<std::is_floating_point_v<T>,
                                   std::conditional_t<std::is_same_v<T, float>, double, float>,
                                   std::conditional_t<sizeof(T) == 4, std::int64_t, std::int32_t>>;

// Operations allowed where results must stay exact (inside products and sums: whole numbers
// that stay whole and small, so every partial sum is exact in any order) and in tolerance
// trees (1-Lipschitz or exact operations, whose rounding error the magnitude twin bounds).
enum class op_set { all, exact, tolerance };
template <class T>
int restrict_op(op_set set, int arity, int which) {
  if (set == op_set::all || which == 0) return which;
  auto from = [&](std::initializer_list<int> l) {
    return l.begin()[std::size_t(which) % l.size()];
  };
  if constexpr (std::is_floating_point_v<T>) {
    if (set == op_set::exact) // no x*x, x/y, sqrt, halving
      return arity == 1 ? from({1, 2, 5, 6, 8}) : arity == 2 ? from({1, 2, 3, 6, 7}) : which;
    // tolerance: no floor/ceil/where (discontinuous), no x*y, x/y, sqrt, x*x
    return arity == 1 ? from({1, 2, 6, 7}) : arity == 2 ? from({1, 2, 3, 6, 7, 8}) : 2;
  } else { // no clamped squares or products: the sums of them could overflow
    return arity == 1 ? from({1, 2, 4}) : arity == 2 ? from({1, 2, 3, 5, 6}) : which;
  }
}

struct tree_ctx {
  genome& g;
  rng r; // draws genes the genome does not have yet
  bool source = false;
  std::size_t next_node = 0, next_leaf = 0;
  std::vector<std::shared_ptr<void>> keep;
  std::vector<std::string> decls;
  std::vector<alias_candidate> candidates;
  std::vector<index_t> root_shape;
  const std::type_info* root_type = nullptr;
  int exact = 0;             ///< > 0: inside a product or sum (whole values, op_set::exact)
  bool magnitude = false;    ///< building the magnitude twin of a tolerance tree (|leaves|, twins)
  double steps = 0;          ///< roundings a value may go through (tolerance trees' bound)
  double unit = 0;           ///< largest unit roundoff among the tree's element types
  bool tracked = LZ_CHECKED; ///< leaves are tensor storage carrying lifetime numbers

  tree_ctx(genome& gen, bool want_source, const std::type_info& root)
      : g(gen), r(gen.seed ^ 0x7ee5eedULL), source(want_source), root_shape(gen.shape),
        root_type(&root) {}

  template <class T>
  op_set ops() const {
    return exact && !g.tol ? op_set::exact : g.tol ? op_set::tolerance : op_set::all;
  }
  template <class T>
  int op(int arity, int choices) {
    unit = std::max(unit, double(std::numeric_limits<T>::epsilon()) / 2);
    const int w = restrict_op<T>(ops<T>(), arity, node(choices).which);
    steps += w ? 1 : 0;
    return magnitude && w ? mag + w : w;
  }
  node_gene& node(int choices) {
    if (next_node == g.nodes.size()) {
      node_gene n;
      n.which = r.chance(0.2) ? 0 : int(r.between(1, choices - 1));
      n.extent = r.chance(0.8) ? r.between(1, 5) : r.between(6, 70); // > 32: pairwise splits
      n.seed = r.next();
      g.nodes.push_back(n);
    }
    return g.nodes[next_node++];
  }
  template <class T>
  leaf_gene& leaf_for(std::size_t rank) {
    if (next_leaf == g.leaves.size()) {
      leaf_gene l;
      const int f = int(r.between(0, 9));
      l.form = f < 4    ? leaf_form::adopt
               : f == 4 ? leaf_form::permuted
               : f == 5 ? leaf_form::sliced
               : f == 6 ? leaf_form::broadcast_to
               : f == 7 ? leaf_form::broadcast_lower
                        : leaf_form::numpy_ones;
      l.kind = r.pick(all_layout_kinds);
      l.layout_seed = r.next();
      l.value_seed = r.next();
      l.ones = unsigned(r.next() & ((1u << rank) - 1));
      l.vals = std::is_floating_point_v<T> && r.chance(0.6) ? values::special : values::plain;
      g.leaves.push_back(l);
    }
    return g.leaves[next_leaf++];
  }
  /// Values of a leaf: whole numbers inside products and sums, no specials in tolerance trees.
  values leaf_values(const leaf_gene& l) const {
    return exact && !g.tol ? values::whole : g.tol ? values::plain : l.vals;
  }

  template <class T, std::size_t R>
  std::string buffer_decl(const viewed_buffer<T, R>& vb, const std::string& name,
                          const leaf_gene& lg) {
    std::ostringstream os;
    os << type_src<T>() << " " << name << "[" << vb.size << "]";
    if (vb.size <= 64) {
      os << " = {";
      os << std::setprecision(std::numeric_limits<T>::max_digits10);
      for (std::size_t j = 0; j < vb.size; ++j) {
        const T v = vb.buf[j];
        if (j) os << ", ";
        if constexpr (std::is_floating_point_v<T>) {
          if (v != v)
            os << "NAN";
          else if (v == std::numeric_limits<T>::infinity())
            os << "INFINITY";
          else if (v == -std::numeric_limits<T>::infinity())
            os << "-INFINITY";
          else
            os << v;
        } else {
          os << v;
        }
      }
      os << "};";
    } else {
      os << "; // " << vb.size << " values: lz_test::values(" << int(leaf_values(lg)) << "), seed "
         << lg.value_seed;
    }
    return os.str();
  }
};

template <class Skel, class T, std::size_t R>
struct builder;

template <std::size_t R>
std::string shape_src(const lz::shape_t<R>& s) {
  return braced(s);
}

template <class T, std::size_t R>
struct builder<leaf, T, R> {
  using view = lz::tensor_view<const T, R>;

  static built<view> build(tree_ctx& c, const lz::shape_t<R>& s) {
    leaf_gene& lg = c.template leaf_for<T>(R);
    const std::string name = "L" + std::to_string(c.next_leaf - 1);
    const std::string buf = "b" + std::to_string(c.next_leaf - 1);
    rng lr(lg.layout_seed);
    leaf_form form = lg.form;
    if (form == leaf_form::broadcast_lower && R < 2) form = leaf_form::broadcast_to;
    if (form == leaf_form::permuted && R < 2) form = leaf_form::adopt;
    // Product operands must have their full shape (extent-1 dims would not broadcast there).
    if (form == leaf_form::numpy_ones && c.exact) form = leaf_form::adopt;
    std::optional<view> v; // emplaced: assigning to a view writes elements, never rebinds
    std::string how_src;
    const values vals = c.leaf_values(lg);
    auto keep = [&](auto vb) {
      if constexpr (std::is_floating_point_v<T>)
        if (c.magnitude) // the twin reads |values| (sentinels too: harmless)
          for (std::size_t j = 0; j < vb.size; ++j) vb.buf[j] = std::fabs(vb.buf[j]);
      c.keep.push_back(std::make_shared<decltype(vb)>(vb));
      if (c.source) c.decls.push_back(c.buffer_decl(vb, buf, lg));
    };
    switch (form) {
    case leaf_form::adopt: {
      auto vb = make_viewed<T, R>(s, random_layout<R>(lr, lg.kind, false), lg.value_seed, vals,
                                  c.tracked);
      v.emplace(vb.cview());
      how_src = describe(vb, buf);
      keep(vb);
      break;
    }
    case leaf_form::numpy_ones: { // extent 1 where `ones` says: the map node broadcasts
      lz::shape_t<R> s1 = s;
      for (std::size_t k = 0; k < R; ++k)
        if (lg.ones >> k & 1u) s1[k] = 1;
      auto vb = make_viewed<T, R>(s1, random_layout<R>(lr, lg.kind, false), lg.value_seed, vals,
                                  c.tracked);
      v.emplace(vb.cview());
      how_src = describe(vb, buf);
      keep(vb);
      break;
    }
    case leaf_form::permuted: { // a buffer laid out for the permuted shape, viewed through permute
      std::array<std::size_t, R> p{};
      for (std::size_t k = 0; k < R; ++k) p[k] = k;
      for (std::size_t k = R; k > 1; --k) std::swap(p[k - 1], p[lr.next() % k]);
      lz::shape_t<R> ps{};
      for (std::size_t k = 0; k < R; ++k) ps[p[k]] = s[k];
      auto vb = make_viewed<T, R>(ps, random_layout<R>(lr, lg.kind, true), lg.value_seed, vals,
                                  c.tracked);
      v.emplace(lz::permute(vb.cview(), p));
      std::string ptxt = "{";
      for (std::size_t k = 0; k < R; ++k) ptxt += (k ? ", " : "") + std::to_string(p[k]);
      how_src = "lz::permute(" + describe(vb, buf) + ", " + ptxt + "})";
      keep(vb);
      break;
    }
    case leaf_form::sliced: { // lz::range with steps (negative too) over a larger buffer
      std::vector<lz::range> rg(R, lz::range(0, 0)); // (lz::range has no default)
      lz::shape_t<R> big{};
      static constexpr index_t steps[] = {1, 2, 3, -1, -2};
      for (std::size_t k = 0; k < R; ++k) {
        const index_t n = s[k], st = lr.pick(steps), a = st < 0 ? -st : st;
        const index_t before = lr.between(0, 2), after = lr.between(0, 2);
        if (n == 0) {
          big[k] = before + after;
          rg[k] = st > 0 ? lz::range(0, 0, st) : lz::range(-1, -1, st);
          continue;
        }
        big[k] = before + (n - 1) * a + 1 + after;
        if (st > 0)
          rg[k] = lz::range(before, before + (n - 1) * st + 1, st);
        else
          rg[k] = lz::range(big[k] - 1 - before, big[k] - 1 - before + (n - 1) * st - 1, st);
      }
      auto vb = make_viewed<T, R>(big, random_layout<R>(lr, lg.kind, true), lg.value_seed, vals,
                                  c.tracked);
      v.emplace([&]<std::size_t... K>(std::index_sequence<K...>) {
        return view(vb.view(rg[K]...));
      }(std::make_index_sequence<R>{}));
      how_src = describe(vb, buf) + "(";
      for (std::size_t k = 0; k < R; ++k)
        how_src += (k ? ", " : "") + std::string("lz::range(") + std::to_string(rg[k].begin) +
                   ", " + std::to_string(rg[k].end) + ", " + std::to_string(rg[k].step) + ")";
      how_src += ")";
      keep(vb);
      break;
    }
    case leaf_form::broadcast_to: { // extent-1 dims stretched by lz::broadcast_to (stride 0)
      lz::shape_t<R> s1 = s;
      for (std::size_t k = 0; k < R; ++k)
        if (lg.ones >> k & 1u) s1[k] = 1;
      auto vb = make_viewed<T, R>(s1, random_layout<R>(lr, lg.kind, true), lg.value_seed, vals,
                                  c.tracked);
      v.emplace(lz::broadcast_to(vb.cview(), s));
      how_src = "lz::broadcast_to(" + describe(vb, buf) + ", " + shape_src(s) + ")";
      keep(vb);
      break;
    }
    case leaf_form::broadcast_lower: { // rank R-1 view broadcast to rank R (new leading dim)
      if constexpr (R >= 2) {
        lz::shape_t<R - 1> s1{};
        for (std::size_t k = 0; k + 1 < R; ++k) s1[k] = s[k + 1];
        auto vb = make_viewed<T, R - 1>(s1, random_layout<R - 1>(lr, lg.kind, true), lg.value_seed,
                                        vals, c.tracked);
        v.emplace(lz::broadcast_to(vb.cview(), s));
        how_src = "lz::broadcast_to(" + describe(vb, buf) + ", " + shape_src(s) + ")";
        keep(vb);
      }
      break;
    }
    }
    if (c.source) c.decls.push_back("auto " + name + " = " + how_src + ";");
    // A full-shape leaf without stride-0 dims is a place the destination may alias.
    if (typeid(T) == *c.root_type && R == c.root_shape.size() && v->layout().is_unique() &&
        std::equal(s.begin(), s.end(), c.root_shape.begin()) && v->shape() == s) {
      alias_candidate a{const_cast<T*>(v->data()), {}, name};
      for (std::size_t k = 0; k < R; ++k) a.strides[k] = v->strides()[k];
      c.candidates.push_back(a);
    }
    return {*v, name};
  }
};

template <class T, std::size_t R>
struct builder<scalar, T, R> {
  static auto build(tree_ctx& c, const lz::shape_t<R>&) {
    node_gene& g = c.node(2);
    rng r(g.seed);
    T v = random_value<T>(r, c.exact && !c.g.tol ? values::whole : values::plain);
    if constexpr (std::is_floating_point_v<T>)
      if (c.magnitude) v = std::fabs(v);
    std::ostringstream os;
    os << std::setprecision(std::numeric_limits<T>::max_digits10) << v;
    return built{lz::scalar_expr<T>{v}, os.str()};
  }
};

template <class C, class T, std::size_t R>
struct builder<un<C>, T, R> {
  static auto build(tree_ctx& c, const lz::shape_t<R>& s) {
    const int which = c.template op<T>(1, unary_ops<T>);
    auto x = builder<C, T, R>::build(c, s);
    return built{lz::map(dyn_unary_fn{which}, std::move(x.expr)), unary_src<T>(which, x.src)};
  }
};

template <class A, class B, class T, std::size_t R>
struct builder<bin<A, B>, T, R> {
  static auto build(tree_ctx& c, const lz::shape_t<R>& s) {
    const int which = c.template op<T>(2, binary_ops<T>);
    auto x = builder<A, T, R>::build(c, s);
    auto y = builder<B, T, R>::build(c, s);
    return built{lz::map(dyn_binary_fn{which}, std::move(x.expr), std::move(y.expr)),
                 binary_src<T>(which, x.src, y.src)};
  }
};

template <class A, class B, class C, class T, std::size_t R>
struct builder<tern<A, B, C>, T, R> {
  static auto build(tree_ctx& c, const lz::shape_t<R>& s) {
    const int which = c.template op<T>(3, ternary_ops<T>);
    auto x = builder<A, T, R>::build(c, s);
    auto y = builder<B, T, R>::build(c, s);
    auto z = builder<C, T, R>::build(c, s);
    return built{
        lz::map(dyn_ternary_fn{which}, std::move(x.expr), std::move(y.expr), std::move(z.expr)),
        ternary_src<T>(which, x.src, y.src, z.src)};
  }
};

template <class C, class T, std::size_t R>
struct builder<perm<C>, T, R> {
  static_assert(R >= 2, "perm needs rank >= 2");
  static auto build(tree_ctx& c, const lz::shape_t<R>& s) {
    const int which = c.node(24).which; // index of the permutation (mod R!)
    std::array<std::size_t, R> p{};
    for (std::size_t k = 0; k < R; ++k) p[k] = k;
    for (int j = 0; j < which % 24; ++j) std::next_permutation(p.begin(), p.end());
    lz::shape_t<R> cs{};
    for (std::size_t k = 0; k < R; ++k) cs[p[k]] = s[k];
    auto x = builder<C, T, R>::build(c, cs);
    std::string ptxt = "{";
    for (std::size_t k = 0; k < R; ++k) ptxt += (k ? ", " : "") + std::to_string(p[k]);
    return built{lz::permute(std::move(x.expr), p), "lz::permute(" + x.src + ", " + ptxt + "})"};
  }
};

template <class C, class T, std::size_t R>
struct builder<bcast<C>, T, R> {
  static_assert(R >= 2, "bcast needs rank >= 2");
  static auto build(tree_ctx& c, const lz::shape_t<R>& s) {
    c.node(2);
    lz::shape_t<R - 1> cs{};
    for (std::size_t k = 0; k + 1 < R; ++k) cs[k] = s[k + 1];
    auto x = builder<C, T, R - 1>::build(c, cs);
    return built{lz::broadcast_to(std::move(x.expr), s),
                 "lz::broadcast_to(" + x.src + ", " + shape_src(s) + ")"};
  }
};

template <class C, class T, std::size_t R>
struct builder<max_axis<C>, T, R> {
  static auto build(tree_ctx& c, const lz::shape_t<R>& s) {
    const node_gene& g = c.node(int(R) + 1);
    const std::size_t axis = std::size_t(g.which) % (R + 1);
    lz::shape_t<R + 1> cs{};
    for (std::size_t k = 0, m = 0; k <= R; ++k) cs[k] = k == axis ? g.extent : s[m++];
    auto x = builder<C, T, R + 1>::build(c, cs);
    return built{lz::max(std::move(x.expr), axis),
                 "lz::max(" + x.src + ", " + std::to_string(axis) + ")"};
  }
};

template <class C, class T, std::size_t R>
struct builder<min_all<C>, T, R> {
  static auto build(tree_ctx& c, const lz::shape_t<R>&) {
    const node_gene& g = c.node(2);
    rng r(g.seed);
    lz::shape_t<R> cs{};
    for (;;) { // small and non-empty: min of nothing throws
      index_t n = 1;
      for (std::size_t k = 0; k < R; ++k) n *= (cs[k] = r.between(1, 6));
      if (n <= 64) break;
    }
    auto x = builder<C, T, R>::build(c, cs);
    return built{lz::min(std::move(x.expr)), "lz::min(" + x.src + ")"};
  }
};

// Products and sums read exact subtrees (whole values, op_set::exact): every partial sum is
// a small whole number, exact in any summation order, so BLAS, the pairwise reductions and
// the reference must agree bit for bit. Tolerance trees keep general values instead.
struct exact_scope {
  tree_ctx& c;
  explicit exact_scope(tree_ctx& cc) : c(cc) { ++c.exact; }
  ~exact_scope() { --c.exact; }
  exact_scope(const exact_scope&) = delete;
  exact_scope& operator=(const exact_scope&) = delete;
};

/// Inner extent of a product: 1-5 mostly, up to 70, and 0 (an empty sum: zeros) now and then.
inline index_t inner_extent(const node_gene& g) { return g.seed % 16 == 0 ? 0 : g.extent; }

/// e as an expression of element type T (a cast node only where the type differs).
template <class T, class E>
auto as_type(E&& e) {
  if constexpr (std::is_same_v<lz::value_t<E>, T>)
    return std::forward<E>(e);
  else
    return lz::cast<T>(std::forward<E>(e));
}
template <class T, class E>
std::string as_type_src(const std::string& x) {
  return std::is_same_v<lz::value_t<E>, T>
             ? x
             : "lz::cast<" + std::string(type_src<T>()) + ">(" + x + ")";
}

template <class A, class B, class T>
struct builder<mm<A, B>, T, 2> {
  static auto build(tree_ctx& c, const lz::shape_t<2>& s) {
    const node_gene g = c.node(2);
    const index_t k = inner_extent(g);
    c.steps += double(k) + 1; // a dot product of length k: gamma_k (Higham, eq. 3.5)
    exact_scope scope(c);
    auto x = builder<A, T, 2>::build(c, {s[0], k});
    auto y = builder<B, T, 2>::build(c, {k, s[1]});
    return built{std::move(x.expr) * std::move(y.expr), "(" + x.src + " * " + y.src + ")"};
  }
};

template <class A, class B, class T>
struct builder<mv<A, B>, T, 1> {
  static auto build(tree_ctx& c, const lz::shape_t<1>& s) {
    const node_gene g = c.node(2);
    const index_t k = inner_extent(g);
    c.steps += double(k) + 1;
    exact_scope scope(c);
    auto x = builder<A, T, 2>::build(c, {s[0], k});
    auto y = builder<B, T, 1>::build(c, {k});
    return built{std::move(x.expr) * std::move(y.expr), "(" + x.src + " * " + y.src + ")"};
  }
};

/// sum_axis / mean_axis: Mean selects lz::mean (one more rounding: the division by n).
template <class C, class T, std::size_t R, bool Mean>
struct axis_sum_builder {
  static auto build(tree_ctx& c, const lz::shape_t<R>& s) {
    const node_gene g = c.node(int(R) + 1);
    const std::size_t axis = std::size_t(g.which) % (R + 1);
    lz::shape_t<R + 1> cs{};
    for (std::size_t k = 0, m = 0; k <= R; ++k) cs[k] = k == axis ? g.extent : s[m++];
    c.steps += double(g.extent) + (Mean ? 1 : 0);
    exact_scope scope(c);
    auto x = builder<C, T, R + 1>::build(c, cs);
    auto r = [&] {
      if constexpr (Mean)
        return lz::mean(std::move(x.expr), axis);
      else
        return lz::sum(std::move(x.expr), axis);
    }();
    const std::string src =
        std::string(Mean ? "lz::mean(" : "lz::sum(") + x.src + ", " + std::to_string(axis) + ")";
    return built{as_type<T>(std::move(r)), as_type_src<T, decltype(r)>(src)};
  }
};
template <class C, class T, std::size_t R>
struct builder<sum_axis<C>, T, R> : axis_sum_builder<C, T, R, false> {};
template <class C, class T, std::size_t R>
struct builder<mean_axis<C>, T, R> : axis_sum_builder<C, T, R, true> {};

template <class C, class T, std::size_t R>
struct builder<sum_all<C>, T, R> {
  static auto build(tree_ctx& c, const lz::shape_t<R>&) {
    const node_gene g = c.node(2);
    rng r(g.seed);
    lz::shape_t<R> cs{};
    index_t n = 1;
    for (;;) { // small; empty now and then (a sum of nothing is 0)
      n = 1;
      for (std::size_t k = 0; k < R; ++k) n *= (cs[k] = r.between(r.chance(0.1) ? 0 : 1, 6));
      if (n <= 64) break;
    }
    c.steps += double(n);
    exact_scope scope(c);
    auto x = builder<C, T, R>::build(c, cs);
    auto sum = lz::sum(std::move(x.expr));
    return built{as_type<T>(std::move(sum)),
                 as_type_src<T, decltype(sum)>("lz::sum(" + x.src + ")")};
  }
};

template <class A, class B, class T, std::size_t R>
struct builder<mix<A, B>, T, R> {
  static auto build(tree_ctx& c, const lz::shape_t<R>& s) {
    using U = other_t<T>;
    c.node(2);
    c.steps += 2; // the sum in the wider type, the conversion back to T
    c.unit = std::max(c.unit, double(std::numeric_limits<U>::epsilon()) / 2);
    auto x = builder<A, T, R>::build(c, s);
    auto y = builder<B, U, R>::build(c, s);
    return built{lz::cast<T>(std::move(x.expr) + std::move(y.expr)),
                 "lz::cast<" + std::string(type_src<T>()) + ">(" + x.src + " + " + y.src + ")"};
  }
};

// ---- running a tree -----------------------------------------------------------------------

template <class T>
T combine(how op, T old, T v) {
  switch (op) {
  case how::add:
    return T(old + v);
  case how::sub:
    return T(old - v);
  case how::mul:
    return T(old * v);
  case how::div:
    return T(old / v);
  default:
    return v;
  }
}

inline const char* op_text(how op) {
  static const char* n[] = {"=", "+=", "-=", "*=", "/=", "= lz::eval"};
  return n[int(op)];
}

/// Outcome of one tree: empty when the engine matched the reference; else what went wrong,
/// plus (when asked) the tree as C++-like source.
struct outcome {
  std::optional<std::string> failure;
  std::string source;
};

template <bool Compound, class P, class D, class E>
void do_assign(const P& pol, how op, D& dst, const E& e) {
  if constexpr (Compound) {
    switch (op) {
    case how::add:
      dst += e;
      return;
    case how::sub:
      dst -= e;
      return;
    case how::mul:
      dst *= e;
      return;
    case how::div:
      dst /= e;
      return;
    default:
      break;
    }
  }
  lz::assign(pol, dst, e);
}

/// gamma_n = n u / (1 - n u) (Higham, "Accuracy and Stability of Numerical Algorithms", 3.1).
inline double gamma_n(double n, double u) { return n * u < 0.5 ? n * u / (1 - n * u) : 1.0; }

/// First element where `got` differs from `want` (row-major tensor), or "" when none does.
/// Without `mag`: bit for bit (NaN matches NaN, -0 matches +0). With `mag` (tolerance trees):
/// |got - want| <= gamma * mag + tiny, mag bounding every rounding error's scale.
template <class T, std::size_t R, class G>
std::string first_mismatch(const G& got, const lz::tensor<T, R>& want,
                           const lz::tensor<T, R>* mag = nullptr, double gamma = 0) {
  std::string where;
  detail::for_each_index(want, [&](const lz_test::idx_t<R>& i) {
    if (!where.empty()) return;
    index_t og = 0, ow = 0;
    for (std::size_t k = 0; k < R; ++k)
      og += i[k] * got.strides()[k], ow += i[k] * want.strides()[k];
    const T x = got.data()[og], y = want.data()[ow];
    if (x == y || (x != x && y != y)) return;
    double bound = 0;
    if (mag) {
      bound = gamma * double(mag->data()[ow]) + 64 * double(std::numeric_limits<T>::denorm_min());
      if (std::fabs(double(x) - double(y)) <= bound) return;
    }
    std::ostringstream os;
    os << std::setprecision(std::numeric_limits<T>::max_digits10) << "first mismatch at "
       << lz::detail::to_string(i) << ": got " << x << ", expected " << y;
    if (mag) os << " (bound " << bound << ")";
    where = os.str();
  });
  return where;
}

/// A tree that outlived its leaves (g.life returned or stored, checked builds): evaluating it
/// with the genome's policy and operator must throw lz::lifetime_error and leave a destination
/// untouched.
template <class Skel, class T, std::size_t R, bool Compound>
outcome run_dead(genome& g, bool want_source) {
  outcome out;
  lz::shape_t<R> s{};
  for (std::size_t k = 0; k < R; ++k) s[k] = g.shape[k];
  auto make = [&](tree_ctx& c) { return builder<Skel, T, R>::build(c, s); };
  using tree_t = decltype(make(std::declval<tree_ctx&>()));
  std::optional<tree_t> tree;
  if (g.life == lifetime_mode::returned) {
    auto returned = [&] { // `return a + b;` over local tensors: c and its buffers die here
      tree_ctx c(g, want_source, typeid(T));
      c.tracked = true;
      return make(c);
    };
    tree.emplace(returned());
  } else {
    tree_ctx c(g, want_source, typeid(T)); // the tensors' scope ends before evaluation
    c.tracked = true;
    tree.emplace(make(c));
  }
  const auto& e = tree->expr;
  lz::tensor<T, R> d(s, T(3));
  bool threw = false;
  try {
    auto eval_into = [&](const auto& pol) {
      if (g.op == how::eval)
        d = lz::eval(pol, e);
      else
        do_assign<Compound>(pol, g.op, d, e);
    };
    switch (g.pol) {
    case policy::seq:
      eval_into(lz::seq);
      break;
    case policy::simd:
      eval_into(lz::simd);
      break;
    case policy::par:
      eval_into(lz::par);
      break;
    default:
      eval_into(lz::automatic);
      break;
    }
  } catch (const lz::lifetime_error&) {
    threw = true;
  } catch (const std::exception& ex) {
    out.failure = std::string("threw another error: ") + ex.what();
  }
  if (!out.failure && !threw)
    out.failure = std::string("a ") + to_string(g.life) +
                  " tree evaluated after its leaves were freed did not throw lz::lifetime_error";
  if (!out.failure && !std::all_of(d.begin(), d.end(), [](T v) { return v == T(3); }))
    out.failure = "lz::lifetime_error left the destination changed";
  if (out.failure && want_source)
    out.source = "// " + std::string(to_string(g.life)) + " tree, seed " + std::to_string(g.seed) +
                 "\n" + tree->src + "\n// " + *out.failure + "\n";
  return out;
}

/// Builds, runs and checks the tree of skeleton Skel, element type T, rank R described by g.
/// Compound: the genome may ask for +=, -=, *=, /= (each instantiates more kernels, so suites
/// enable it on a few skeletons only; random_genome must be told the same).
/// Tolerance trees (g.tol): the bound is 2 gamma_N M elementwise, M the reference value of the
/// tree's magnitude twin (|leaves|, each op replaced by its bound, products and sums of |.|)
/// and N the roundings counted while building (k+1 per dot product of length k, n per sum of
/// n, 1 per arithmetic op, 2 per mixed-type node, 1 per compound assignment). Both lazuli and
/// the reference are within gamma_N M of the exact value, hence the factor 2.
template <class Skel, class T, std::size_t R, bool Compound = false>
outcome run(genome& g, bool want_source) {
  if constexpr (LZ_CHECKED)
    if (g.life != lifetime_mode::alive) return run_dead<Skel, T, R, Compound>(g, want_source);
  outcome out;
  tree_ctx c(g, want_source, typeid(T));
  lz::shape_t<R> s{};
  for (std::size_t k = 0; k < R; ++k) s[k] = g.shape[k];
  auto tree = builder<Skel, T, R>::build(c, s); // (not a structured binding: clang 14 cannot
  const auto& e = tree.expr;                    // capture those in lambdas)
  const std::string& src = tree.src;

  std::ostringstream head;
  head << "// " << type_src<T>() << (g.tol ? " tolerance" : "") << " tree, seed " << g.seed
       << ", shape " << lz::detail::to_string(s) << "\n";
  auto fail = [&](const std::string& what, const std::string& stmt) {
    out.failure = what;
    if (want_source) {
      std::ostringstream os;
      os << head.str();
      for (const auto& d : c.decls) os << d << "\n";
      os << stmt << "\n// " << what << "\n";
      out.source = os.str();
    }
    return out;
  };

  try {
    const auto ref = reference(e); // before anything is written (the destination may alias)
    std::optional<lz::tensor<T, R>> mag;
    double gamma = 0;
    if (g.tol) {
      tree_ctx twin(g, false, typeid(T));
      twin.magnitude = true;
      auto [me, msrc] = builder<Skel, T, R>::build(twin, s);
      mag.emplace(reference(me));
      gamma = 2 * gamma_n(c.steps + 2, c.unit);
    }
    if (g.op == how::eval) {
      auto run_eval = [&](const auto& pol) { return lz::eval(pol, e); };
      lz::tensor<T, R> t = g.pol == policy::seq    ? run_eval(lz::seq)
                           : g.pol == policy::simd ? run_eval(lz::simd)
                           : g.pol == policy::par  ? run_eval(lz::par)
                                                   : run_eval(lz::automatic);
      const std::string stmt =
          std::string("auto D = lz::eval(") + to_string(g.pol) + ", " + src + ");";
      if (g.plant_fault && t.size() && s[0] >= 3) t.data()[0] += T(1);
      const std::string where = first_mismatch(t, ref, mag ? &*mag : nullptr, gamma);
      if (!where.empty()) return fail("lz::eval differs from the reference: " + where, stmt);
      return out;
    }
    // The destination: fresh memory, or memory one of the leaves reads.
    std::optional<lz::tensor_view<T, R>> dst_; // emplaced (see the leaf builder)
    std::shared_ptr<viewed_buffer<T, R>> fresh;
    std::string dst_src;
    const alias_candidate* a = nullptr;
    if (g.alias != alias_mode::none && !c.candidates.empty())
      a = &c.candidates[g.dst_seed % c.candidates.size()];
    if (a) {
      lz::strided_layout<R> l;
      l.extents = s;
      for (std::size_t k = 0; k < R; ++k) l.strides[k] = a->strides[k];
      T* p = static_cast<T*>(a->data);
      rng ar(g.dst_seed);
      std::string how_txt;
      switch (g.alias) {
      case alias_mode::reversed:
        for (std::size_t k = 0; k < R; ++k)
          if (s[k] > 1 && ar.chance(0.6)) {
            p += (s[k] - 1) * l.strides[k];
            l.strides[k] = -l.strides[k];
          }
        how_txt = "reversed";
        break;
      case alias_mode::shifted: // one element up: still inside (8 elements of slack after)
        p += 1;
        how_txt = "shifted";
        break;
      case alias_mode::transposed:
        for (std::size_t k = 0; k + 1 < R; ++k)
          if (s[k] == s[k + 1]) {
            std::swap(l.strides[k], l.strides[k + 1]);
            break;
          }
        how_txt = "transposed";
        break;
      default:
        how_txt = "same position";
        break;
      }
      dst_.emplace(p, l, lz::detail::trusted);
      dst_src = "auto D = lz::adopt(const_cast<T*>(" + a->src + ".data()) + " +
                std::to_string(p - static_cast<T*>(a->data)) + ", " + braced(s) + ", " +
                braced(l.strides) + "); // " + how_txt + " alias of " + a->src;
    } else {
      rng dr(g.dst_seed);
      fresh = std::make_shared<viewed_buffer<T, R>>(
          make_viewed<T, R>(s, random_layout<R>(dr, g.dst_kind, true), g.dst_seed + 1,
                            g.op == how::div || g.op == how::mul ? values::small : values::plain));
      dst_.emplace(fresh->view);
      dst_src = "auto D = " + describe(*fresh, "d") + "; // " + to_string(g.dst_kind);
    }
    if (want_source) c.decls.push_back(dst_src);
    lz::tensor_view<T, R>& dst = *dst_;
    const auto old = reference(dst); // values before the assignment, row-major
    lz::tensor<T, R> expected(s);
    detail::for_each_index(old, [&](const lz_test::idx_t<R>& i) {
      index_t off = 0;
      for (std::size_t k = 0; k < R; ++k) off += i[k] * old.strides()[k];
      expected.data()[off] = combine<T>(g.op, old.data()[off], static_cast<T>(ref_child(ref, i)));
    });

    if (mag && g.op != how::assign) { // D op= e: one more rounding, |old| + M (add, sub only)
      detail::for_each_index(old, [&](const lz_test::idx_t<R>& i) {
        index_t off = 0;
        for (std::size_t k = 0; k < R; ++k) off += i[k] * old.strides()[k];
        mag->data()[off] = T(std::fabs(old.data()[off]) + mag->data()[off]);
      });
      gamma = 2 * gamma_n(c.steps + 3, c.unit);
    }

    const std::string stmt =
        g.op == how::assign ? std::string("lz::assign(") + to_string(g.pol) + ", D, " + src + ");"
                            : std::string("D ") + op_text(g.op) + " " + src + ";";
    switch (g.pol) {
    case policy::seq:
      do_assign<Compound>(lz::seq, g.op, dst, e);
      break;
    case policy::simd:
      do_assign<Compound>(lz::simd, g.op, dst, e);
      break;
    case policy::par:
      do_assign<Compound>(lz::par, g.op, dst, e);
      break;
    default:
      do_assign<Compound>(lz::automatic, g.op, dst, e);
      break;
    }
    if (g.plant_fault && dst.size() && s[0] >= 3) dst.data()[0] += T(1);
    if (const std::string where = first_mismatch(dst, expected, mag ? &*mag : nullptr, gamma);
        !where.empty())
      return fail(where, stmt);
    if (fresh && !fresh->untouched_outside())
      return fail("wrote outside the destination view", stmt);
  } catch (const std::exception& ex) {
    return fail(std::string("threw: ") + ex.what(), src);
  }
  return out;
}

/// Shrinks a failing genome: every change that keeps it failing is kept.
template <class Skel, class T, std::size_t R, bool Compound = false>
genome shrink(genome g) {
  auto fails = [](genome& t) { return run<Skel, T, R, Compound>(t, false).failure.has_value(); };
  for (int round = 0; round < 6; ++round) {
    bool changed = false;
    auto attempt = [&](auto mutate) {
      genome t = g;
      if (!mutate(t)) return;
      if (fails(t)) {
        g = t;
        changed = true;
      }
    };
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      attempt([&](genome& t) { return t.nodes[i].which != 0 && ((t.nodes[i].which = 0), true); });
    for (std::size_t i = 0; i < g.leaves.size(); ++i)
      attempt([&](genome& t) {
        if (t.leaves[i].simple()) return false;
        t.leaves[i].form = leaf_form::adopt;
        t.leaves[i].kind = layout_kind::row;
        t.leaves[i].vals = values::plain;
        return true;
      });
    for (std::size_t k = 0; k < g.shape.size(); ++k) {
      attempt([&](genome& t) { return t.shape[k] > 1 && ((t.shape[k] = 1), true); });
      attempt([&](genome& t) { return t.shape[k] > 1 && ((t.shape[k] /= 2), true); });
      attempt([&](genome& t) { return t.shape[k] > 1 && ((t.shape[k] -= 1), true); });
    }
    attempt([&](genome& t) { return t.pol != policy::seq && ((t.pol = policy::seq), true); });
    attempt([&](genome& t) { return t.op != how::assign && ((t.op = how::assign), true); });
    attempt([&](genome& t) {
      return t.alias != alias_mode::none && ((t.alias = alias_mode::none), true);
    });
    attempt([&](genome& t) {
      return t.dst_kind != layout_kind::row && ((t.dst_kind = layout_kind::row), true);
    });
    if (!changed) break;
  }
  return g;
}

/// A random genome for rank R: shape, policy, operator and destination (nodes and leaves are
/// drawn while building). `big` gives ~2.5e5-1.1e6 elements. `tol`: a tolerance tree (floating
/// types only; no *= or /=).
template <class T, std::size_t R>
genome random_genome(std::uint64_t seed, bool big, bool compound, bool tol = false) {
  rng r(seed);
  genome g;
  g.seed = seed;
  g.tol = tol && std::is_floating_point_v<T>;
  lz::shape_t<R> s{};
  if (big) {
    const index_t target = r.between(250000, 1100000);
    for (std::size_t k = 0; k < R; ++k) s[k] = 1;
    s[R - 1] = target;
    if constexpr (R >= 2) { // spread over two dims, both odd
      s[R - 2] = r.between(300, 1100) | 1;
      s[R - 1] = (target / s[R - 2]) | 1;
    }
  } else {
    s = random_shape<R>(r, 4000);
  }
  g.shape.assign(s.begin(), s.end());
  g.pol = policy(r.between(0, 3));
  const index_t o = r.between(0, 9);
  if (!compound)
    g.op = o < 8 ? how::assign : how::eval;
  else if constexpr (std::is_floating_point_v<T>)
    g.op = o < 5    ? how::assign
           : o == 5 ? how::add
           : o == 6 ? how::sub
           : o == 7 ? how::mul
           : o == 8 ? how::div
                    : how::eval;
  else // integer *= and /= can overflow or divide by zero
    g.op = o < 6 ? how::assign : o == 6 ? how::add : o == 7 ? how::sub : how::eval;
  g.dst_kind = r.pick(all_layout_kinds);
  if (g.dst_kind == layout_kind::broadcast) g.dst_kind = layout_kind::general;
  g.dst_seed = r.next();
  g.alias = r.chance(0.25) ? alias_mode(r.between(1, 4)) : alias_mode::none;
  if (g.tol && (g.op == how::mul || g.op == how::div)) g.op = how::add;
  if constexpr (LZ_CHECKED) // (drawn last: unchecked builds draw the same genomes as before)
    if (r.chance(0.3)) {
      g.life = r.chance(0.5) ? lifetime_mode::returned : lifetime_mode::stored;
      g.alias = alias_mode::none; // no destination inside freed memory
    }
  return g;
}

} // namespace lz_test::tree
