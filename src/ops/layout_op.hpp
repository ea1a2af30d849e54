// What the ops over multi-field records share (nbody, stencil3d, srad, mriq): size tokens that name a
// layout (N@LAYOUT: a layout shipped in layouts/<op>/, or a layout file), the record sets
// placed in their layout's buffers, and the fields read back for validation.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>

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

// The layout a size names: its Sizes::input is "TOKEN" for a file of one Arch section (or
// of several, before the plan has chosen the device's: the first), "TOKEN#ARCH" for one
// section of a file with several.
inline Layout layout_of(const std::string& op, const FieldSet& fs, const Sizes& s) {
  if (s.input.empty()) {  // no layout named: every field its own array
    Layout l = resolve_layout(LayoutFile{"(default)", {ArchLayout{"any", 0, {}, {}}}}, 0, fs, op);
    l.name = "soa";
    return l;
  }
  const auto [token, arch] = split_layout_token(s.input);
  const LayoutFile f = read_layout_file(layout_path(op, token));
  for (std::size_t a = 0; a < f.archs.size(); ++a)
    if (arch.empty() || f.archs[a].arch == arch) {
      Layout l = resolve_layout(f, a, fs, op);
      l.name = s.input;
      return l;
    }
  throw InputError(fmt::format("{}: no 'Arch {}' section", f.path, arch));
}

// A kernel that stages only the records of one operand (MRI-Q's k-space samples) refuses
// a layout that stages another operand's field, and one that stages nothing (operand "":
// srad) any Scratchpad entry: one clear error naming file, line and field.
inline void check_staged(const Layout& l, const FieldSet& fs, const std::string& operand, const std::string& op) {
  for (const auto& e : l.scratch) {
    if (operand.empty())
      throw InputError(fmt::format("{}:{}: '{}': op {} stages no field in local memory: its layouts take no Scratchpad "
                                   "entries",
                                   l.path, e.field.line, e.field.name, op));
    for (const auto& o : fs)
      if (o.operand != operand && std::find(o.fields.begin(), o.fields.end(), e.field.name) != o.fields.end())
        throw InputError(fmt::format("{}:{}: '{}': op {} stages only fields of {} in local memory, not {} of {}", l.path,
                                     e.field.line, e.field.name, op, operand, e.field.name, o.operand));
  }
}

// "4099", "1000,2^20@soaos", "64@my.layout": the sizes `dims` parses, each with the layout.
// `stages`: the operand whose fields the op's kernels can stage (check_staged), "" for
// none; nullptr leaves staging to the kernel.
template <class Dims>
std::vector<Sizes> parse_layout_sizes(const std::string& op, const FieldSet& fs, const std::string& token, Dims dims,
                                      const char* stages = nullptr) {
  std::string list = token, lay;
  if (auto at = token.find('@'); at != std::string::npos) {
    list = token.substr(0, at);
    lay = token.substr(at + 1);
    if (lay.empty()) throw Error(fmt::format("malformed {} size '{}': expected SIZES@LAYOUT", op, token));
  }
  std::vector<std::string> inputs{""};
  if (!lay.empty()) {
    // FILE: one layout, the section each device takes (ops/layout_arch.hpp, chosen when the
    // points are planned); FILE#NAME: that section everywhere; FILE#*: every section, each
    // a layout of its own (to compare them).
    const auto [file, arch] = split_layout_token(lay);
    const LayoutFile f = read_layout_file(layout_path(op, file));
    inputs.clear();
    for (const auto& a : f.archs) {
      Sizes probe;
      probe.input = f.archs.size() == 1 ? file : file + "#" + a.arch;
      const Layout l = layout_of(op, fs, probe);  // bad layouts are bad input now, not a failed point later
      if (stages) check_staged(l, fs, stages, op);
      if (arch == "*" || arch == a.arch) inputs.push_back(probe.input);
    }
    if (arch.empty()) inputs = {file};
    if (inputs.empty()) {
      std::string names;
      for (const auto& a : f.archs) names += (names.empty() ? "" : ", ") + a.arch;
      throw InputError(fmt::format("{} size '{}': {} has no 'Arch {}' section (it has {}; '#*' measures each)", op,
                                   token, f.path, arch, names));
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

// The problem's records, general form: operand o of fs holds n[o] records with access
// acc[o]. The fields named in `seeded` are seeded at random (the k-th seeded field in fs's
// order from stream k + 1, uniform in +-[1/16, 1]; those in `positive` as magnitudes); the
// other fields of In and InOut operands start as the poison pattern (an earlier launch of
// the variant writes them, and validation sees any it left unwritten); Out operands are
// left to the engine's poison. The placing is timed (features.layout_convert_s), the
// accessors and the layout's features set; `scale` multiplies a seeded field by a power of
// two (MRI-Q's k-space extent). Returns the seeded fields by name, n words each.
template <class T>
std::map<std::string, std::vector<T>> place_fields(LayoutProblem& prob, const FieldSet& fs,
                                                   const std::vector<std::size_t>& n, const std::vector<Access>& acc,
                                                   std::uint64_t seed, const std::vector<std::string>& seeded,
                                                   const std::vector<std::string>& positive,
                                                   const std::map<std::string, int>& scale = {}) {
  auto named = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::map<std::string, std::vector<T>> in;
  std::uint64_t stream = 0;
  for (std::size_t o = 0; o < fs.size(); ++o)
    for (const auto& f : fs[o].fields)
      if (acc[o] != Access::Out && named(seeded, f)) {
        auto& v = in[f];
        v.resize(n[o]);
        fill_random(v.data(), n[o], seed, ++stream);
        if (named(positive, f))
          for (auto& x : v) x = std::fabs(x);
        if (auto it = scale.find(f); it != scale.end())
          for (auto& x : v) x = std::ldexp(x, it->second);
      }
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t o = 0; o < fs.size(); ++o) {
    const auto& ol = prob.layout.operand(fs[o].operand);
    ArrayOperand a{ol.operand, false, acc[o], ol.words(n[o]), sizeof(T), {}};
    if (acc[o] != Access::Out) {
      a.host.assign(a.bytes(), 0);
      const std::vector<unsigned char> poison(n[o] * sizeof(T), 0xFF);
      for (const auto& f : fs[o].fields)
        scatter_field(ol, f, n[o], sizeof(T), in.count(f) ? reinterpret_cast<const unsigned char*>(in[f].data()) : poison.data(),
                      a.host.data());
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

// The common case (nbody, stencil3d): n records in every operand, every field of the first
// operand an input, the others outputs. Returns the input fields as arrays of n words.
template <class T>
std::vector<Bytes> place_records(LayoutProblem& prob, const FieldSet& fs, std::size_t n,
                                 std::uint64_t seed, const std::vector<std::string>& positive) {
  std::vector<Access> acc(fs.size(), Access::Out);
  acc[0] = Access::In;
  auto in = place_fields<T>(prob, fs, std::vector<std::size_t>(fs.size(), n), acc, seed, fs[0].fields, positive);
  std::vector<Bytes> out;
  for (const auto& f : fs[0].fields) {
    const auto* p = reinterpret_cast<const unsigned char*>(in[f].data());
    out.emplace_back(p, p + n * sizeof(T));
  }
  return out;
}

// "37x19x5" (up to `dims` extents, missing ones repeat the last) for each comma-separated
// token; the product is checked as it grows: extents from a file or a fuzzer must not
// overflow it. Grids of stencil3d (NX[xNY[xNZ]]), srad (NX[xNY]).
inline std::vector<std::vector<long long>> parse_extents(const std::string& list, std::size_t dims, const std::string& op,
                                                         const std::string& form) {
  std::vector<std::vector<long long>> out;
  std::vector<std::string> toks{""};
  for (char c : list) {
    if (c == ',') toks.emplace_back();
    else toks.back().push_back(c);
  }
  for (const auto& tok : toks) {
    std::vector<long long> d;
    std::size_t start = 0;
    while (true) {
      const auto x = tok.find('x', start);
      d.push_back(parse_int_list(tok.substr(start, x - start), "size").at(0));
      if (x == std::string::npos) break;
      start = x + 1;
    }
    if (d.size() > dims) throw Error(fmt::format("malformed {} size '{}': expected {}", op, tok, form));
    while (d.size() < dims) d.push_back(d.back());
    constexpr long long kMaxPoints = 1ll << 40;
    long long n = 1;
    for (long long v : d) {
      if (v < 1) throw Error(fmt::format("size {} = {} is impossible: {} needs every extent >= 1", tok, v, op));
      if (v > kMaxPoints / n)
        throw Error(fmt::format("size {} is impossible: {}'s grid would have more than 2^40 points", tok, op));
      n *= v;
    }
    d.push_back(n);
    out.push_back(std::move(d));
  }
  return out;
}

// The named fields of n records read back from an operand's buffer, one array each.
template <class T>
std::vector<std::vector<T>> gather_fields(const OperandLayout& ol, const std::vector<std::string>& fields, std::size_t n,
                                          const Bytes& buffer) {
  std::vector<std::vector<T>> got(fields.size(), std::vector<T>(n));
  for (std::size_t f = 0; f < fields.size(); ++f)
    gather_field(ol, fields[f], n, sizeof(T), buffer.data(), reinterpret_cast<unsigned char*>(got[f].data()));
  return got;
}

inline std::string scratch_fit(const Layout& l, Precision p, const DeviceInfo& di) {
  const std::size_t need = l.scratch_bytes(info(p).bytes);
  if (!di.local_mem || need <= di.local_mem) return "";
  return fmt::format("{}: the scratchpad tiles need {} bytes of local memory per work-group, more than the {} of {}",
                     l.path, need, di.local_mem, di.name);
}

}  // namespace hetbench
