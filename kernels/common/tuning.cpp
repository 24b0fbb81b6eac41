// Thresholds: defaults, the LZ_CONFIG file, save/load, where each value came from (see
// include/lz/policy.hpp).
#include <lz/errors.hpp>
#include <lz/kernels/first_use.hpp>
#include <lz/policy.hpp>

#include <xsimd/xsimd.hpp>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <new>
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
                            {"reduce_prefetch", &tuning::reduce_prefetch, -1, huge},
                            {"wide_bytes", &tuning::wide_bytes, -1, huge}};
constexpr std::size_t nkeys = std::size(fields) + 1; // + use_syrk
constexpr std::size_t max_file_bytes = 64 * 1024;

// What LZ_CONFIG did, recorded once by initial_tuning (under construct_tuning; a function-local
// static, so a user's static initializer may use lazuli first).
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
  index_t wide_bytes;
  const char* wide_evidence;
};
constexpr index_t mib8 = index_t(8) << 20;
constexpr index_t kib48 = index_t(48) << 10;
constexpr cpu_entry cpu_table[] = {
    {"GenuineIntel", 6, 106, 106, "Intel Xeon Ice Lake-SP", mib8,
     "W3 (perf/w3_paired 10000000 15, 1 thread, 2026-11-28): 0.92-0.94x Eigen with prefetches, "
     "1.00-1.01x without",
     0,
     "W1 (z = 2.5*x + 1.5*y, n = 1000, 1 thread, 2026-11-26): 150 ns with 256-bit batches at "
     "every alignment tried, 160-250 ns with 512-bit ones"},
    {"GenuineIntel", 6, 207, 207, "Intel Xeon 5th generation (Emerald Rapids)", 0,
     "W3 (perf/w3_paired 10000000 21 cpu, 1 thread, thread CPU time, 2026-12-06): 0.98x Eigen "
     "without prefetches (1.04-1.10x with them: issue 30's measurement, 2026-11-27)",
     huge,
     "W1 (perf/w1_paired N 15 cpu, 1 thread, thread CPU time, 2026-12-06): lazuli / hand loop "
     "with 256- / 512-bit batches n = 1000 2.05 / 1.14, 3000-8000 1.06-1.12 / 1.00-1.02, "
     "2*10^4 1.06-1.11 / 0.99-1.00, 10^5-3*10^5 1.01-1.05 / 0.99-1.04: 512 bits at every size"},
    {"GenuineIntel", 6, 167, 167, "Intel Xeon with AVX-512 + AMX reported as model 167 (a VM)", 0,
     "W3 (perf/w3_paired 10000000 15 cpu, 1 thread, thread CPU time, 2026-12-01): 1.09x Eigen "
     "with prefetches, 1.03x without",
     kib48,
     "W1 (perf/w1_paired N 41 cpu, 1 thread, thread CPU time, 2026-12-04): lazuli / hand loop "
     "with 256- / 512-bit batches n = 1000 1.13 / 0.79, 2000 1.13 / 0.87 (3 x 48 KiB), "
     "4000 1.01 / 1.08, 10^4 1.02 / 1.07"},
    {"AuthenticAMD", 25, 0, 255, "AMD family 25 (Zen 3; Zen 4 unmeasured)", 0,
     "W3 (perf/w3_paired, 1 thread, 2026-11-27, EPYC Zen 3): prefetches cost 8-18% at every "
     "distance from 256 to 8192 elements",
     0, "Zen 3 has no AVX-512 (one batch width); Zen 4 unmeasured"},
};

struct cpu_signature {
  std::string vendor;
  unsigned family = 0, model = 0, stepping = 0;
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
    c.stepping = a & 0xf;
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
      d.wide_bytes = e.wide_bytes;
      d.wide_evidence = e.wide_evidence;
      return d;
    }
  // Not measured: measured here on first use (prefetches win on some cores of every vendor and
  // lose on others, so no vendor-wide guess is right).
  d.reduce_prefetch = measure_on_first_use;
  d.evidence = "not in lazuli's table of measured CPUs: measured on this machine by the first "
               "reduction over 8 MiB and kept per CPU kind in the first-use cache "
               "(LZ_TUNING_CACHE, else $XDG_CACHE_HOME/lazuli or ~/.cache/lazuli)";
  d.wide_bytes = measure_on_first_use;
  d.wide_evidence = "not in lazuli's table of measured CPUs: measured on this machine by the "
                    "first cheap elementwise pass of at most 192 KiB (AVX-512 builds) and kept "
                    "per CPU kind in the first-use cache";
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
index_t default_wide_bytes() noexcept { return this_cpu_defaults().wide_bytes; }

// ---- First-use measurements (lz/kernels/first_use.hpp) ----

std::string first_use_cache_dir() {
  if (const char* d = std::getenv("LZ_TUNING_CACHE"); d && *d)
    return std::strcmp(d, "off") == 0 ? std::string() : std::string(d);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') // relative: ignored (XDG)
    return std::string(x) + "/lazuli";
  if (const char* h = std::getenv("HOME"); h && *h == '/') return std::string(h) + "/.cache/lazuli";
  return {};
}

// A build whose timings say little about an optimized one (unoptimized, or sanitized: this file
// is compiled like the kernels) keeps its first-use values apart from it.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__OPTIMIZE__)
constexpr const char* build_tag = "-debug";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr const char* build_tag = "-debug";
#else
constexpr const char* build_tag = "";
#endif
#else
constexpr const char* build_tag = "";
#endif

int first_use_revision(const char* name) noexcept {
  // reduce_prefetch 2: since 0.2.0's reduction driver issues the prefetches a span at a time
  // (kernels/cpu/reduce.cpp, run_slab); 1 timed the slab's own prefetching loop.
  // wide_bytes 1: z = 2.5*x + 1.5*y through both kernels, 3 x 512..8192 doubles
  // (src/calibrate.cpp, measure_wide_batches).
  if (std::strcmp(name, "wide_bytes") == 0) return 1;
  return std::strcmp(name, "reduce_prefetch") == 0 ? 2 : 0;
}

std::string first_use_cache_file(const std::string& dir, const char* name) {
  if (dir.empty()) return {};
  const cpu_signature c = read_cpu();
  std::string key = std::string(name) + "-" + (c.vendor.empty() ? "unknown" : c.vendor) + "-" +
                    std::to_string(c.family) + "-" + std::to_string(c.model) + "-" +
                    std::to_string(c.stepping) + "-" + xsimd::default_arch::name() + build_tag +
                    "-r" + std::to_string(first_use_revision(name)) + "-" +
                    std::to_string(LZ_VERSION_MAJOR) + "." + std::to_string(LZ_VERSION_MINOR) +
                    "." + std::to_string(LZ_VERSION_PATCH);
  for (char& ch : key) // a vendor string is the CPU's to choose: keep the name a plain file name
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_')
      ch = '_';
  return dir + "/" + key + ".conf";
}

namespace {
// Makes `dir` and its missing parents, each with mode 0700 (the XDG rule for cache
// directories); "" or the reason it could not.
std::string make_dirs(const std::string& dir) {
  for (std::size_t at = 1; at <= dir.size(); ++at) {
    if (at < dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      return "cannot make " + part + ": " + std::strerror(errno);
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return dir + " is not a directory";
  return {};
}

// Writes `text` to `file` so that a reader sees the old file or the whole new one, never a part:
// a new temporary beside it (created, never followed through a link: O_EXCL), synced, renamed
// over it. "" or the reason it could not.
std::string write_atomically(const std::string& file, const std::string& text) {
  const std::size_t slash = file.rfind('/');
  if (slash != std::string::npos && slash > 0)
    if (std::string why = make_dirs(file.substr(0, slash)); !why.empty()) return why;
  static std::atomic<unsigned> serial{0}; // threads of one process each their own temporary
  const std::string tmp = file + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(serial.fetch_add(1, std::memory_order_relaxed));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return "cannot create " + tmp + ": " + std::strerror(errno);
  std::size_t done = 0;
  int err = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : ENOSPC;
      break;
    }
    done += std::size_t(w);
  }
  if (!err && ::fsync(fd) != 0) err = errno;
  ::close(fd);
  if (!err && ::rename(tmp.c_str(), file.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    return "cannot write " + file + ": " + std::strerror(err);
  }
  return {};
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  char buf[32] = "at an unknown time";
  if (::gmtime_r(&t, &tm)) std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

// The file's value of `name` if it holds exactly that key, in [lo, hi]; throws why not.
// `measured`: its "# measured: " line, if any.
index_t read_first_use_file(const std::string& file, const char* name, index_t lo, index_t hi,
                            std::string& measured) {
  std::size_t k = 0;
  while (k < std::size(fields) && std::strcmp(fields[k].key, name) != 0) ++k;
  if (k == std::size(fields)) throw std::logic_error(std::string("no threshold named ") + name);
  const std::string text = read_small_regular_file(file);
  bool in[nkeys]{};
  const tuning t = parse(file, text, in);
  for (std::size_t j = 0; j < nkeys; ++j)
    if (in[j] != (j == k))
      fail(file, j == k ? std::string("no ") + name + " line"
                        : std::string("holds other keys than ") + name);
  const index_t v = t.*(fields[k].member);
  if (v < lo || v > hi)
    fail(file, std::string(name) + " = " + std::to_string(v) + " is not a measured value");
  const std::size_t at = text.find("# measured: ");
  if (at != std::string::npos) measured = text.substr(at + 12, text.find('\n', at) - at - 12);
  return v;
}
} // namespace

first_use_result first_use(const std::string& file, const char* name, index_t lo, index_t hi,
                           first_use_measurement (*measure)(void*), void* ctx) {
  first_use_result r;
  std::string again; // why a file that exists was not used
  if (!file.empty()) {
    struct stat st {};
    if (::lstat(file.c_str(), &st) == 0) {
      try {
        std::string measured;
        r.value = read_first_use_file(file, name, lo, hi, measured);
        r.origin = "read from " + file + ", measured " + (measured.empty() ? "?" : measured) +
                   "; delete the file to measure again";
        return r;
      } catch (const std::runtime_error& e) {
        again = e.what();
      }
    }
  }
  const first_use_measurement m = measure(ctx);
  if (m.value < lo || m.value > hi)
    throw std::logic_error(std::string("first-use measurement of ") + name + " out of range");
  r.value = m.value;
  r.measured = true;
  const std::string when = utc_now();
  r.origin = "measured on first use, " + when + ": " + m.how;
  if (file.empty()) {
    r.origin += "; not kept (no cache directory: LZ_TUNING_CACHE=off, or neither XDG_CACHE_HOME "
                "nor HOME set)";
  } else {
    const cpu_signature c = read_cpu();
    const std::string text = "# lazuli first-use measurement; delete this file to measure again\n"
                             "# cpu: " +
                             c.vendor + " family " + std::to_string(c.family) + " model " +
                             std::to_string(c.model) + " stepping " + std::to_string(c.stepping) +
                             ", kernels " + xsimd::default_arch::name() + "\n# measured: " + when +
                             ": " + m.how + "\n" + name + " = " + std::to_string(m.value) + "\n";
    const std::string why = write_atomically(file, text);
    r.origin += why.empty() ? "; kept in " + file : "; not kept: " + why;
  }
  if (!again.empty()) r.origin += " (the cache file did not load: " + again + ")";
  return r;
}

namespace {
struct first_use_state {
  std::mutex m;
  bool done = false;
  first_use_result r;
};

first_use_measurement measure_prefetch(void*) {
  int pairs = 5;
  const double ratio = measure_reduce_prefetch_ratio(0.004, pairs);
  first_use_measurement m;
  m.value = ratio < 0.97 ? mib8 : 0; // on where it wins by 3%, as lz::calibrate decides
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "W3 (sum((x - y)^2), 2 x 32 MiB, 1 thread): time with / without prefetches "
                "%.3f (median of %d pair%s): %s",
                ratio, pairs, pairs == 1 ? "" : "s", m.value ? "on from 8 MiB" : "off");
  m.how = buf;
  return m;
}

first_use_measurement measure_wide(void*) {
  const std::vector<wide_batch_point> points = measure_wide_batches(0.001);
  first_use_measurement m;
  m.value = wide_bytes_of(points);
  m.how = "W1 (z = 2.5*x + 1.5*y, 1 thread): time with full-width / 256-bit batches";
  for (const wide_batch_point& p : points) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " n=%lld %.2f", static_cast<long long>(p.n), p.ratio);
    m.how += buf;
  }
  m.how += m.value == huge ? std::string(": full width at every size")
           : m.value       ? ": full width up to " + std::to_string(m.value) + "-byte passes"
                           : std::string(": 256 bits");
  return m;
}

// The thresholds measured on first use, each with its state, measurement, and what holds when
// the measurement fails.
struct first_use_key {
  const char* name;
  setting<index_t> tuning::*member;
  first_use_measurement (*measure)(void*);
  const char* when; // when it is resolved (lz::info)
  const char* failed;
};
constexpr first_use_key first_use_keys[] = {
    {"reduce_prefetch", &tuning::reduce_prefetch, measure_prefetch,
     "at the first reduction over 8 MiB", "prefetches off"},
    {"wide_bytes", &tuning::wide_bytes, measure_wide,
     "at the first cheap elementwise pass of at most 192 KiB", "256-bit batches"},
};
first_use_state& state_of(std::size_t key) {
  static first_use_state s[std::size(first_use_keys)];
  return s[key];
}
std::size_t key_of(setting<index_t> tuning::*member) {
  std::size_t k = 0;
  while (first_use_keys[k].member != member) ++k;
  return k;
}

// The first-use result, if resolved: its origin ("" if not) and value.
std::string resolved(std::size_t key, index_t& value) {
  first_use_state& s = state_of(key);
  std::lock_guard<std::mutex> g(s.m);
  value = s.r.value;
  return s.done ? s.r.origin : std::string();
}

index_t resolve(std::size_t key) {
  const first_use_key& f = first_use_keys[key];
  first_use_state& s = state_of(key);
  index_t value = 0;
  {
    std::lock_guard<std::mutex> g(s.m);
    if (!s.done) {
      try {
        s.r = first_use(first_use_cache_file(first_use_cache_dir(), f.name), f.name, 0, huge,
                        f.measure, nullptr);
      } catch (const std::exception& e) { // (memory not available): the user's work goes on
        s.r = first_use_result{};
        s.r.origin = std::string("the first-use measurement failed (") + e.what() +
                     "): " + f.failed + "; the next process tries again";
      }
      s.done = true;
    }
    value = s.r.value;
  }
  setting<index_t>& t = thresholds().*(f.member);
  for (index_t cur = t.get(); cur < 0; cur = t.get())
    if (t.replace(cur, value)) break;
  return value;
}
} // namespace

index_t resolve_first_use_reduce_prefetch() { return resolve(key_of(&tuning::reduce_prefetch)); }

std::string first_use_reduce_prefetch_origin() {
  index_t v = 0;
  return resolved(key_of(&tuning::reduce_prefetch), v);
}

index_t resolve_first_use_wide_bytes() { return resolve(key_of(&tuning::wide_bytes)); }

std::string first_use_wide_bytes_origin() {
  index_t v = 0;
  return resolved(key_of(&tuning::wide_bytes), v);
}

index_t wide_bytes_of(const std::vector<wide_batch_point>& points) {
  index_t bytes = 0;
  for (const wide_batch_point& p : points) {
    if (!(p.ratio < 0.97)) return bytes;
    bytes = p.n * 3 * index_t(sizeof(double));
  }
  // Won at every size, the L2-sized passes included: no limit (on the one CPU measured so, the
  // 5th-generation Xeon, full width stayed ahead or level up to 3 x 3*10^5 doubles).
  return points.empty() ? 0 : huge;
}

constinit tuning_storage process_tuning;

void construct_tuning() noexcept {
  static std::once_flag once;
  std::call_once(once, [] { new (&process_tuning.t) tuning(initial_tuning()); });
}

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
    const index_t v = now.*(fields[k].member), at_start = o.loaded.*(fields[k].member);
    const bool prefetch = fields[k].member == &tuning::reduce_prefetch;
    if (!prefetch && fields[k].member != &tuning::wide_bytes) {
      line(fields[k].key, v, at_start, defaults.*(fields[k].member), o.in_file[k]);
      continue;
    }
    // A per-CPU default: its value, which CPU and why; a first-use value, where it came from.
    const std::size_t key = key_of(fields[k].member);
    index_t value = 0;
    const std::string first = resolved(key, value);
    if (!first.empty() && v == value)
      s += "    " + std::string(fields[k].key) + " = " + std::to_string(v) + " (" + first + ")\n";
    else if (const std::string dir = first_use_cache_dir(); v < 0)
      s += "    " + std::string(fields[k].key) + " = " + std::to_string(v) +
           " (measure_on_first_use: " + first_use_keys[key].when +
           "; first-use cache: " + (dir.empty() ? std::string("none") : dir) + ")\n";
    else
      line(fields[k].key, v, at_start, defaults.*(fields[k].member), o.in_file[k]);
    const cpu_defaults& c = this_cpu_defaults();
    s += std::string("      its default on ") + (c.kind ? c.kind : c.cpu.c_str()) + ": " +
         (prefetch ? c.evidence : c.wide_evidence) + "\n";
    if (!prefetch && !XSIMD_WITH_AVX512F)
      s += "      (not used by this build: one batch width below AVX-512)\n";
  }
  line("use_syrk", now.use_syrk, o.loaded.use_syrk, defaults.use_syrk, o.in_file[nkeys - 1]);
  return s;
}
} // namespace detail

} // namespace lz
