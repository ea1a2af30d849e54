#include "engine/record/kernel_files.hpp"

#include <map>
#include <system_error>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "kernel/foreign/foreign.hpp"
#include "util/sha256.hpp"

namespace hetbench {

namespace fs = std::filesystem;

nlohmann::json kernel_files_of(const Experiment& e) {
  if (!e.spec.contains("gemmbench") || !e.spec["gemmbench"].is_string()) return nullptr;
  const std::string from = e.spec["gemmbench"];
  const std::string op = e.runs.empty() ? "gemm" : e.runs[0].op;
  const auto entries = load_foreign_kernels(op, from);
  nlohmann::json files = nlohmann::json::object();
  std::map<std::string, std::string> source_of;  // copied name -> the file it comes from
  for (const auto& k : entries)
    for (const auto& f : k.files) {
      // Flat: an entry names its source beside it (GEMMbench's "file", Lift's .cl), so
      // the copies keep their names and the entries read the same from kernels/.
      const std::string name = "kernels/" + fs::path(f).filename().string();
      const auto [it, fresh] = source_of.emplace(name, fs::weakly_canonical(f).string());
      if (!fresh && it->second != fs::weakly_canonical(f).string())
        throw Error(fmt::format("--kernel '{}': '{}' and '{}' have one name; an experiment keeps one copy of each file",
                                from, it->second, f));
      if (fresh) files[name] = {{"sha256", sha256_file(f)}, {"source", fs::absolute(f).lexically_normal().string()}};
    }
  const bool folder = fs::is_directory(from);
  nlohmann::json out = {{"format", entries.empty() ? "" : entries[0].format},
                        {"from", from},
                        {"entry", folder ? std::string("kernels") : "kernels/" + fs::path(from).filename().string()},
                        {"files", files}};
  // Each entry's description: what it states, then what the user states (--kernel-about).
  nlohmann::json about = nlohmann::json::object();
  const auto stated = e.spec.value("kernel_about", nlohmann::json::object());
  for (const auto& k : entries) {
    nlohmann::json a = k.about;
    if (stated.is_object()) a.update(stated);
    if (!a.empty()) about[fs::path(k.path).filename().string()] = a;
  }
  if (!about.empty()) out["about"] = about;
  return out;
}

void copy_kernel_files(const nlohmann::json& kernels, const fs::path& dir) {
  if (!kernels.is_object()) return;
  fs::create_directories(dir / "kernels");
  for (const auto& [name, f] : kernels["files"].items()) {
    const std::string src = f["source"];
    std::error_code ec;
    fs::copy_file(src, dir / name, fs::copy_options::overwrite_existing, ec);
    if (ec) throw Error(fmt::format("cannot copy kernel file '{}' into '{}': {}", src, (dir / name).string(), ec.message()));
    if (sha256_file((dir / name).string()) != f["sha256"])
      throw Error(fmt::format("kernel file '{}' changed while the experiment started: copy it again", src));
  }
}

std::string recorded_kernel_entry(const nlohmann::json& experiment, const fs::path& dir) {
  if (experiment.contains("kernels") && experiment["kernels"].is_object()) {
    const auto& k = experiment["kernels"];
    const auto files = k.value("files", nlohmann::json::object());
    for (const auto& [name, f] : files.items()) {
      const auto path = dir / name;
      if (!fs::is_regular_file(path))
        throw Error(fmt::format("{}: the kernel file the experiment ran is missing (recorded SHA-256 {})",
                                path.string(), f.value("sha256", "")));
      const auto now = sha256_file(path.string());
      if (now != f.value("sha256", ""))
        throw Error(fmt::format("{}: differs from the kernel file the experiment ran: SHA-256 {} recorded, {} now",
                                path.string(), f.value("sha256", ""), now));
    }
    return (dir / k.value("entry", "kernels")).string();
  }
  // Recorded before the copies were kept: the path it ran with, if still there.
  const auto spec = experiment.value("spec", nlohmann::json::object());
  if (spec.contains("gemmbench") && spec["gemmbench"].is_string()) return spec["gemmbench"];
  return "";
}

}  // namespace hetbench
