// Problem classes of the tuning database: a problem's features reduced to a few
// coordinates in log2 space, a label that names the class, and a distance between two
// problems. docs/tuning-db.md defines the classes.
//
// Coordinates (all log2, so that a factor of two is one unit everywhere):
//   vector ops  n
//   gemm        m, n, k, plus an "odd" flag (a dimension not a multiple of 64)
//   spmv        rows, mean row length, max/mean row length, 1 + coefficient of variation,
//               plus a "scattered" flag (columns from anywhere: bandwidth/cols > 0.25)
// The label buckets the coordinates (size bucket = round(log2), gemm shape = square, tall,
// wide, skinny or flat, plus "odd") so that `hetbench db list` groups like problems; the
// lookup does not use the label but the distance, so a problem between two classes
// still finds the nearer one.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/op.hpp"

namespace hetbench::tuning {

struct ProblemClass {
  std::string op;
  std::string label;           // e.g. "n=2^24", "gemm 2^12 square", "spmv r2^20 m2^3 skew2^4"
  std::vector<double> coords;  // log2 features, in the order the op's class defines
  nlohmann::json features = nlohmann::json::object();  // the raw features it came from
};

// The class of a problem of `op` from its sizes and (for spmv) its features as the op
// records them (Problem::features, or the cheap summary the plan computes); throws Error
// when a feature the class needs is missing.
ProblemClass classify(const std::string& op, const Sizes& sizes, const nlohmann::json& features = {});
// Rebuilds a class from its op and stored features (the database keeps the features).
ProblemClass classify_features(const std::string& op, const nlohmann::json& features);
// Euclidean distance between the coordinates; infinity for classes of different ops.
double distance(const ProblemClass& a, const ProblemClass& b);
// How far an entry may be and still be used: 1 for SpMV (row lengths within a factor 2,
// together), 2 for the others (GEMM: every dimension within a factor 2 — 8192 takes what
// 4096 found, but 4096 does not pass to 3001x5003x997, whose odd sizes want other tiles).
// Farther than that, the variant's metadata defaults (and auto's rule) are the better
// guess: a kernel tuned for rows of 8 chooses badly for rows of 40.
double reach(const std::string& op);

// SpMV: the fraction of the matrix's width its columns reach from the diagonal
// (bandwidth ÷ cols; 0 where the features lack them, as in entries written before the
// flag), and the fraction above which the columns count as scattered. Rows of random
// columns make every gather of x a miss, so kernels and parameters that win on bands and
// stencils of the same row lengths lose there (docs/tuning-db.md).
double column_reach(const nlohmann::json& features);
inline constexpr double kScatteredColumns = 0.25;

}  // namespace hetbench::tuning
