// Trace channels behind lz::log (see include/lz/log.hpp).
#include <lz/log.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace lz::logging {
namespace detail {
std::atomic<unsigned> g_mask{[] {
  const char* env = std::getenv("LZ_LOG");
  return env ? parse(env) : 0u;
}()};
} // namespace detail

namespace {
struct name_bit {
  const char* name;
  unsigned bit;
};
constexpr name_bit names[] = {{"fusion", fusion}, {"alloc", alloc}, {"copy", copy},
                              {"blas", blas},     {"loop", loop},   {"device", device},
                              {"all", all}};
const char* name_of(channel c) {
  for (const auto& n : names)
    if (n.bit == c) return n.name;
  return "log";
}
std::mutex g_write;
} // namespace

unsigned parse(const std::string& list) noexcept {
  unsigned m = 0;
  std::size_t b = 0;
  while (b <= list.size()) {
    std::size_t e = list.find_first_of(", ", b);
    if (e == std::string::npos) e = list.size();
    const std::string word = list.substr(b, e - b);
    for (const auto& n : names)
      if (word == n.name) m |= n.bit;
    b = e + 1;
  }
  return m;
}

void enable(unsigned mask) noexcept { detail::g_mask.fetch_or(mask, std::memory_order_relaxed); }
void enable(const std::string& list) { enable(parse(list)); }
void disable(unsigned mask) noexcept { detail::g_mask.fetch_and(~mask, std::memory_order_relaxed); }

void write(channel c, const std::string& message) {
  std::lock_guard lock(g_write);
  std::fprintf(stderr, "[lz:%s] %s\n", name_of(c), message.c_str());
}

long long now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void write_timed(channel c, const std::string& message, long long t0) {
  write(c, message + " " + std::to_string(double(now_ns() - t0) * 1e-3) + " us");
}

} // namespace lz::logging
