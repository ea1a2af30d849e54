// hetbench export t4 EXPERIMENT [--out FILE | --out-dir DIR]: an experiment folder in the
// autotuning community's results format (docs/interop.md).
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "hetbench/error.hpp"
#include "interop/t4.hpp"

namespace hetbench::cli {

namespace fs = std::filesystem;

namespace {

void write_json(const fs::path& file, const nlohmann::ordered_json& doc) {
  if (file.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
  }
  std::ofstream f(file);
  f << doc.dump(2) << '\n';
  if (!f) throw Error(fmt::format("cannot write '{}'", file.string()));
}

int export_t4(const std::string& experiment, const std::string& out, const std::string& out_dir) {
  const auto docs = experiment_to_t4(experiment);
  if (!out_dir.empty()) {
    for (const auto& d : docs) write_json(fs::path(out_dir) / (d.stem + ".json"), d.doc);
    fmt::print(stderr, "hetbench: {} T4 document(s) in {}\n", docs.size(), out_dir);
    return 0;
  }
  // A T4 document is one search space: an experiment of several problems needs a folder.
  if (docs.size() > 1) {
    std::string list;
    for (const auto& d : docs) list += "\n  " + d.stem;
    throw Error(fmt::format("{} holds {} tuning problems (variant, device, precision, problem), one T4 document "
                            "each: give --out-dir DIR{}",
                            experiment, docs.size(), list));
  }
  if (out.empty()) fmt::print("{}\n", docs.front().doc.dump(2));
  else write_json(out, docs.front().doc);
  return 0;
}

}  // namespace

Command add_export(CLI::App& app) {
  auto* sub = app.add_subcommand("export", "write an experiment in another format");
  sub->require_subcommand(1);
  auto* t4 = sub->add_subcommand("t4", "as T4 results documents (autotuning methodology schema 1.1.0)");
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto out_dir = std::make_shared<std::string>();
  t4->add_option("experiment", *dir, "the experiment folder (experiment.json, results.jsonl)")->required();
  auto* o = t4->add_option("--out", *out, "the T4 file (default: stdout); for an experiment of one problem");
  t4->add_option("--out-dir", *out_dir, "a folder for one T4 file per variant, device, precision and problem")
      ->excludes(o);
  return {sub, [=] { return export_t4(*dir, *out, *out_dir); }};
}

}  // namespace hetbench::cli
