// On-disk cache of built kernels, keyed by the full text of what determines the build
// (device, driver, source, options). The key is stored in the file and compared on load,
// so a hash collision can only cost a rebuild.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace hetbench {

std::string hash_hex(const std::string& text);  // 64-bit FNV-1a, 16 hex digits
// $HETBENCH_CACHE_DIR, else $XDG_CACHE_HOME/hetbench, else ~/.cache/hetbench.
std::filesystem::path cache_root();
std::optional<std::string> cache_load(const std::string& kind, const std::string& key);
void cache_store(const std::string& kind, const std::string& key, const std::string& blob);

}  // namespace hetbench
