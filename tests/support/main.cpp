// main() of every suite added by lz_add_test (tests/CMakeLists.txt). The suites do not define
// BOOST_TEST_MODULE: Boost.Test emits main() and the suite's init function in the translation
// unit that defines it, and a suite whose first lines come from the shared precompiled header
// (tests/support/pch.hpp) has included Boost.Test before it could define anything. The master
// test suite is named after the executable.
#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>

namespace {

bool init_suite() {
  auto& master = boost::unit_test::framework::master_test_suite();
  if (master.argc > 0) {
    const std::string_view path = master.argv[0];
    master.p_name.value = std::string(path.substr(path.find_last_of('/') + 1));
  }
  return true;
}

} // namespace

int main(int argc, char* argv[]) {
  return boost::unit_test::unit_test_main(&init_suite, argc, argv);
}
