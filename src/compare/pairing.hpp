// Which points of experiments are the same point: sides (experiments, or the values of one
// attribute such as the device) and the pairs of points whose identity, less the compared
// attribute, is equal (docs/compare.md).
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "compare/folder.hpp"
#include "compare/verdict.hpp"

namespace hetbench {

// What differs between the sides: "experiment" (each folder a side), or an attribute of the
// points, device, variant or precision, or of the experiments, commit (a prefix of
// git_commit), each with its values (the first is the reference; none: as they appear).
struct CompareBy {
  std::string attr = "experiment";
  std::vector<std::string> values;
};
// "device=cuda:0,opencl:0:0", "precision", ...; throws Error on an unknown attribute.
CompareBy parse_compare_by(const std::string& text);

struct CompareSide {
  std::string label;
  std::vector<const nlohmann::json*> points;
};
// The sides, the reference first; throws Error when there are fewer than two, or a value
// of --by matches no point (naming the values there are).
std::vector<CompareSide> make_sides(const std::vector<RecordedExperiment>& exps, const CompareBy& by);

// A point's identity less the compared attribute (a variant's parameters belong to it).
std::string point_key(const nlohmann::json& rec, const std::string& attr);
// The group of the geometric-mean summary: op, variant, device, precision, less the
// attribute.
std::string point_group(const nlohmann::json& rec, const std::string& attr);

struct ComparedPair {
  const nlohmann::json* ref = nullptr;
  const nlohmann::json* cand = nullptr;
  std::size_t side = 1;  // the candidate's side
  Judgement j;
  // --by device: the fastest own variant of each side at one problem (op, precision,
  // sizes), whatever the variants are, rather than the same variant on both.
  bool best_own = false;
};
// The summary group of a pair: point_group of its reference, or op and precision for a
// best-own pair.
std::string pair_group(const ComparedPair& p, const std::string& attr);

struct Comparison {
  std::string attr;
  double threshold = 0.02;
  double max_threshold = kMaxThreshold;  // above it no pair is called the same (judge_records)
  std::vector<std::string> labels;  // per side, the reference first
  std::vector<ComparedPair> pairs;
  std::vector<std::size_t> unpaired;  // per side: points with no counterpart
};

// Pairs every side with the reference; points sharing a key on one side pair in order of
// occurrence. With attr "device", each problem's fastest own (not library) point of the
// reference also pairs with the candidate's (best_own), unless they already paired as the
// same variant: which device runs the op faster, whatever kernel each is best with. Throws Error when no point pairs at all ("nothing in common"), saying what
// each side holds.
Comparison compare_sides(const std::vector<CompareSide>& sides, const std::string& attr, double threshold,
                         double max_threshold = kMaxThreshold);

// 1 when a pair has a verdict in `fail_on` (the CI gate), else 0.
int gate(const Comparison& c, const std::set<Verdict>& fail_on);

}  // namespace hetbench
