// Text for lz::explain and LZ_LOG (fusion/plan.hpp): one line per step, Graphviz DOT.
#include <lz/explain.hpp>

#include <cstdio>

namespace lz {
namespace detail {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

} // namespace detail

namespace fusion::detail_plan {

std::string format_scalar(double re, double im) {
  std::string s = lz::detail::number_text(re);
  if (im != 0) {
    if (im >= 0) s += '+';
    s += lz::detail::number_text(im);
    s += 'i';
  }
  return s;
}

std::string format_bytes(std::size_t b) {
  char buf[32];
  if (b < 1024)
    std::snprintf(buf, sizeof buf, "%zu B", b);
  else if (b < 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / (1024.0 * 1024.0));
  return buf;
}

std::string join(note_text pieces) {
  std::string out;
  for (const note_piece& p : pieces) switch (p.kind) {
    case note_piece::text:
      out += p.s;
      break;
    case note_piece::integer:
      out += std::to_string(p.i);
      break;
    case note_piece::shape:
      out += lz::detail::dims_text(p.dims, std::size_t(p.i));
      break;
    case note_piece::bytes:
      out += format_bytes(std::size_t(p.i));
      break;
    }
  return out;
}

void log_note(note_text pieces) { logging::write(logging::fusion, join(pieces)); }

void log_temporary(const index_t* extents, const index_t* strides, std::size_t rank,
                   std::size_t bytes, const char* why) {
  logging::write(logging::alloc, "temporary " + lz::detail::layout_text(extents, strides, rank) +
                                     " " + format_bytes(bytes) + " (" + why + ")");
}

namespace {
// An entry count; unknown (-1) for a computed sparse term explain did not compute.
std::string nnz_text(index_t nnz) { return nnz < 0 ? "?" : std::to_string(nnz); }
std::string who(int id, const char* role) {
  if (id == origin::dst) return "dst";
  if (id >= 0) return "tmp" + std::to_string(id);
  return role;
}
} // namespace

std::string describe_gemm(const char* routine, bool generic, char o, char ta, char tb, index_t m,
                          index_t n, index_t k, const std::string& alpha, const std::string& beta,
                          index_t lda, index_t ldb, index_t ldc, int a, int b, int c) {
  std::string s = routine;
  if (generic)
    return s + "(m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", k=" + std::to_string(k) +
           ", alpha=" + alpha + ", " + who(a, "A") + ", " + who(b, "B") + ", beta=" + beta +
           ") → " + who(c, "C") + "  (own kernel, any strides)";
  s += "(";
  s += o == 'R' ? "RowMajor" : "ColMajor";
  s += std::string(", ") + ta + ", " + tb + ", m=" + std::to_string(m) +
       ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ", alpha=" + alpha + ", " +
       who(a, "A") + " lda=" + std::to_string(lda) + ", " + who(b, "B") +
       " ldb=" + std::to_string(ldb) + ", beta=" + beta + ", ldc=" + std::to_string(ldc) + ") → " +
       who(c, "C");
  return s;
}

std::string describe_gemv(const char* routine, bool generic, char o, char t, index_t m, index_t n,
                          const std::string& alpha, const std::string& beta, index_t lda,
                          index_t incx, index_t incy, int a, int x, int y) {
  std::string s = routine;
  if (generic)
    return s + "(m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", alpha=" + alpha + ", " +
           who(a, "A") + ", " + who(x, "x") + " incx=" + std::to_string(incx) + ", beta=" + beta +
           ") → " + who(y, "y") + "  (own kernel, any strides)";
  return s + "(" + (o == 'R' ? "RowMajor" : "ColMajor") + ", " + t + ", m=" + std::to_string(m) +
         ", n=" + std::to_string(n) + ", alpha=" + alpha + ", " + who(a, "A") +
         " lda=" + std::to_string(lda) + ", " + who(x, "x") + " incx=" + std::to_string(incx) +
         ", beta=" + beta + ", incy=" + std::to_string(incy) + ") → " + who(y, "y");
}

std::string describe_sparse(const char* routine, char t, index_t m, index_t n, index_t nnz,
                            index_t k, const std::string& alpha, const std::string& beta,
                            index_t rsb, index_t rsc, int a, int b, int c, bool filled) {
  std::string s = std::string(routine) + "(" + t + ", " + std::to_string(m) + "x" +
                  std::to_string(n) + " nnz=" + nnz_text(nnz);
  if (k != 1) s += ", k=" + std::to_string(k);
  return s + ", alpha=" + alpha + ", " + (filled ? "values f(" + who(a, "A") + ")" : who(a, "A")) +
         ", " + who(b, k == 1 ? "x" : "B") + (k == 1 ? " incx=" : " ldb=") + std::to_string(rsb) +
         ", beta=" + beta + (k == 1 ? ", incy=" : ", ldc=") + std::to_string(rsc) + ") → " +
         who(c, k == 1 ? "y" : "C") + "  (CSR, own kernel)";
}

std::string describe_sparse_multd(const char* routine, char ta, char ts, index_t m, index_t n,
                                  index_t k, index_t nnza, index_t nnzs, const std::string& alpha,
                                  const std::string& beta, index_t rsc, index_t csc, int a, int s,
                                  int c) {
  return std::string(routine) + "(" + ta + ", " + ts + ", m=" + std::to_string(m) +
         ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ", alpha=" + alpha + ", " +
         who(a, "A") + " nnz=" + nnz_text(nnza) + ", " + who(s, "B") + " nnz=" + nnz_text(nnzs) +
         ", beta=" + beta + ", C strides (" + std::to_string(rsc) + "," + std::to_string(csc) +
         ")) → " + who(c, "C") + "  (CSR × CSR into dense rows, own kernel)";
}

std::string describe_sparse_summv(const char* routine, char ta, char tb, index_t m, index_t n,
                                  index_t k, index_t nnza, index_t nnzb, const std::string& a,
                                  const std::string& b, bool f, const std::string& alpha,
                                  const std::string& beta, index_t rsx, index_t csx, index_t rsy,
                                  index_t csy, int ia, int ib, int ix, int iy) {
  const auto strides = [](index_t rs, index_t cs) {
    return "strides (" + std::to_string(rs) + "," + std::to_string(cs) + ")";
  };
  return std::string(routine) + "(" + ta + ", " + tb + ", m=" + std::to_string(m) +
         ", n=" + std::to_string(n) + (k == 1 ? "" : ", k=" + std::to_string(k)) +
         ", alpha=" + alpha + ", " + (f ? "f(" : "(") + "a·" + who(ia, "A") + " + b·" +
         who(ib, "B") + "), a=" + a + ", b=" + b + ", " + who(ia, "A") + " nnz=" + nnz_text(nnza) +
         ", " + who(ib, "B") + " nnz=" + nnz_text(nnzb) + ", " +
         (k == 1 ? who(ix, "x") + " incx=" + std::to_string(rsx)
                 : who(ix, "X") + " " + strides(rsx, csx)) +
         ", beta=" + beta + ", " +
         (k == 1 ? "incy=" + std::to_string(rsy) : "C " + strides(rsy, csy)) + ") → " +
         who(iy, "y") + "  (CSR rows merged block by block, own kernel)";
}

std::string describe_sparse_add(const char* routine, char t, index_t m, index_t n, index_t nnz,
                                const std::string& alpha, const std::string& beta, index_t rsc,
                                index_t csc, int a, int c) {
  return std::string(routine) + "(" + t + ", " + std::to_string(m) + "x" + std::to_string(n) +
         " nnz=" + nnz_text(nnz) + ", alpha=" + alpha + ", " + who(a, "A") + ", beta=" + beta +
         ", C strides (" + std::to_string(rsc) + "," + std::to_string(csc) + ")) → " + who(c, "C") +
         "  (CSR scatter, own kernel)";
}

std::string describe_syrk(const char* routine, char o, char t, index_t n, index_t k,
                          const std::string& alpha, const std::string& beta, index_t lda,
                          index_t ldc, int a, int c) {
  return std::string(routine) + "(" + (o == 'R' ? "RowMajor" : "ColMajor") + ", Upper, " + t +
         ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ", alpha=" + alpha + ", " +
         who(a, "A") + " lda=" + std::to_string(lda) + ", beta=" + beta +
         ", ldc=" + std::to_string(ldc) + ") → " + who(c, "C") + " + mirror lower triangle";
}

std::string describe_level1(const char* routine, index_t n, const std::string& alpha, index_t incx,
                            index_t incy, int x, int y) {
  std::string s = std::string(routine) + "(n=" + std::to_string(n) + ", alpha=" + alpha + ", " +
                  who(x, "x") + " incx=" + std::to_string(incx);
  if (incy) s += ", " + who(y, "y") + " incy=" + std::to_string(incy);
  return s + ")";
}

std::string describe_lapack(const char* routine, char t, char u, index_t m, index_t n, index_t nrhs,
                            index_t lda, index_t ldb, int a, int b) {
  const std::string r = routine;
  const bool solves = r.find("trs") != std::string::npos || r.find("gels") != std::string::npos;
  std::string s = r + "(";
  if (r.find("getrs") != std::string::npos || r.find("trtrs") != std::string::npos ||
      r.find("gels") != std::string::npos)
    s += std::string(1, t) + ", ";
  if (r.find("potr") != std::string::npos || r.find("trtrs") != std::string::npos)
    s += std::string(u == 'L' ? "Lower" : "Upper") + ", ";
  if (r.find("gels") != std::string::npos) s += "m=" + std::to_string(m) + ", ";
  s += "n=" + std::to_string(n);
  if (solves) s += ", nrhs=" + std::to_string(nrhs);
  s += ", " + who(a, "A") + " lda=" + std::to_string(lda);
  if (solves)
    s += ", " + who(b, "B") + " ldb=" + std::to_string(ldb) + ") → " + who(b, "B");
  else
    s += ") in place";
  return s;
}

std::string describe_trcheck(index_t n, int a) {
  return "check the diagonal of " + who(a, "A") + " (" + std::to_string(n) + "x" +
         std::to_string(n) + ") for zeros, before the right-hand side is written";
}

std::string describe_settled(const char* op, const std::string& shape, index_t block) {
  return std::string("reduce ") + op + " over " + shape +
         " → a scalar, settled before the rest is planned (pairwise blocks of " +
         std::to_string(block) + ", thread-count independent)";
}

void throw_lapack_info(const char* call, const char* routine, int info, index_t m, index_t n) {
  const std::string r = routine;
  const std::string size = std::to_string(m) + "x" + std::to_string(n);
  const std::string i = std::to_string(info);
  std::string why;
  if (r.find("potrf") != std::string::npos)
    why = "the " + size + " matrix is not positive definite: its leading minor of order " + i +
          " is not";
  else if (r.find("trtrs") != std::string::npos)
    why = "the " + size + " triangular matrix is singular: its diagonal entry (" + i + ", " + i +
          ") is zero";
  else if (r.find("gels") != std::string::npos)
    why = "the " + size + " matrix does not have full rank: R(" + i + ", " + i + ") is zero";
  else
    why = "the " + size + " matrix is singular: U(" + i + ", " + i + ") of its LU factors is zero";
  throw linalg_error(std::string(call) + ": " + r + ": " + why + " (1-based, LAPACK info " + i +
                     ")");
}

} // namespace fusion::detail_plan

namespace fusion {

std::string explain_sink::dot(const std::string& title) const {
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '"')
        o += "\\\"";
      else
        o += c;
    }
    return o;
  };
  std::string d = "digraph lz_plan {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  d += "  title [shape=note, label=\"" + esc(title) + "\"];\n";
  for (std::size_t i = 0; i < labels_.size(); ++i)
    d += "  s" + std::to_string(i + 1) + " [label=\"" + std::to_string(i + 1) + ". " +
         esc(labels_[i]) + "\"];\n";
  std::string prev = "title";
  for (std::size_t i = 0; i < labels_.size(); ++i) {
    std::string node = std::string("s") + std::to_string(i + 1);
    d += "  ";
    d += prev;
    d += " -> ";
    d += node;
    d += ";\n";
    prev = std::move(node);
  }
  return d + "}\n";
}

} // namespace fusion
} // namespace lz
