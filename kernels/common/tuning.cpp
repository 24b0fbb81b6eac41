// Thresholds: defaults, the LZ_CONFIG file, save/load, where each value came from (see
// include/lz/policy.hpp).
#include <lz/errors.hpp>
#include <lz/policy.hpp>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace lz {
namespace {

// Each key with the range a value must lie in: wide enough for every sensible setting, narrow
// enough that no arithmetic on it overflows (a reduce_block near INT64_MAX made every block
// count overflow and every sum 0).
constexpr index_t huge = index_t(1) << 62;
struct field {
  const char* key;
  setting<index_t> tuning::*member;
  index_t lo, hi;
};
constexpr field fields[] = {{"parallel_work", &tuning::parallel_work, 0, huge},
                            {"tile", &tuning::tile, 0, 65536},
                            {"reduce_block", &tuning::reduce_block, 1, index_t(1) << 30},
                            {"gemm_copy_flops", &tuning::gemm_copy_flops, 0, huge},
                            {"level1_blas", &tuning::level1_blas, 0, huge},
                            {"dot_blas", &tuning::dot_blas, 0, huge},
                            {"dot_blas_max", &tuning::dot_blas_max, 0, huge},
                            {"stream_bytes", &tuning::stream_bytes, 0, huge},
                            {"reduce_prefetch", &tuning::reduce_prefetch, 0, huge}};
constexpr std::size_t nkeys = std::size(fields) + 1; // + use_syrk
constexpr std::size_t max_file_bytes = 64 * 1024;

// What LZ_CONFIG did, recorded once by initial_tuning (under thresholds()' static init; a
// function-local static, so a user's static initializer may use lazuli first).
struct origin_t {
  std::string path;      // LZ_CONFIG, or empty
  std::string rejected;  // why the file was not used, or empty
  tuning loaded;         // the thresholds at start-up
  bool in_file[nkeys]{}; // per key (fields, then use_syrk): set by the file
};
origin_t& origin() {
  static origin_t o;
  return o;
}

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error("lz::load_tuning: " + where + ": " + what);
}

// The file's text: a regular file of at most 64 KiB, opened without blocking (a FIFO or a
// device named by LZ_CONFIG must neither hang nor fill memory) and checked on the open file.
std::string read_small_regular_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error("lz::load_tuning: cannot read " + path + ": " + std::strerror(errno));
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(path, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "not a regular file");
  if (std::size_t(st.st_size) > max_file_bytes)
    fail(path, "larger than 64 KiB (" + std::to_string(st.st_size) + " bytes): not a tuning file");
  std::string text(max_file_bytes + 1, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t r = ::read(fd, text.data() + got, text.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail(path, std::string("read failed: ") + std::strerror(errno));
    if (r == 0) break;
    got += std::size_t(r);
  }
  if (got > max_file_bytes) fail(path, "larger than 64 KiB: not a tuning file");
  text.resize(got);
  return text;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

tuning parse(const std::string& path, const std::string& text, bool* in_file) {
  tuning t;
  std::size_t pos = 0;
  int no = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++no;
    const std::string where = path + ":" + std::to_string(no);
    if (line.find('\0') != std::string::npos) fail(where, "a NUL byte: not a text file");
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (trim(line).empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) fail(where, "expected `key = value`");
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end) fail(where, "not an integer: " + key + " = " + value);
    std::size_t k = 0;
    while (k < std::size(fields) && key != fields[k].key) ++k;
    const bool syrk = key == "use_syrk";
    if (k == std::size(fields) && !syrk) fail(where, "unknown key " + key);
    const index_t lo = syrk ? 0 : fields[k].lo, hi = syrk ? 1 : fields[k].hi;
    if (errno == ERANGE || v < lo || v > hi)
      fail(where, key + " = " + value + " is outside its range [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "]");
    if (syrk)
      t.use_syrk = v != 0;
    else
      t.*(fields[k].member) = index_t(v);
    if (in_file) in_file[syrk ? std::size(fields) : k] = true;
  }
  return t;
}

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
  return parse(path, read_small_regular_file(path), nullptr);
}

namespace detail {
namespace {
// The CPU kinds whose defaults were measured. Each entry says what set it; add a row (with its
// measurement) when a new CPU kind is measured, rather than changing a vendor-wide guess.
struct cpu_entry {
  const char* vendor;
  unsigned family, model_lo, model_hi;
  const char* kind;
  index_t reduce_prefetch;
  const char* evidence;
};
constexpr index_t mib8 = index_t(8) << 20;
constexpr cpu_entry cpu_table[] = {
    {"GenuineIntel", 6, 106, 106, "Intel Xeon Ice Lake-SP", mib8,
     "W3 (perf/w3_paired 10000000 15, 1 thread, 2026-11-28): 0.92-0.94x Eigen with prefetches, "
     "1.00-1.01x without"},
    {"GenuineIntel", 6, 207, 207, "Intel Xeon 5th generation (Emerald Rapids)", 0,
     "W3 (n = 1e7, 1 thread, thread CPU time, issue 30's measurement, 2026-11-27): 1.04-1.10x "
     "Eigen with prefetches, 1.02x without"},
    {"GenuineIntel", 6, 167, 167, "Intel Xeon with AVX-512 + AMX reported as model 167 (a VM)", 0,
     "W3 (perf/w3_paired 10000000 21, 1 thread, 2026-11-28): 1.20x Eigen with prefetches, "
     "1.15x without"},
    {"AuthenticAMD", 25, 0, 255, "AMD family 25 (Zen 3; Zen 4 unmeasured)", 0,
     "W3 (perf/w3_paired, 1 thread, 2026-11-27, EPYC Zen 3): prefetches cost 8-18% at every "
     "distance from 256 to 8192 elements"},
};

struct cpu_signature {
  std::string vendor;
  unsigned family = 0, model = 0;
};
cpu_signature read_cpu() {
  cpu_signature c;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, cx = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &cx, &d)) {
    char v[13] = {};
    std::memcpy(v, &b, 4);
    std::memcpy(v + 4, &d, 4);
    std::memcpy(v + 8, &cx, 4);
    c.vendor = v;
  }
  if (__get_cpuid(1, &a, &b, &cx, &d)) {
    const unsigned base = (a >> 8) & 0xf;
    c.family = base == 0xf ? base + ((a >> 20) & 0xff) : base;
    c.model = ((a >> 4) & 0xf) | (base == 6 || base == 0xf ? ((a >> 16) & 0xf) << 4 : 0);
  }
#endif
  return c;
}
} // namespace

cpu_defaults cpu_defaults_for(const std::string& vendor, unsigned family, unsigned model) {
  cpu_defaults d;
  d.cpu = vendor.empty()
              ? std::string("unknown")
              : vendor + " family " + std::to_string(family) + " model " + std::to_string(model);
  for (const cpu_entry& e : cpu_table)
    if (vendor == e.vendor && family == e.family && model >= e.model_lo && model <= e.model_hi) {
      d.kind = e.kind;
      d.reduce_prefetch = e.reduce_prefetch;
      d.evidence = e.evidence;
      return d;
    }
  // Not measured: the vendor's guess (on for Intel, where the one measured win was).
  d.reduce_prefetch = vendor == "GenuineIntel" ? mib8 : 0;
  d.evidence = "not in lazuli's table of measured CPUs: the vendor's guess (lz::calibrate "
               "measures this machine; save_tuning + LZ_CONFIG keep the result)";
  return d;
}

const cpu_defaults& this_cpu_defaults() {
  static const cpu_defaults d = [] {
    const cpu_signature c = read_cpu();
    return cpu_defaults_for(c.vendor, c.family, c.model);
  }();
  return d;
}

index_t default_reduce_prefetch() noexcept { return this_cpu_defaults().reduce_prefetch; }

tuning initial_tuning() {
  origin_t& o = origin();
  if (const char* path = std::getenv("LZ_CONFIG"); path && *path) {
    o.path = path;
    try {
      o.loaded = parse(o.path, read_small_regular_file(o.path), o.in_file);
    } catch (const std::exception& e) {
      // A broken LZ_CONFIG does not stop the program, but is never dropped silently: one line
      // on stderr now, and lz::info() says it was rejected and why.
      o.rejected = e.what();
      o.loaded = tuning{};
      for (bool& b : o.in_file) b = false;
      std::fprintf(stderr, "lazuli: LZ_CONFIG rejected, defaults in force: %s\n", e.what());
    }
  }
  return o.loaded;
}

std::string tuning_report() {
  const origin_t& o = origin();
  const tuning& now = thresholds(); // (first: runs initial_tuning if nothing has yet)
  const tuning defaults{};
  std::string s;
  if (!o.path.empty())
    s += o.rejected.empty()
             ? "    LZ_CONFIG=" + o.path + " loaded\n"
             : "    LZ_CONFIG=" + o.path + " REJECTED (defaults in force): " + o.rejected + "\n";
  auto line = [&](const char* key, index_t v, index_t at_start, index_t def, bool in_file) {
    s += "    " + std::string(key) + " = " + std::to_string(v);
    if (v == at_start && !in_file) {
      s += " (default)\n";
      return;
    }
    s += v != at_start ? " (set in code or by lz::calibrate" : " (LZ_CONFIG";
    s += "; default " + std::to_string(def) + ")\n";
  };
  for (std::size_t k = 0; k < std::size(fields); ++k) {
    line(fields[k].key, now.*(fields[k].member), o.loaded.*(fields[k].member),
         defaults.*(fields[k].member), o.in_file[k]);
    if (fields[k].member == &tuning::reduce_prefetch) { // a per-CPU default: which and why
      const cpu_defaults& c = this_cpu_defaults();
      s += std::string("      its default on ") + (c.kind ? c.kind : c.cpu.c_str()) + ": " +
           c.evidence + "\n";
    }
  }
  line("use_syrk", now.use_syrk, o.loaded.use_syrk, defaults.use_syrk, o.in_file[nkeys - 1]);
  return s;
}
} // namespace detail

} // namespace lz
