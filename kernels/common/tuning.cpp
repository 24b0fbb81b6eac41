// Thresholds: defaults, the LZ_CONFIG file, save/load (see include/lz/policy.hpp).
#include <lz/errors.hpp>
#include <lz/policy.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace lz {
namespace {

struct field {
  const char* key;
  index_t tuning::*member;
};
constexpr field fields[] = {
    {"parallel_work", &tuning::parallel_work},    {"tile", &tuning::tile},
    {"reduce_block", &tuning::reduce_block},      {"gemm_copy_flops", &tuning::gemm_copy_flops},
    {"level1_blas", &tuning::level1_blas},        {"dot_blas", &tuning::dot_blas},
    {"dot_blas_max", &tuning::dot_blas_max},      {"stream_bytes", &tuning::stream_bytes},
    {"reduce_prefetch", &tuning::reduce_prefetch}};

} // namespace

std::string to_string(const tuning& t) {
  std::string s;
  for (const auto& f : fields) {
    s += f.key;
    s += " = ";
    s += std::to_string(t.*(f.member));
    s += '\n';
  }
  s += "use_syrk = ";
  s += t.use_syrk ? "1\n" : "0\n";
  return s;
}

void save_tuning(const std::string& path, const tuning& t) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("lz::save_tuning: cannot write " + path);
  out << "# lazuli thresholds (lz::calibrate); load with LZ_CONFIG=" << path << "\n"
      << to_string(t);
  if (!out) throw std::runtime_error("lz::save_tuning: write failed for " + path);
}

tuning load_tuning(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("lz::load_tuning: cannot read " + path);
  tuning t;
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const auto eq = line.find('=');
    auto trim = [](std::string s) {
      const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    if (trim(line).empty()) continue;
    if (eq == std::string::npos)
      throw std::runtime_error("lz::load_tuning: " + path + ":" + std::to_string(no) +
                               ": expected `key = value`");
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    char* end = nullptr;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end)
      throw std::runtime_error("lz::load_tuning: " + path + ":" + std::to_string(no) +
                               ": not an integer: " + value);
    bool known = false;
    for (const auto& f : fields)
      if (key == f.key) {
        t.*(f.member) = index_t(v);
        known = true;
      }
    if (key == "use_syrk") {
      t.use_syrk = v != 0;
      known = true;
    }
    if (!known)
      throw std::runtime_error("lz::load_tuning: " + path + ":" + std::to_string(no) +
                               ": unknown key " + key);
  }
  return t;
}

namespace detail {
index_t default_reduce_prefetch() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init(); // may run before the constructors that would initialise it
  if (__builtin_cpu_is("intel")) return index_t(8) << 20;
#endif
  return 0;
}

tuning initial_tuning() {
  if (const char* path = std::getenv("LZ_CONFIG"); path && *path) {
    try {
      return load_tuning(path);
    } catch (const std::exception&) {
      // A broken LZ_CONFIG must not stop the program: keep the defaults (lz::info shows them).
    }
  }
  return tuning{};
}
} // namespace detail

} // namespace lz
