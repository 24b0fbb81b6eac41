// The tuning workflow: lz::calibrate measures and applies thresholds, save/load round-trips
// them, LZ_CONFIG loads them at start-up, lz::info shows thresholds in force and defaults.
#include <boost/test/unit_test.hpp>

#include <lz/lz.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>

BOOST_AUTO_TEST_CASE(calibrate_measures_reports_and_applies_thresholds) {
  const lz::tuning before = lz::thresholds();
  lz::calibrate_options o;
  o.seconds_per_point = 0.0005; // quick: the decisions, not their quality, are under test
  const lz::calibration c = lz::calibrate(o);
  BOOST_TEST(lz::to_string(c.defaults) == lz::to_string(before));
  BOOST_TEST(lz::to_string(lz::thresholds()) == lz::to_string(c.measured));
  BOOST_TEST(c.report.find("products with awkward strides") != std::string::npos, c.report);
  BOOST_TEST(c.report.find("axpy") != std::string::npos, c.report);
  BOOST_TEST(c.report.find("software prefetch") != std::string::npos, c.report);
  BOOST_TEST((c.measured.reduce_prefetch == 0 ||
              c.measured.reduce_prefetch ==
                  (before.reduce_prefetch > 0 ? before.reduce_prefetch.get() : 8 << 20)));
  BOOST_TEST(c.measured.gemm_copy_flops > 0);
  BOOST_TEST(c.measured.parallel_work > 0);
  // Streaming stores: the crossover is a destination size of the sweep (1..32 MiB, powers of
  // two), or the threshold is left as it was when streaming never won.
  BOOST_TEST(c.report.find("streaming stores") != std::string::npos, c.report);
  const lz::index_t sb = c.measured.stream_bytes;
  BOOST_TEST((sb == before.stream_bytes.get() ||
              (sb >= (1 << 20) && sb <= (32 << 20) && (sb & (sb - 1)) == 0)),
             sb << "\n"
                << c.report);
  // The batch width of cheap trees: a pass size of the sweep (3 operands x 512..8192 doubles)
  // or 0 where two widths exist; left as it was where the target has one.
  BOOST_TEST(c.report.find("batch width of cheap trees") != std::string::npos, c.report);
  const lz::index_t wb = c.measured.wide_bytes;
  if (std::is_same_v<lz::kernels::cpu::narrow_arch, xsimd::default_arch>)
    BOOST_TEST(wb == before.wide_bytes.get());
  else
    BOOST_TEST((wb == 0 || wb == 12288 || wb == 24576 || wb == 49152 || wb == 98304 ||
                wb == 196608 || wb == lz::index_t(1) << 62),
               wb << "\n"
                  << c.report);
  lz::thresholds() = before;
}

// A budget below any call's cost (a debug or sanitizer build at large sizes): each sweep stops
// after its first size and says so; the calibration still completes, thresholds left alone.
BOOST_AUTO_TEST_CASE(calibrate_stops_a_sweep_once_one_call_costs_ten_budgets) {
  const lz::tuning before = lz::thresholds();
  lz::calibrate_options o;
  o.seconds_per_point = 1e-9;
  o.apply = false;
  const lz::calibration c = lz::calibrate(o);
  BOOST_TEST(c.report.find("awkward strides") != std::string::npos, c.report);
  BOOST_TEST(c.report.find("sweep stopped after n=8:") != std::string::npos, c.report);
  BOOST_TEST(c.report.find("sweep stopped after n=1024:") != std::string::npos, c.report);
  BOOST_TEST(c.report.find("sweep stopped after n=131072:") != std::string::npos, c.report);
  if (lz::num_threads() > 1)
    BOOST_TEST(c.report.find("sweep stopped after n=512:") != std::string::npos, c.report);
  BOOST_TEST(c.measured.gemm_copy_flops > 0);
  BOOST_TEST(lz::to_string(lz::thresholds()) == lz::to_string(before));
}

BOOST_AUTO_TEST_CASE(tuning_files_round_trip_and_reject_garbage) {
  lz::tuning t;
  t.parallel_work = 12345;
  t.tile = 64;
  t.use_syrk = false;
  t.stream_bytes = 1 << 20;
  t.reduce_prefetch = 12345678;
  t.wide_bytes = 32768;
  const std::string path = "calibrate_test_tuning.cfg";
  lz::save_tuning(path, t);
  BOOST_TEST(lz::to_string(lz::load_tuning(path)) == lz::to_string(t));
  {
    std::ofstream bad(path);
    bad << "parallel_work = lots\n";
  }
  BOOST_CHECK_THROW(lz::load_tuning(path), std::runtime_error);
  {
    std::ofstream bad(path);
    bad << "no_such_threshold = 3\n";
  }
  BOOST_CHECK_THROW(lz::load_tuning(path), std::runtime_error);
  BOOST_CHECK_THROW(lz::load_tuning("/nonexistent/dir/x.cfg"), std::runtime_error);
  std::remove(path.c_str());
}

BOOST_AUTO_TEST_CASE(info_shows_thresholds_in_force_and_defaults) {
  const std::string s = lz::info();
  BOOST_TEST(s.find("thresholds in force") != std::string::npos, s);
  BOOST_TEST(s.find("defaults") != std::string::npos, s);
  BOOST_TEST(s.find("OPENBLAS_CORETYPE") != std::string::npos, s);
}

// Read by static objects of this file, before main and before lazuli's own static objects run
// (this file is linked first): the thresholds are made by then (lz/policy.hpp's tuning_init),
// from LZ_CONFIG when it is set.
const lz::index_t parallel_work_at_static_init = lz::thresholds().parallel_work;
const lz::index_t tile_at_static_init = lz::thresholds().tile;

BOOST_AUTO_TEST_CASE(thresholds_are_made_before_static_objects_read_them) {
  if (std::getenv("LZ_CONFIG")) return; // lz_config_is_loaded_at_start checks the file's values
  const lz::tuning defaults;
  BOOST_TEST(parallel_work_at_static_init == defaults.parallel_work.get());
  BOOST_TEST(tile_at_static_init == defaults.tile.get());
}

BOOST_AUTO_TEST_CASE(lz_config_is_loaded_at_start) {
  const char* want = std::getenv("LZ_EXPECT_PARALLEL_WORK");
  if (!want) return; // only meaningful when run with LZ_CONFIG (CTest: lz_config_env_test)
  BOOST_TEST(lz::thresholds().parallel_work == std::atoll(want));
  BOOST_TEST(lz::thresholds().tile == 16);
  BOOST_TEST(parallel_work_at_static_init == std::atoll(want)); // before main too
  BOOST_TEST(tile_at_static_init == 16);
}
