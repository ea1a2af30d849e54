// What the ops over multi-field records share (nbody, stencil3d): size tokens that name a
// layout (N@LAYOUT: a layout shipped in layouts/<op>/, or a layout file), the record sets
// placed in their layout's buffers, and the fields read back for validation.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"
#include "ops/layout.hpp"
#include "ops/layout_problem.hpp"
#include "util/random.hpp"
#include "util/ranges.hpp"

namespace hetbench {

// The file a layout token names: a path as given, else layouts/<op>/<token>.layout
// (or .json) shipped with hetbench.
inline std::string layout_path(const std::string& op, const std::string& token) {
  namespace fs = std::filesystem;
  if (token.find('/') != std::string::npos || token.ends_with(".layout") || token.ends_with(".json")) return token;
  for (const char* ext : {".layout", ".json"}) {
    fs::path p;
    try {
      p = fs::path(data_dir("layouts")) / op / (token + ext);
    } catch (const Error&) {
      break;
    }
    if (fs::exists(p)) return p.string();
  }
  throw InputError(fmt::format("layout '{}' is neither a file nor a layout shipped for op {} (layouts/{}/*.layout)", token,
                               op, op));
}

// The Sizes::input of a layout: "TOKEN" for a file of one Arch section, "TOKEN#ARCH"
// for each section of a file with several (each is a layout of its own).
inline Layout layout_of(const std::string& op, const FieldSet& fs, const Sizes& s) {
  if (s.input.empty()) {  // no layout named: every field its own array
    Layout l = resolve_layout(LayoutFile{"(default)", {ArchLayout{"any", 0, {}, {}}}}, 0, fs, op);
    l.name = "soa";
    return l;
  }
  std::string token = s.input, arch;
  if (auto h = token.rfind('#'); h != std::string::npos) {
    arch = token.substr(h + 1);
    token.resize(h);
  }
  const LayoutFile f = read_layout_file(layout_path(op, token));
  for (std::size_t a = 0; a < f.archs.size(); ++a)
    if (arch.empty() || f.archs[a].arch == arch) {
      Layout l = resolve_layout(f, a, fs, op);
      l.name = s.input;
      return l;
    }
  throw InputError(fmt::format("{}: no 'Arch {}' section", f.path, arch));
}

// "4099", "1000,2^20@soaos", "64@my.layout": the sizes `dims` parses, each with the layout.
template <class Dims>
std::vector<Sizes> parse_layout_sizes(const std::string& op, const FieldSet& fs, const std::string& token, Dims dims) {
  std::string list = token, lay;
  if (auto at = token.find('@'); at != std::string::npos) {
    list = token.substr(0, at);
    lay = token.substr(at + 1);
    if (lay.empty()) throw Error(fmt::format("malformed {} size '{}': expected SIZES@LAYOUT", op, token));
  }
  std::vector<std::string> inputs{""};
  if (!lay.empty()) {
    const LayoutFile f = read_layout_file(layout_path(op, lay));
    inputs.clear();
    for (const auto& a : f.archs) {
      inputs.push_back(f.archs.size() == 1 ? lay : lay + "#" + a.arch);
      Sizes probe;
      probe.input = inputs.back();
      layout_of(op, fs, probe);  // bad layouts are bad input now, not a failed point later
    }
  }
  std::vector<Sizes> out;
  for (const auto& in : inputs)
    for (Sizes s : dims(list)) {
      s.input = in;
      out.push_back(s);
    }
  return out;
}

// The problem's records: the input operand's fields (fs[0]) seeded at random (stream
// f + 1, uniform in ±[1/16, 1]; fields in `positive` as magnitudes), placed with the output
// operands (fs[1...], left to the engine's poison) in the problem's layout, the placing
// timed (features.layout_convert_s), the accessors and the layout's features set.
// Returns the input fields as arrays of n words, for the reference.
template <class T>
std::vector<std::vector<unsigned char>> place_records(LayoutProblem& prob, const FieldSet& fs, std::size_t n,
                                                      std::uint64_t seed, const std::vector<std::string>& positive) {
  std::vector<std::vector<unsigned char>> in;
  for (std::size_t f = 0; f < fs[0].fields.size(); ++f) {
    in.emplace_back(n * sizeof(T));
    T* v = reinterpret_cast<T*>(in.back().data());
    fill_random(v, n, seed, f + 1);
    if (std::find(positive.begin(), positive.end(), fs[0].fields[f]) != positive.end())
      for (std::size_t i = 0; i < n; ++i) v[i] = std::fabs(v[i]);
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t o = 0; o < fs.size(); ++o) {
    const auto& ol = prob.layout.operand(fs[o].operand);
    ArrayOperand a{ol.operand, false, o == 0 ? Access::In : Access::Out, ol.words(n), sizeof(T), {}};
    if (o == 0) {
      a.host.assign(a.bytes(), 0);
      for (std::size_t f = 0; f < in.size(); ++f)
        scatter_field(ol, fs[0].fields[f], n, sizeof(T), in[f].data(), a.host.data());
    }
    prob.arrays.push_back(std::move(a));
  }
  prob.features["layout_convert_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  prob.source_prelude = layout_accessors(prob.layout, fs);
  prob.features["layout"] = prob.layout.name;
  prob.features["layout_arch"] = prob.layout.arch;
  prob.features["layout_groups"] = prob.layout.describe();
  return in;
}

inline std::string scratch_fit(const Layout& l, Precision p, const DeviceInfo& di) {
  const std::size_t need = l.scratch_bytes(info(p).bytes);
  if (!di.local_mem || need <= di.local_mem) return "";
  return fmt::format("{}: the scratchpad tiles need {} bytes of local memory per work-group, more than the {} of {}",
                     l.path, need, di.local_mem, di.name);
}

}  // namespace hetbench
