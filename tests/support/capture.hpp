// What a piece of code writes to stderr (the LZ_LOG channels write there): redirected into a
// temporary file for the duration of the call, then read back.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace lz_test {

template <class F>
std::string capture_stderr(F&& f) {
  std::FILE* tmp = std::tmpfile();
  if (tmp == nullptr) throw std::runtime_error("capture_stderr: no temporary file");
  struct restore { // stderr back where it was, also when f throws
    int saved;
    ~restore() {
      std::fflush(stderr);
      dup2(saved, fileno(stderr));
      close(saved);
    }
  };
  std::fflush(stderr);
  try {
    const restore r{dup(fileno(stderr))};
    dup2(fileno(tmp), fileno(stderr));
    f();
  } catch (...) {
    std::fclose(tmp);
    throw;
  }
  std::string out;
  std::rewind(tmp);
  char buf[4096];
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, tmp)) > 0;) out.append(buf, got);
  std::fclose(tmp);
  return out;
}

} // namespace lz_test
