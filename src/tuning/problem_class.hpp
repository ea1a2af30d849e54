// Problem classes of the tuning database: a problem's features reduced to a few
// coordinates in log2 space, a label that names the class, and a distance between two
// problems. Each op defines its classes (Op::problem_class, hetbench/op_rules.hpp;
// docs/tuning-db.md lists them): the vector ops have log2 n, GEMM log2 m, n, k and an "odd"
// flag, SpMV its row-length statistics and a "scattered" flag. The label buckets the
// coordinates so that `hetbench db list` groups like problems; the lookup does not use the
// label but the distance, so a problem between two classes still finds the nearer one.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/op.hpp"

namespace hetbench::tuning {

struct ProblemClass {
  std::string op;
  std::string label;            // e.g. "n=2^24", "m 2^12 n 2^12 k 2^12 square", "rows 2^20 mean 2^3 ..."
  std::vector<double> coords;   // log2 features, in the order the op's class defines
  std::vector<double> weights;  // each coordinate's weight in the distance; empty: all 1
  nlohmann::json features = nlohmann::json::object();  // the raw features it came from
  // How far (distance) an entry may be and still serve this problem (Op::class_reach): 1
  // for SpMV (row lengths within a factor 2, together), 2 for the others (GEMM: every
  // dimension within a factor 2 — 8192 takes what 4096 found, but 4096 does not pass to
  // 3001x5003x997, whose odd sizes want other tiles). Farther than that, the variant's
  // metadata defaults (and auto's rule) are the better guess: a kernel tuned for rows of 8
  // chooses badly for rows of 40.
  double reach = 2;
};

// The class of a problem of `op` from its sizes and the features the op records
// (Problem::features, or the cheap summary the plan computes); throws Error when a
// feature the class needs is missing.
ProblemClass classify(const Op& op, const Sizes& sizes, const nlohmann::json& features = {});
// The class from the op's class features (Op::class_features).
ProblemClass class_of(const Op& op, const nlohmann::json& features);
// Rebuilds a class from its op's name and stored features (the database keeps the
// features). An op this build lacks (an entry from another build) gets the default class,
// log2 of each dimension, so that its entries still list.
ProblemClass classify_features(const std::string& op, const nlohmann::json& features);
// Weighted Euclidean distance between the coordinates; infinity for classes of different ops.
double distance(const ProblemClass& a, const ProblemClass& b);

}  // namespace hetbench::tuning
