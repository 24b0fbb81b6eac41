// First-use measurements (lz/kernels/first_use.hpp): a per-CPU default lazuli's table does not
// know is measured once, kept per CPU kind in the user's cache directory, read back by later
// processes, re-measured when its file does not load, and used even where it cannot be kept.
// The end-to-end cases (a real reduction resolving reduce_prefetch, then a second process reading
// it) need a fresh process and LZ_TUNING_CACHE: disabled here, run by CTest
// (tests/CMakeLists.txt: first_use_env_*).
#include <boost/test/unit_test.hpp>

#include <lz/info.hpp>
#include <lz/kernels/first_use.hpp>
#include <lz/lz.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace utf = boost::unit_test;
using lz::index_t;
using lz::detail::first_use;
using lz::detail::first_use_measurement;

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A fresh directory per process and case (CTest runs processes side by side).
fs::path fresh(const char* name) {
  const fs::path p =
      fs::temp_directory_path() / ("lz_first_use_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  return p;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A measurement that counts its calls and returns `value`.
struct counter {
  std::atomic<int> calls{0};
  index_t value = 8 << 20;
};
first_use_measurement counted(void* ctx) {
  auto* c = static_cast<counter*>(ctx);
  ++c->calls;
  return {c->value, "the test's measurement"};
}

constexpr index_t huge = index_t(1) << 62;

BOOST_AUTO_TEST_CASE(the_cache_file_names_the_cpu_the_kernels_and_the_version) {
  const std::string f = lz::detail::first_use_cache_file("/some/dir", "reduce_prefetch");
  BOOST_TEST(f.rfind("/some/dir/reduce_prefetch-", 0) == 0, f);
  // "GenuineIntel family 6 model 106" -> "-GenuineIntel-6-106-"
  std::string cpu = lz::detail::this_cpu_defaults().cpu;
  if (cpu != "unknown") {
    const std::string vendor = cpu.substr(0, cpu.find(' '));
    std::istringstream in(cpu.substr(cpu.find(" family ")));
    std::string word;
    unsigned family = 0, model = 0;
    in >> word >> family >> word >> model;
    BOOST_TEST(
        has(f, "-" + vendor + "-" + std::to_string(family) + "-" + std::to_string(model) + "-"), f);
  }
  // the kernels' instruction set, as a plain file name ("fma3+avx2" -> "fma3_avx2")
  std::string arch = xsimd::default_arch::name();
  for (char& ch : arch)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_')
      ch = '_';
  BOOST_TEST(has(f, "-" + arch + "-"), f);
  BOOST_TEST(has(f, "-" + std::to_string(LZ_VERSION_MAJOR) + "." +
                        std::to_string(LZ_VERSION_MINOR) + "." + std::to_string(LZ_VERSION_PATCH) +
                        ".conf"),
             f);
  BOOST_TEST(f.find('/', std::string("/some/dir/").size()) == std::string::npos, f);
  BOOST_TEST(lz::detail::first_use_cache_file("", "reduce_prefetch").empty());
  // the revision of the code measured (reduce_prefetch: 2, the driver's prefetch spans)
  BOOST_TEST(lz::detail::first_use_revision("reduce_prefetch") == 2);
  BOOST_TEST(has(f, "-r2-"), f);
}

// Never silently stale across a change of the code measured: a value kept for the previous
// revision of reduce_prefetch's loop (0.2.0's first builds timed the slab's own prefetching loop)
// is in another file, which is not read: the first use measures the loop as it is.
BOOST_AUTO_TEST_CASE(a_value_kept_for_the_previous_revision_of_the_code_is_not_read) {
  const fs::path dir = fresh("revision");
  const std::string file = lz::detail::first_use_cache_file(dir.string(), "reduce_prefetch");
  const std::string now = "-r" + std::to_string(lz::detail::first_use_revision("reduce_prefetch"));
  const std::size_t at = file.rfind(now + "-");
  BOOST_TEST_REQUIRE(at != std::string::npos, file);
  fs::create_directories(dir);
  for (const std::string& old : {file.substr(0, at) + file.substr(at + now.size()), // (0.2.0's)
                                 file.substr(0, at) + "-r1" + file.substr(at + now.size())}) {
    std::ofstream(old) << "reduce_prefetch = 1234\n";
    BOOST_TEST(old != file);
  }
  counter c;
  const auto r = first_use(file, "reduce_prefetch", 0, huge, counted, &c);
  BOOST_TEST(c.calls == 1);
  BOOST_TEST(r.measured);
  BOOST_TEST(r.value == index_t(8) << 20);
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_first_use_is_measured_once_kept_and_read_back) {
  const fs::path dir = fresh("kept");
  const std::string file =
      lz::detail::first_use_cache_file((dir / "a" / "b").string(), "reduce_prefetch");
  counter c;
  const auto first = first_use(file, "reduce_prefetch", 0, huge, counted, &c);
  BOOST_TEST(c.calls == 1);
  BOOST_TEST(first.measured);
  BOOST_TEST(first.value == index_t(8) << 20);
  BOOST_TEST(has(first.origin, "measured on first use"), first.origin);
  BOOST_TEST(has(first.origin, "the test's measurement"), first.origin);
  BOOST_TEST(has(first.origin, "kept in " + file), first.origin);
  // The directories it made are the user's alone (XDG); the file is whole, no temporary left.
  struct stat st {};
  BOOST_TEST_REQUIRE(::stat((dir / "a").c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0700u);
  const std::string text = read(file);
  BOOST_TEST(has(text, "reduce_prefetch = 8388608\n"), text);
  BOOST_TEST(has(text, "# measured: "), text);
  BOOST_TEST(std::distance(fs::directory_iterator(dir / "a" / "b"), fs::directory_iterator()) == 1);
  // Read back: no second measurement; the origin names the file and when it was measured.
  c.value = 0;
  const auto again = first_use(file, "reduce_prefetch", 0, huge, counted, &c);
  BOOST_TEST(c.calls == 1);
  BOOST_TEST(!again.measured);
  BOOST_TEST(again.value == index_t(8) << 20);
  BOOST_TEST(has(again.origin, "read from " + file), again.origin);
  BOOST_TEST(has(again.origin, "the test's measurement"), again.origin);
  // The file is the one LZ_CONFIG would load too (save_tuning's format).
  BOOST_TEST(lz::load_tuning(file).reduce_prefetch.get() == index_t(8) << 20);
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_cache_file_that_does_not_load_is_measured_again_and_replaced) {
  const fs::path dir = fresh("hostile");
  fs::create_directories(dir);
  const std::string file = (dir / "reduce_prefetch-x.conf").string();
  struct hostile {
    const char* what;
    std::string text;
    const char* why;
  };
  const std::vector<hostile> cases = {
      {"garbage",
       "\x7f"
       "ELF\x01\x02 not a tuning file\n",
       "expected `key = value`"},
      {"empty", "", "no reduce_prefetch line"},
      {"another key", "reduce_prefetch = 0\ntile = 8\n", "holds other keys than reduce_prefetch"},
      {"negative", "reduce_prefetch = -1\n", "is not a measured value"},
      {"overflow", "reduce_prefetch = 99999999999999999999999\n", "outside its range"},
      {"truncated", "reduce_prefetch = \n", "not an integer"},
      {"NUL", std::string("reduce_prefetch = 0\0\n", 21), "NUL byte"},
      {"huge", std::string(70000, '#'), "larger than 64 KiB"},
  };
  for (const hostile& h : cases) {
    {
      std::ofstream out(file, std::ios::binary);
      out << h.text;
    }
    counter c;
    c.value = 0;
    const auto r = first_use(file, "reduce_prefetch", 0, huge, counted, &c);
    BOOST_TEST(c.calls == 1, h.what);
    BOOST_TEST(r.value == 0, h.what);
    BOOST_TEST(has(r.origin, "the cache file did not load"), h.what << ": " << r.origin);
    BOOST_TEST(has(r.origin, h.why), h.what << ": " << r.origin);
    BOOST_TEST(has(r.origin, "kept in " + file), h.what << ": " << r.origin);
    BOOST_TEST(lz::load_tuning(file).reduce_prefetch.get() == 0, h.what); // replaced, whole
  }
  // Not a regular file: a FIFO is never opened for blocking reads, a directory never followed.
  for (const char* kind : {"fifo", "directory", "dangling link"}) {
    fs::remove_all(file);
    const std::string k = kind;
    if (k == "fifo") BOOST_TEST_REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
    if (k == "directory") fs::create_directories(file);
    if (k == "dangling link") fs::create_symlink(dir / "nowhere", file);
    counter c;
    const auto r = first_use(file, "reduce_prefetch", 0, huge, counted, &c);
    BOOST_TEST(c.calls == 1, kind);
    BOOST_TEST(r.value == index_t(8) << 20, kind);
    if (k == "directory") { // cannot be replaced by a file: used, not kept, and says why
      BOOST_TEST(has(r.origin, "not kept: cannot write " + file), r.origin);
    } else {
      BOOST_TEST(has(r.origin, "kept in " + file), kind << ": " << r.origin);
      BOOST_TEST(fs::is_regular_file(fs::symlink_status(file)), kind);
    }
  }
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_result_that_cannot_be_kept_is_still_used) {
  const fs::path dir = fresh("unkept");
  fs::create_directories(dir);
  { std::ofstream(dir / "plain") << "a file, not a directory\n"; }
  counter c;
  const std::string file = (dir / "plain" / "sub" / "reduce_prefetch-x.conf").string();
  const auto r = first_use(file, "reduce_prefetch", 0, huge, counted, &c);
  BOOST_TEST(r.value == index_t(8) << 20);
  BOOST_TEST(has(r.origin, "not kept: cannot make " + (dir / "plain" / "sub").string()), r.origin);
  // No cache directory at all (LZ_TUNING_CACHE=off): measured every time, nothing written.
  const auto off = first_use("", "reduce_prefetch", 0, huge, counted, &c);
  const auto off2 = first_use("", "reduce_prefetch", 0, huge, counted, &c);
  BOOST_TEST(c.calls == 3);
  BOOST_TEST(off.measured);
  BOOST_TEST(off2.measured);
  BOOST_TEST(has(off.origin, "not kept (no cache directory"), off.origin);
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(a_measurement_that_throws_propagates_and_writes_nothing) {
  const fs::path dir = fresh("throws");
  const std::string file = (dir / "reduce_prefetch-x.conf").string();
  auto throwing = +[](void*) -> first_use_measurement { throw std::bad_alloc(); };
  BOOST_CHECK_THROW(first_use(file, "reduce_prefetch", 0, huge, throwing, nullptr), std::bad_alloc);
  BOOST_TEST(!fs::exists(file));
  // A measurement outside the key's range is lazuli's bug, never written.
  auto wild = +[](void*) -> first_use_measurement { return {-5, "wild"}; };
  BOOST_CHECK_THROW(first_use(file, "reduce_prefetch", 0, huge, wild, nullptr), std::logic_error);
  BOOST_TEST(!fs::exists(file));
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(threads_measuring_the_same_file_at_once_leave_it_whole) {
  const fs::path dir = fresh("threads");
  const std::string file = (dir / "reduce_prefetch-x.conf").string();
  counter c;
  std::vector<std::thread> threads;
  std::vector<index_t> got(8, -7);
  for (std::size_t t = 0; t < got.size(); ++t)
    threads.emplace_back(
        [&, t] { got[t] = first_use(file, "reduce_prefetch", 0, huge, counted, &c).value; });
  for (auto& t : threads) t.join();
  for (index_t v : got) BOOST_TEST(v == index_t(8) << 20);
  BOOST_TEST(c.calls >= 1);
  BOOST_TEST(lz::load_tuning(file).reduce_prefetch.get() == index_t(8) << 20);
  BOOST_TEST(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}

// Sets or unsets an environment variable for one scope.
struct scoped_env {
  std::string name;
  bool had;
  std::string old;
  scoped_env(const char* n, const char* v) : name(n) {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (had) old = o;
    if (v)
      ::setenv(n, v, 1);
    else
      ::unsetenv(n);
  }
  ~scoped_env() {
    if (had)
      ::setenv(name.c_str(), old.c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

BOOST_AUTO_TEST_CASE(the_cache_directory_is_lz_tuning_cache_then_xdg_then_home) {
  using lz::detail::first_use_cache_dir;
  scoped_env home("HOME", "/home/someone");
  {
    scoped_env a("LZ_TUNING_CACHE", "/a/b"), x("XDG_CACHE_HOME", "/x");
    BOOST_TEST(first_use_cache_dir() == "/a/b");
  }
  {
    scoped_env a("LZ_TUNING_CACHE", "off"), x("XDG_CACHE_HOME", "/x");
    BOOST_TEST(first_use_cache_dir() == "");
  }
  {
    scoped_env a("LZ_TUNING_CACHE", nullptr), x("XDG_CACHE_HOME", "/x");
    BOOST_TEST(first_use_cache_dir() == "/x/lazuli");
  }
  {
    scoped_env a("LZ_TUNING_CACHE", ""), x("XDG_CACHE_HOME", "relative/ignored");
    BOOST_TEST(first_use_cache_dir() == "/home/someone/.cache/lazuli");
  }
  {
    scoped_env a("LZ_TUNING_CACHE", nullptr), x("XDG_CACHE_HOME", nullptr), h("HOME", nullptr);
    BOOST_TEST(first_use_cache_dir() == "");
  }
}

// End to end, in a fresh process with LZ_TUNING_CACHE set (CTest first_use_env_measure, then
// first_use_env_read on the same directory): on a CPU not in lazuli's table reduce_prefetch is
// measure_on_first_use; this sets it so on any CPU. Reductions under 8 MiB leave it unresolved;
// the first larger one — here four at once, from four threads — resolves it once: measured
// (first process) or read from the file (second), stored into lz::thresholds(), and named by
// lz::info. Every sum is exact either way.
BOOST_AUTO_TEST_CASE(reductions_resolve_a_first_use_prefetch_once, *utf::disabled()) {
  const char* mode = std::getenv("LZ_TEST_FIRST_USE");
  const char* dir = std::getenv("LZ_TUNING_CACHE");
  BOOST_TEST_REQUIRE((mode && dir));
  const std::string m = mode;
  if (m == "measure") fs::remove_all(dir);
  const std::string file = lz::detail::first_use_cache_file(dir, "reduce_prefetch");
  lz::thresholds().reduce_prefetch = lz::measure_on_first_use;
  std::string s = lz::info();
  BOOST_TEST(has(s, "reduce_prefetch = -1 (measure_on_first_use: at the first reduction over "
                    "8 MiB; first-use cache: " +
                        std::string(dir) + ")"),
             s);

  const lz::vector<double> small = lz::full<double>({index_t(1) << 16}, 0.5); // 512 KiB
  BOOST_TEST(double(lz::sum(small)) == 32768.0);
  BOOST_TEST(lz::thresholds().reduce_prefetch.get() == lz::measure_on_first_use);
  BOOST_TEST(lz::detail::first_use_reduce_prefetch_origin() == "");

  const index_t n = index_t(1) << 21; // 2 x 16 MiB
  const lz::vector<double> x = lz::full<double>({n}, 1.5), y = lz::full<double>({n}, 0.5);
  std::vector<double> sums(4, 0.0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < sums.size(); ++t)
    threads.emplace_back([&, t] { sums[t] = double(lz::sum(lz::square(x - y))); });
  for (auto& t : threads) t.join();
  for (double v : sums) BOOST_TEST(v == double(n));

  const index_t now = lz::thresholds().reduce_prefetch;
  BOOST_TEST((now == 0 || now == index_t(8) << 20), now);
  const std::string origin = lz::detail::first_use_reduce_prefetch_origin();
  BOOST_TEST(has(origin, m == "measure" ? "measured on first use" : "read from " + file), origin);
  BOOST_TEST(has(origin, "W3 (sum((x - y)^2), 2 x 32 MiB, 1 thread)"), origin);
  if (m == "measure") BOOST_TEST(has(origin, "kept in " + file), origin);
  BOOST_TEST(lz::load_tuning(file).reduce_prefetch.get() == now);
  s = lz::info();
  BOOST_TEST(has(s, "reduce_prefetch = " + std::to_string(now) + " (" + origin + ")"), s);
  // Resolved once per process: set back to first-use, it takes the same value without measuring.
  lz::thresholds().reduce_prefetch = lz::measure_on_first_use;
  BOOST_TEST(double(lz::sum(lz::square(x - y))) == double(n));
  BOOST_TEST(lz::thresholds().reduce_prefetch.get() == now);
  BOOST_TEST(lz::detail::first_use_reduce_prefetch_origin() == origin);
  // A value set in code is never overwritten by a first use.
  lz::thresholds().reduce_prefetch = 12345;
  BOOST_TEST(lz::detail::resolve_first_use_reduce_prefetch() == now);
  BOOST_TEST(lz::thresholds().reduce_prefetch.get() == 12345);
  if (m == "read") fs::remove_all(dir);
}

// The same for tuning::wide_bytes (CTest first_use_wide_measure, then first_use_wide_read, on a
// directory of their own): passes larger than the measurement's largest (192 KiB) and trees with
// no full-width kernel leave it unresolved; the first small cheap pass — four at once, from four
// threads — resolves it once (AVX-512 builds; a build of one width never does).
BOOST_AUTO_TEST_CASE(cheap_passes_resolve_a_first_use_width_once, *utf::disabled()) {
  const char* mode = std::getenv("LZ_TEST_FIRST_USE");
  const char* dir = std::getenv("LZ_TUNING_CACHE");
  BOOST_TEST_REQUIRE((mode && dir));
  const std::string m = mode;
  if (m == "measure") fs::remove_all(dir);
  const std::string file = lz::detail::first_use_cache_file(dir, "wide_bytes");
  lz::set_num_threads(1);
  lz::thresholds().wide_bytes = 0; // the operands' own construction resolves nothing
  const index_t big = 8193;        // 3 x 8193 doubles: past the largest pass measured
  const lz::vector<double> x = lz::linspace(0.0, 1.0, big), y = lz::linspace(2.0, 3.0, big);
  const lz::vector<double> xs = x(lz::range(0, 1000)), ys = y(lz::range(0, 1000));
  lz::vector<double> z(big), zs(1000);
  std::vector<lz::vector<double>> out(4, lz::vector<double>(1000));
  lz::thresholds().wide_bytes = lz::measure_on_first_use;
  std::string s = lz::info();
  BOOST_TEST(has(s, "wide_bytes = -1 (measure_on_first_use: at the first cheap elementwise pass "
                    "of at most 192 KiB; first-use cache: " +
                        std::string(dir) + ")"),
             s);

  z = 2.0 * x + 0.5 * y;
  BOOST_TEST(z(big - 1) == 3.5);
  zs = lz::exp(xs) * ys; // expensive: one width
  BOOST_TEST(lz::thresholds().wide_bytes.get() == lz::measure_on_first_use);
  BOOST_TEST(lz::detail::first_use_wide_bytes_origin() == "");

  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < out.size(); ++t)
    threads.emplace_back([&, t] { out[t] = 2.0 * xs + 0.5 * ys; });
  for (auto& t : threads) t.join();
  for (const auto& o : out)
    for (index_t i = 0; i < 1000; ++i) BOOST_TEST(o(i) == 2.0 * xs(i) + 0.5 * ys(i));

  const index_t now = lz::thresholds().wide_bytes;
  if (std::is_same_v<lz::kernels::cpu::narrow_arch, xsimd::default_arch>) {
    BOOST_TEST(now == lz::measure_on_first_use); // one width: nothing to measure
    BOOST_TEST(lz::detail::first_use_wide_bytes_origin() == "");
  } else {
    BOOST_TEST((now == 0 || now == 12288 || now == 24576 || now == 49152 || now == 98304 ||
                now == 196608 || now == index_t(1) << 62),
               now);
    const std::string origin = lz::detail::first_use_wide_bytes_origin();
    BOOST_TEST(has(origin, m == "measure" ? "measured on first use" : "read from " + file), origin);
    BOOST_TEST(has(origin, "W1 (z = 2.5*x + 1.5*y, 1 thread)"), origin);
    if (m == "measure") BOOST_TEST(has(origin, "kept in " + file), origin);
    BOOST_TEST(lz::load_tuning(file).wide_bytes.get() == now);
    s = lz::info();
    BOOST_TEST(has(s, "wide_bytes = " + std::to_string(now) + " (" + origin + ")"), s);
    // Resolved once per process; a value set in code is never overwritten.
    lz::thresholds().wide_bytes = lz::measure_on_first_use;
    zs = 2.0 * xs + 0.5 * ys;
    BOOST_TEST(lz::thresholds().wide_bytes.get() == now);
    lz::thresholds().wide_bytes = 12345;
    BOOST_TEST(lz::detail::resolve_first_use_wide_bytes() == now);
    BOOST_TEST(lz::thresholds().wide_bytes.get() == 12345);
  }
  if (m == "read") fs::remove_all(dir);
}
} // namespace
