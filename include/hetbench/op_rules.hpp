// What the tuning layer asks of an op (docs/tuning-db.md): the coordinates of a problem's
// class, how near an entry must be to serve, which of its variants `--variant auto` tries
// first, the parameter values a rule derives from a problem's features, and whether its
// points are rated by flops or bytes. The op knows its problems and its variants; the
// tuning layer only asks, so that adding an op or renaming a variant edits the op alone.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

// A problem's class: features reduced to coordinates in log2 space (a factor of two is
// one unit), a label that names the class in `hetbench db list`, and the raw features
// the coordinates came from (the database stores them, and rebuilds the class from them).
struct ClassCoords {
  std::string label;
  std::vector<double> coords;
  // Each coordinate's weight in the Euclidean distance between two classes; empty: all 1.
  std::vector<double> weights;
  nlohmann::json features = nlohmann::json::object();
};

// The op's own variants in the order `--variant auto` tries them where the tuning
// database knows nothing near, with the reason recorded as the choice's
// ("rule: max/mean row length 53 > 8"). Names the device lacks are skipped; an empty list
// leaves the first own variant by name.
struct VariantPreference {
  std::vector<std::string> names;
  std::string why;
};

// One parameter's value from a rule over the problem's features, with its reason
// (recorded as the parameter's source: "rule: mean row length 27 -> TPR 4").
struct ParamRule {
  long long value = 0;
  std::string why;
};

// A configuration of a variant that a model of the op predicts (GEMM: the shape model of
// warp-tiled kernels), with the reason recorded as the parameters' source.
struct ModelledConfig {
  std::map<std::string, long long> values;  // every parameter of the variant
  std::string why;                          // "model: 64x64 tiles, 1024 blocks, ..."
};

// How tune and the tuning database rate the op's points: by GFLOP/s where the op is bound
// by arithmetic (GEMM, the FMA peak), else by GB/s; and whether tune's summary shows
// GFLOP/s beside GB/s.
struct OpRates {
  bool by_flops = false;
  bool shows_flops = false;
};

// The default class (Op::problem_class): log2 of each numeric feature, by name; Error when
// there is none.
ClassCoords dimension_class(const nlohmann::json& features, const std::string& op);
// A numeric feature, or Error "problem class of OP: feature 'KEY' is missing".
double class_feature(const nlohmann::json& features, const char* key, const std::string& op);

}  // namespace hetbench
