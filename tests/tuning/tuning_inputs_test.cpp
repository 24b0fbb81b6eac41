// Every tuning input is validated, named when rejected, and never blocks: LZ_CONFIG files
// (malformed, out of range, FIFOs, devices, huge files), values set in code (reduce_block at
// INT64_MAX), LZ_NUM_THREADS and lz::set_num_threads; lz::info() says where each value came
// from. The cases that need the environment at start-up are disabled here and run by CTest in
// their own processes with it set (tests/CMakeLists.txt: tuning_input_env_*).
#include <boost/test/unit_test.hpp>

#include <support/capture.hpp>

#include <lz/calibrate.hpp>
#include <lz/info.hpp>
#include <lz/lz.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace utf = boost::unit_test;

// Per process: CTest runs this suite's processes side by side.
fs::path temp(const char* name) {
  return fs::temp_directory_path() / (std::to_string(::getpid()) + "_" + name);
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// The message load_tuning throws for the file holding `text`.
std::string rejection(const std::string& text) {
  const fs::path p = temp("lz_tuning_inputs.cfg");
  write(p, text);
  try {
    (void)lz::load_tuning(p.string());
  } catch (const std::runtime_error& e) {
    fs::remove(p);
    return e.what();
  }
  fs::remove(p);
  return "(accepted)";
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

BOOST_AUTO_TEST_CASE(out_of_range_values_name_the_line_key_value_and_range) {
  const std::string big = rejection("tile = 16\nreduce_block = 9223372036854775807\n");
  BOOST_TEST(has(big, "lz_tuning_inputs.cfg:2"), big);
  BOOST_TEST(has(big, "reduce_block = 9223372036854775807"), big);
  BOOST_TEST(has(big, "[1, 1073741824]"), big);
  const std::string overflow = rejection("parallel_work = 99999999999999999999\n");
  BOOST_TEST(has(overflow, "parallel_work = 99999999999999999999 is outside"), overflow);
  const std::string negative = rejection("tile = -1\n");
  BOOST_TEST(has(negative, "tile = -1 is outside its range [0, 65536]"), negative);
  const std::string syrk = rejection("use_syrk = 2\n");
  BOOST_TEST(has(syrk, "use_syrk = 2 is outside its range [0, 1]"), syrk);
  const std::string wide = rejection("wide_bytes = -2\n"); // (-1: measure on first use)
  BOOST_TEST(has(wide, "wide_bytes = -2 is outside its range [-1, 4611686018427387904]"), wide);
  const std::string text = rejection("tile = sixteen\n");
  BOOST_TEST(has(text, "not an integer: tile = sixteen"), text);
  BOOST_TEST(rejection("# comment only\n\n  tile = 32  # trailing\n") == "(accepted)");
}

BOOST_AUTO_TEST_CASE(only_small_regular_files_are_read_and_nothing_blocks) {
  const fs::path fifo = temp("lz_tuning_inputs.fifo");
  fs::remove(fifo);
  BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  BOOST_CHECK_EXCEPTION(
      (void)lz::load_tuning(fifo.string()), std::runtime_error,
      [](const std::runtime_error& e) { return has(e.what(), "not a regular file"); });
  BOOST_TEST((std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5))); // no wait
  fs::remove(fifo);
  BOOST_CHECK_EXCEPTION(
      (void)lz::load_tuning("/dev/zero"), std::runtime_error,
      [](const std::runtime_error& e) { return has(e.what(), "not a regular file"); });
  BOOST_CHECK_EXCEPTION(
      (void)lz::load_tuning(fs::temp_directory_path().string()), std::runtime_error,
      [](const std::runtime_error& e) { return has(e.what(), "not a regular file"); });
  const std::string huge = rejection(std::string(100000, '#'));
  BOOST_TEST(has(huge, "larger than 64 KiB"), huge);
  const std::string nul = rejection(std::string("tile = 8\n\0\n", 11));
  BOOST_TEST(has(nul, "NUL byte"), nul);
}

// D6: a reduce_block set in code near INT64_MAX used to overflow every block count (every sum 0).
BOOST_AUTO_TEST_CASE(extreme_reduce_blocks_set_in_code_still_sum_correctly) {
  const lz::tuning saved = lz::thresholds();
  const lz::vector<double> x = lz::ones<double>({10000});
  for (lz::index_t b :
       {std::numeric_limits<lz::index_t>::max(), std::numeric_limits<lz::index_t>::max() - 1,
        lz::index_t(1), lz::index_t(0), lz::index_t(-5)}) {
    lz::thresholds().reduce_block = b;
    BOOST_TEST(double(lz::sum(x)) == 10000.0);
    BOOST_TEST(double(lz::sum(lz::reshape(x, lz::shape_t<2>{100, 100}))) == 10000.0);
  }
  lz::thresholds() = saved;
}

BOOST_AUTO_TEST_CASE(info_names_the_source_of_every_threshold) {
  const lz::tuning saved = lz::thresholds();
  lz::thresholds().tile = 48;
  const std::string s = lz::info();
  lz::thresholds() = saved;
  BOOST_TEST(has(s, "tile = 48 (set in code or by lz::calibrate; default 64)"), s);
  BOOST_TEST(has(s, "parallel_work = 262144 (default)"), s);
  BOOST_TEST(has(s, "threads: "), s);
}

BOOST_AUTO_TEST_CASE(per_cpu_defaults_come_from_the_measured_table_or_are_measured_on_first_use) {
  using lz::detail::cpu_defaults_for;
  const auto ice = cpu_defaults_for("GenuineIntel", 6, 106);
  BOOST_TEST(ice.kind != nullptr);
  BOOST_TEST(ice.reduce_prefetch == lz::index_t(8) << 20);
  BOOST_TEST(has(ice.evidence, "w3_paired"));
  BOOST_TEST(ice.cpu == "GenuineIntel family 6 model 106");
  for (unsigned model : {207u, 167u}) { // measured: prefetches lose there
    const auto x = cpu_defaults_for("GenuineIntel", 6, model);
    BOOST_TEST(x.kind != nullptr);
    BOOST_TEST(x.reduce_prefetch == 0);
  }
  const auto zen3 = cpu_defaults_for("AuthenticAMD", 25, 1);
  BOOST_TEST(zen3.kind != nullptr);
  BOOST_TEST(zen3.reduce_prefetch == 0);
  // Not measured: measured on that machine at first use (tests/tuning/first_use_test.cpp), and
  // it says so.
  const auto skylake = cpu_defaults_for("GenuineIntel", 6, 85);
  BOOST_TEST(skylake.kind == nullptr);
  BOOST_TEST(skylake.reduce_prefetch == lz::measure_on_first_use);
  BOOST_TEST(has(skylake.evidence, "not in lazuli's table"));
  BOOST_TEST(has(skylake.evidence, "first reduction over 8 MiB"));
  const auto zen2 = cpu_defaults_for("AuthenticAMD", 23, 49);
  BOOST_TEST(zen2.kind == nullptr);
  BOOST_TEST(zen2.reduce_prefetch == lz::measure_on_first_use);
  BOOST_TEST(cpu_defaults_for("", 0, 0).cpu == "unknown");
  // The batch width of cheap trees (tuning::wide_bytes): 512 bits for passes in the L1 cache
  // where measured faster (perf/w1_paired), 256 bits where they lost and where not measured.
  for (unsigned model : {207u, 167u}) {
    const auto x = cpu_defaults_for("GenuineIntel", 6, model);
    BOOST_TEST(x.wide_bytes == (model == 207 ? lz::index_t(1) << 62 : lz::index_t(48) << 10));
    BOOST_TEST(has(x.wide_evidence, "w1_paired"));
  }
  BOOST_TEST(ice.wide_bytes == 0);
  BOOST_TEST(has(ice.wide_evidence, "W1"));
  BOOST_TEST(zen3.wide_bytes == 0);
  BOOST_TEST(skylake.wide_bytes == lz::measure_on_first_use);
  BOOST_TEST(has(skylake.wide_evidence, "not in lazuli's table"));
  BOOST_TEST(has(skylake.wide_evidence, "first cheap elementwise pass"));
  BOOST_TEST(zen2.wide_bytes == lz::measure_on_first_use);
  // This machine: the default in force is its row's, and lz::info names the row and the reason.
  const auto& here = lz::detail::this_cpu_defaults();
  BOOST_TEST(lz::tuning{}.reduce_prefetch.get() == here.reduce_prefetch);
  const std::string s = lz::info();
  BOOST_TEST(has(s, "cpu: " + here.cpu), s);
  BOOST_TEST(has(s, std::string("its default on ") + (here.kind ? here.kind : here.cpu.c_str()) +
                        ": " + here.evidence),
             s);
  BOOST_TEST(lz::tuning{}.wide_bytes.get() == here.wide_bytes);
  BOOST_TEST(has(s, "wide_bytes = "), s);
  BOOST_TEST(has(s, std::string("its default on ") + (here.kind ? here.kind : here.cpu.c_str()) +
                        ": " + here.wide_evidence),
             s);
}

BOOST_AUTO_TEST_CASE(set_num_threads_rejects_absurd_counts) {
  const int before = lz::num_threads();
  BOOST_CHECK_EXCEPTION(lz::set_num_threads(std::numeric_limits<int>::max()), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          return has(e.what(), "2147483647 threads is outside [1, 4096]");
                        });
  BOOST_TEST(lz::num_threads() == before);
}

// D13: switching trace channels while other threads compute is not a data race (the TSan job
// runs this suite). The device channel is switched: host loops test the mask but print nothing.
BOOST_AUTO_TEST_CASE(logging_can_be_switched_while_other_threads_compute) {
  const lz::vector<double> x = lz::ones<double>({1 << 18});
  std::atomic<bool> stop{false};
  std::atomic<int> done{0};
  std::thread worker([&] {
    lz::vector<double> y = lz::zeros<double>({1 << 18});
    while (!stop.load()) {
      lz::assign(lz::par, y, x + 1.0);
      ++done;
    }
  });
  for (int i = 0; i < 2000 || done.load() < 5; ++i) {
    lz::logging::enable(lz::logging::device);
    lz::logging::disable(lz::logging::device);
  }
  stop = true;
  worker.join();
  BOOST_TEST(!lz::logging::on(lz::logging::device));
}

// Trace lines can go to the application's own logger; a sink that throws loses its line, never
// the computation; stderr again once the sink is cleared.
BOOST_AUTO_TEST_CASE(a_logging_sink_receives_each_line_with_its_channel) {
  std::vector<std::pair<lz::logging::channel, std::string>> lines;
  lz::logging::set_sink(
      [&](lz::logging::channel c, const std::string& m) { lines.emplace_back(c, m); });
  lz::logging::enable(lz::logging::blas);
  const lz::matrix<double> A = lz::ones<double>({8, 8}), B = lz::ones<double>({8, 8});
  lz::matrix<double> C(8, 8);
  const std::string err = lz_test::capture_stderr([&] { C = A * B; });
  BOOST_TEST(err.empty(), err); // nothing on stderr while a sink is set
  BOOST_TEST_REQUIRE(!lines.empty());
  BOOST_TEST(lines[0].first == lz::logging::blas);
  BOOST_TEST(has(lines[0].second, "gemm"), lines[0].second);
  BOOST_TEST(std::string(lz::logging::name(lines[0].first)) == "blas");

  lz::logging::set_sink(
      [](lz::logging::channel, const std::string&) { throw std::runtime_error("logger down"); });
  const std::string lost = lz_test::capture_stderr([&] { C = 2.0 * A * B; });
  BOOST_TEST(C(7, 7) == 16.0); // the product ran
  BOOST_TEST(has(lost, "the logging sink threw (logger down); line lost: [lz:blas]"), lost);

  lz::logging::set_sink({});
  const std::string back = lz_test::capture_stderr([&] { C = A * B; });
  BOOST_TEST(has(back, "[lz:blas]"), back);
  lz::logging::disable(lz::logging::blas);
}

// A sink is made from any callable (a lambda, a function, a std::function), copied and moved
// like a value; null function pointers and empty std::functions make an empty sink (stderr).
BOOST_AUTO_TEST_CASE(a_logging_sink_takes_any_callable_and_empty_ones_mean_stderr) {
  using lz::logging::channel;
  using lz::logging::sink;
  std::string got;
  const sink a = [&](channel, const std::string& m) { got += m; };
  sink b = a; // a copy calls the same callable, which is copied
  a(lz::logging::blas, "1");
  b(lz::logging::blas, "2");
  const sink c = std::move(b);
  BOOST_TEST(!b);
  c(lz::logging::blas, "3");
  BOOST_TEST(got == "123");
  static std::string seen;
  void (*fn)(channel, const std::string&) = [](channel, const std::string& m) { seen = m; };
  const sink f = fn;
  f(lz::logging::loop, "fp");
  BOOST_TEST(seen == "fp");
  void (*none)(channel, const std::string&) = nullptr;
  BOOST_TEST(!sink(none));
  BOOST_TEST(!sink(std::function<void(channel, const std::string&)>()));
  BOOST_TEST(!sink(nullptr));
  BOOST_TEST(!sink{});
  const std::function<void(channel, const std::string&)> sf = [&](channel, const std::string& m) {
    got += m;
  };
  BOOST_TEST(bool(sink(sf)));
  sink{sf}(lz::logging::loop, "4");
  BOOST_TEST(got == "1234");
}

BOOST_AUTO_TEST_CASE(unknown_logging_channels_are_named_not_ignored) {
  const unsigned before = lz::logging::detail::g_mask.load();
  BOOST_CHECK_EXCEPTION(lz::logging::enable("blas,fusoin"), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          return has(e.what(), "unknown channel(s) 'fusoin'") &&
                                 has(e.what(), "channels: fusion, alloc");
                        });
  BOOST_TEST(lz::logging::detail::g_mask.load() == before); // nothing enabled
  std::string unknown;
  BOOST_TEST(lz::logging::parse("loop,,blas,x", &unknown) ==
             (lz::logging::loop | lz::logging::blas));
  BOOST_TEST(unknown == "x");
}

// LZ_LOG with a name that is no channel: a stderr line at start-up (checked by CTest's
// PASS_REGULAR_EXPRESSION, tests/CMakeLists.txt), and the other names are used.
BOOST_AUTO_TEST_CASE(lz_log_with_an_unknown_channel_uses_the_others, *utf::disabled()) {
  BOOST_TEST(lz::logging::on(lz::logging::blas));
  BOOST_TEST(!lz::logging::on(lz::logging::fusion));
  lz::logging::disable();
}

// D12: lz::calibrate sets thresholds while it measures and when it applies them; threads that
// compute meanwhile read them (the TSan job runs this suite: each threshold is a setting).
BOOST_AUTO_TEST_CASE(calibrate_while_other_threads_compute_is_not_a_race) {
  const lz::tuning saved = lz::thresholds();
  const lz::vector<double> x = lz::ones<double>({1 << 16});
  std::atomic<bool> stop{false};
  std::atomic<int> done{0};
  double total = 0;
  std::thread worker([&] {
    lz::vector<double> y = lz::zeros<double>({1 << 16});
    while (!stop.load() || done.load() < 5) {
      lz::assign(lz::automatic, y, x * 2.0);
      total += double(lz::sum(y));
      ++done;
    }
  });
  lz::calibrate_options o;
  o.seconds_per_point = 1e-5;
  const lz::calibration c = lz::calibrate(o);
  stop = true;
  worker.join();
  BOOST_TEST(total == 2.0 * (1 << 16) * done.load());
  BOOST_TEST(lz::to_string(lz::thresholds()) == lz::to_string(c.measured));
  lz::thresholds() = saved;
}

// ---- run by CTest with the environment set (disabled otherwise) --------------------------------

// LZ_CONFIG names a malformed file (LZ_TEST_CONFIG=malformed), a FIFO (fifo) or /dev/zero
// (device), all made by tests/CMakeLists.txt: each is rejected at start-up, before main, without
// blocking (a FIFO with no writer would: CTest's timeout), with one stderr line (CTest matches it:
// PASS_REGULAR_EXPRESSION), the defaults stay in force, and lz::info() says so.
BOOST_AUTO_TEST_CASE(lz_config_that_does_not_load_is_rejected_loudly, *utf::disabled()) {
  const char* kind = std::getenv("LZ_TEST_CONFIG");
  const char* path = std::getenv("LZ_CONFIG");
  BOOST_TEST_REQUIRE((kind && path));
  const std::string why = std::string(kind) == "malformed"
                              ? "reduce_block = 9223372036854775807 is outside its range"
                              : "not a regular file";
  BOOST_TEST(lz::to_string(lz::thresholds()) == lz::to_string(lz::tuning{}));
  const std::string info = lz::info();
  BOOST_TEST(has(info, std::string("LZ_CONFIG=") + path + " REJECTED (defaults in force)"), info);
  BOOST_TEST(has(info, why), info);
}

// LZ_NUM_THREADS is not an integer in [1, 4096]: the hardware's count, a stderr line, and
// lz::info() names the rejected value.
BOOST_AUTO_TEST_CASE(lz_num_threads_out_of_range_is_rejected_loudly, *utf::disabled()) {
  const char* env = std::getenv("LZ_NUM_THREADS");
  BOOST_TEST_REQUIRE(env);
  int n = 0;
  const std::string err = lz_test::capture_stderr([&] { n = lz::num_threads(); });
  BOOST_TEST(has(err, std::string("lazuli: LZ_NUM_THREADS=") + env + " rejected"), err);
  BOOST_TEST(n >= 1);
  BOOST_TEST(n <= 4096);
  const std::string info = lz::info();
  BOOST_TEST(has(info, std::string("LZ_NUM_THREADS=") + env + " rejected"), info);
  const lz::vector<double> x = lz::ones<double>({1 << 20});
  lz::vector<double> y = lz::zeros<double>({1 << 20});
  lz::assign(lz::par, y, x + 1.0); // threads still work
  BOOST_TEST(double(lz::sum(y)) == 2.0 * (1 << 20));
}

} // namespace
