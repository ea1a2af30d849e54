#include "util/cache.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace hetbench {

std::string hash_hex(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

std::filesystem::path cache_root() {
  if (const char* d = std::getenv("HETBENCH_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "hetbench";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "hetbench";
  return std::filesystem::temp_directory_path() / "hetbench-cache";
}

namespace {
bool disabled() {
  const char* v = std::getenv("HETBENCH_NO_DISK_CACHE");
  return v && *v && std::string(v) != "0";
}
}  // namespace

std::optional<std::string> cache_load(const std::string& kind, const std::string& key) {
  if (disabled()) return std::nullopt;
  auto path = cache_root() / kind / (hash_hex(key) + ".bin");
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::uint64_t klen = 0;
  if (!f.read(reinterpret_cast<char*>(&klen), sizeof klen) || klen != key.size()) return std::nullopt;
  std::string stored(klen, '\0');
  if (!f.read(stored.data(), static_cast<std::streamsize>(klen)) || stored != key) return std::nullopt;
  std::ostringstream rest;
  rest << f.rdbuf();
  return rest.str();
}

void cache_store(const std::string& kind, const std::string& key, const std::string& blob) {
  if (disabled()) return;
  std::error_code ec;
  auto dir = cache_root() / kind;
  std::filesystem::create_directories(dir, ec);
  if (ec) return;  // a cache that cannot be written is only slower
  auto final_path = dir / (hash_hex(key) + ".bin");
  auto tmp = dir / fmt::format("{}.{}.tmp", hash_hex(key), getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    std::uint64_t klen = key.size();
    f.write(reinterpret_cast<const char*>(&klen), sizeof klen);
    f.write(key.data(), static_cast<std::streamsize>(key.size()));
    f.write(blob.data(), static_cast<std::streamsize>(blob.size()));
    if (!f) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, final_path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace hetbench
