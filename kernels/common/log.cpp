// Trace channels behind lz::log (see include/lz/log.hpp).
#include <lz/log.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string_view>

namespace lz::logging {
namespace detail {
std::atomic<unsigned> g_mask{[] {
  const char* env = std::getenv("LZ_LOG");
  if (!env) return 0u;
  std::string unknown;
  const unsigned m = parse(env, &unknown);
  if (!unknown.empty())
    std::fprintf(stderr,
                 "lz: LZ_LOG: unknown channel(s) '%s' ignored (channels: fusion, alloc, copy, "
                 "blas, loop, device, all)\n",
                 unknown.c_str());
  return m;
}()};
} // namespace detail

namespace {
struct name_bit {
  const char* name;
  unsigned bit;
};
constexpr name_bit names[] = {{"fusion", fusion}, {"alloc", alloc}, {"copy", copy},
                              {"blas", blas},     {"loop", loop},   {"device", device},
                              {"dist", dist},     {"all", all}};
std::mutex g_write; // one line at a time, to stderr or the sink
sink& g_sink() {    // (a function: write may run before this file's statics are made)
  static sink* s = new sink;
  return *s;
}
} // namespace

const char* name(channel c) noexcept {
  for (const auto& n : names)
    if (n.bit == c) return n.name;
  return "log";
}

unsigned parse(const std::string& list, std::string* unknown) noexcept {
  unsigned m = 0;
  std::size_t b = 0;
  while (b <= list.size()) {
    std::size_t e = list.find_first_of(", ", b);
    if (e == std::string::npos) e = list.size();
    const std::string_view word(list.data() + b, e - b);
    bool known = word.empty(); // ("fusion,,blas" and a trailing comma are fine)
    for (const auto& n : names) {
      if (word == n.name) {
        m |= n.bit;
        known = true;
      }
    }
    if (!known && unknown) {
      try {
        *unknown += (unknown->empty() ? "" : ",") + std::string(word);
      } catch (...) { // out of memory for the report: the mask is still right
      }
    }
    b = e + 1;
  }
  return m;
}

void enable(unsigned mask) noexcept { detail::g_mask.fetch_or(mask, std::memory_order_relaxed); }
void enable(const std::string& list) {
  std::string unknown;
  const unsigned m = parse(list, &unknown);
  if (!unknown.empty())
    throw std::invalid_argument("lz::logging::enable: unknown channel(s) '" + unknown +
                                "' (channels: fusion, alloc, copy, blas, loop, device, all)");
  enable(m);
}
void disable(unsigned mask) noexcept { detail::g_mask.fetch_and(~mask, std::memory_order_relaxed); }

void set_sink(sink s) {
  std::lock_guard lock(g_write);
  g_sink() = std::move(s);
}

void write(channel c, const std::string& message) {
  std::lock_guard lock(g_write);
  if (const sink& s = g_sink()) {
    try {
      s(c, message);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lz: the logging sink threw (%s); line lost: [lz:%s] %s\n", e.what(),
                   name(c), message.c_str());
    } catch (...) {
      std::fprintf(stderr, "lz: the logging sink threw; line lost: [lz:%s] %s\n", name(c),
                   message.c_str());
    }
    return;
  }
  std::fprintf(stderr, "[lz:%s] %s\n", name(c), message.c_str());
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
