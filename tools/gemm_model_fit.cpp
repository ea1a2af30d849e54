// Fits the GEMM shape model's constants (src/ops/gemm_shape_model.hpp, ModelDevice) to
// calibration files of tests/data's format (scripts/gemm-shape-bench calib, deep, lcalib,
// converted by scripts/gemm_calib_points.py): a seeded random search on the sum over the
// files of the logarithms of the picks' geometric mean and worst case
// (src/tuning/gemm_model_fit.hpp). Prints each file's picks before and after and the
// constants as the header's initialisers. Built with hetbench; run by hand:
//   build/gemm_model_fit [--steps N] [--seed S] [--report] FILE.json...
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "tuning/gemm_model_fit.hpp"

int main(int argc, char** argv) try {
  using namespace hetbench::gemm_model;
  CLI::App app{"Fit the GEMM shape model's constants to calibration measurements"};
  std::vector<std::string> files;
  int steps = 4000;
  std::uint64_t seed = 1;
  bool report = false;
  app.add_option("files", files, "calibration files (tests/data/gemm_shape_*.json)")->required()->check(CLI::ExistingFile);
  app.add_option("--steps", steps, "random-search steps")->check(CLI::Range(0, 10000000));
  app.add_option("--seed", seed, "the search's seed");
  app.add_flag("--report", report, "print every problem's pick after the fit");
  CLI11_PARSE(app, argc, argv);

  std::vector<CalibrationSet> sets;
  for (const auto& f : files) sets.push_back(read_calibration(f));
  const ModelDevice start;
  const FitResult fit = fit_constants(sets, start, steps, seed);
  std::vector<PickQuality> before;
  for (const auto& s : sets) before.push_back(picks_on(s, start));
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const auto& after = fit.quality[i];
    fmt::print("{}: {} problems, picks {:.3f} / {:.3f} (geomean / worst), spread error {:.4f}; were {:.3f} / {:.3f}, {:.4f}\n",
               sets[i].name, after.problems, after.geomean, after.worst, after.spread_error, before[i].geomean,
               before[i].worst, before[i].spread_error);
    if (report) fmt::print("{}", after.report);
  }
  ModelDevice fitted = fit.constants;
  fmt::print("objective {:.4f} (start {:.4f})\n", fit.objective, fit_objective(before));
  for (const auto& name : fitted_constants()) fmt::print("  double {} = {:.4g};\n", name, constant(fitted, name));
  return 0;
} catch (const hetbench::Error& e) {
  std::fprintf(stderr, "gemm_model_fit: %s\n", e.what());
  return 2;
}
