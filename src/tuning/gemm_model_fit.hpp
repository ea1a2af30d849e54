// The GEMM shape model against measurements: which configuration it would take among those
// measured at each problem of a calibration file (tests/data/gemm_shape_*.json, written by
// scripts/gemm_calib_points.py), how near that is to the best measured, and a random search
// over the model's constants that makes it nearer (tools/gemm_model_fit.cpp). The model's
// tests and its fitting read measurements through this one unit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops/gemm_shape_model.hpp"

namespace hetbench::gemm_model {

// The model's picks on one file: per problem, the measured rate of the configuration
// predicted fastest (ties as rank_gemm_configs breaks them) over the best measured rate.
struct PickQuality {
  double geomean = 0, worst = 1;
  std::size_t problems = 0;
  // Per problem and configuration, log(predicted time / fastest predicted) against
  // log(best measured rate / its rate): the mean squared difference, over the problems.
  // The picks change in steps; this moves with every constant, so the fit prefers, among
  // constants that pick alike, those that also rank the rest as measured.
  double spread_error = 0;
  std::string report;  // a line per problem: "S regblock 1200x2400x3001@NT: 0.912 (BM=...)"
};

// A calibration file's measurements, grouped by problem (precision, variant, m, n, k,
// layout), each configuration's rate (its ratio to cuBLAS where points come from
// different runs), and the device the file was measured on (its SMs, clock and shared
// memory are what the model takes from a device).
struct CalibrationSet {
  std::string name;
  ModelDevice device;
  struct Config {
    ParamValues values;
    double rate = 0;
  };
  struct Problem {
    std::string label;
    GemmShape shape;
    double fma_per_clock = 0;
    std::vector<Config> configs;
  };
  std::vector<Problem> problems;
};

// Reads a file of tests/data's format; the variants are looked up among the CUDA GEMM
// variants of this build (an unknown one is an error naming the file).
CalibrationSet read_calibration(const std::string& path);

PickQuality picks_on(const CalibrationSet& set, const ModelDevice& constants);

// The constants the fit varies, by name (ModelDevice's fields: l2_bytes_per_clock,
// block_fixed_clocks, warps_to_hide, hiding_exponent, sustained, step_clocks,
// mma_fragment_slots and the three copy-path costs).
std::vector<std::string> fitted_constants();
double& constant(ModelDevice& d, const std::string& name);

struct FitResult {
  ModelDevice constants;
  double objective = 0;
  std::vector<PickQuality> quality;  // per set, in the order given
};

// The fit's objective: over the sets, the sum of the logarithms of the picks' geometric
// mean and worst case (each set weighs the same, however many problems it has), less a
// twentieth of each set's spread error.
double fit_objective(const std::vector<PickQuality>& q);

// Whether constants keep the order of the copy paths' instruction counts (an element-path
// slot costs at least a vector-path slot) and a sustained share within (0, 1]; the search
// takes no step outside.
bool plausible(const ModelDevice& d);

// A seeded random search from `start`: each step scales a few constants by log-normal
// factors (their spread shrinking over the steps) and keeps the result where the
// objective does not fall. Deterministic for a seed.
FitResult fit_constants(const std::vector<CalibrationSet>& sets, const ModelDevice& start, int steps,
                        std::uint64_t seed);

}  // namespace hetbench::gemm_model
