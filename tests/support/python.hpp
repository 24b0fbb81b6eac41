// NumPy at test time: interop tests run /usr/bin/python3 (the system Python, which has NumPy;
// the `python3` on PATH may not) on a script they write, and are skipped with exit code 77
// (CTest SKIP_RETURN_CODE) where NumPy is missing. Also a scratch directory per test process.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace lz_test {

inline const char* python = "/usr/bin/python3";

/// A fresh directory for this test process, removed at exit.
inline const std::filesystem::path& scratch() {
  struct dir {
    std::filesystem::path p =
        std::filesystem::temp_directory_path() / ("lz_test_" + std::to_string(::getpid()));
    dir() { std::filesystem::create_directories(p); }
    ~dir() { std::filesystem::remove_all(p); }
  };
  static dir d;
  return d.p;
}

/// Runs `script` with /usr/bin/python3 and the given arguments; returns its exit status.
inline int run_python(const std::string& script, const std::vector<std::string>& args = {}) {
  const auto file = scratch() / "script.py";
  std::ofstream(file) << script;
  std::string cmd = std::string(python) + " '" + file.string() + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Global fixture: exits with 77 (skipped) when /usr/bin/python3 cannot import NumPy.
struct require_numpy {
  require_numpy() {
    const std::string cmd = std::string(python) + " -c 'import numpy' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      std::puts(
          "skipped: /usr/bin/python3 with NumPy is not available (apt install python3-numpy)");
      std::exit(77);
    }
  }
};

} // namespace lz_test
