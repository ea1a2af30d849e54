#include "ops/gemm_shape_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace hetbench::gemm_model {

namespace {

long long get(const ParamValues& pv, const char* k, long long dflt) {
  auto it = pv.find(k);
  return it == pv.end() ? dflt : it->second;
}

// The tile parameters the model ranges over without candidates, in enumeration order
// (SPLITK, the other parameter it ranges over, is taken from its whole domain).
constexpr const char* kTileParams[] = {"BM", "BN", "WM", "WN", "TM", "TN"};

}  // namespace

ModelDevice ModelDevice::of(const DeviceInfo& d) {
  ModelDevice m;
  if (d.compute_units > 0) m.sms = d.compute_units;
  if (d.max_clock_mhz > 0) m.clock_hz = d.max_clock_mhz * 1e6;
  // Shared memory per SM: what one block may take at launch, plus the 1 KiB the driver
  // reserves per block (Hopper: 227 + 1 of 228 KiB).
  if (d.local_mem_launch > 0) m.smem_per_sm = static_cast<double>(d.local_mem_launch) + 1024;
  return m;
}

double fma_per_clock(const Variant& v, Precision p) {
  const bool mma = v.param("SHAPE") != nullptr;  // mma.sync shapes: tensor cores
  if (p == Precision::S) return 128;             // FP32 SIMT lanes per SM
  return mma ? 128 : 64;                         // FP64: DMMA, or SIMT at half rate
}

Prediction predict_gemm(const ParamValues& pv, const GemmShape& g, const ModelDevice& d, double peak_fma) {
  const double F = peak_fma * d.sustained;
  const double bm = get(pv, "BM", 64), bn = get(pv, "BN", 64);
  const double wm = get(pv, "WM", bm), wn = get(pv, "WN", bn);
  const double split = get(pv, "SPLITK", 1), bk = get(pv, "BK", 16), stages = get(pv, "STAGES", 2);
  const bool simt = pv.count("TM") && pv.count("TN");
  const double tm = get(pv, "TM", 8), tn = get(pv, "TN", 8);
  const double eb = g.elem_bytes, v16 = 16 / eb;  // elements of a 16-byte access
  const double threads = bm / wm * (bn / wn) * 32;
  const double warps = threads / 32;

  // Registers per thread, in 32-bit words: the accumulators; SIMT, the fragments of two
  // k-steps and the next k-tile on its way to shared memory; mma, a k-step's fragments of
  // A and two of B; and the addressing. MINB caps them.
  const double acc_regs = (simt ? tm * tn : wm * wn / 32) * eb / 4;
  const double frag_regs = (simt ? 2 * (tm + tn) + (bm + bn) * bk / threads : (wm + 2 * wn) / 4) * eb / 4;
  double regs = std::ceil((acc_regs + frag_regs + 16) / 8) * 8;
  if (regs > 255) {  // would spill: never the model's choice
    Prediction spill;
    spill.seconds = std::numeric_limits<double>::infinity();
    spill.why = fmt::format("{}x{} tiles: about {:.0f} registers a thread, past 255", bm, bn, regs);
    return spill;
  }
  if (const long long minb = get(pv, "MINB", 0); minb > 0) regs = std::min(regs, d.regs_per_sm / (threads * minb));
  const double smem = stages * bk * (bm + bn) * eb + 1024;
  const int occ = std::max(1, static_cast<int>(std::min({std::floor(d.threads_per_sm / threads),
                                                          std::floor(d.regs_per_sm / (regs * threads)),
                                                          std::floor(d.smem_per_sm / smem),
                                                          static_cast<double>(d.blocks_per_sm)})));

  // A thread's share of a k-step's global-to-shared copy, in issue slots: per operand,
  // its tile rows over the threads, costed by the operand's path (ModelDevice).
  double copy = 0;
  if (simt) {
    auto path = [&](double rows, bool along_k, double ld) {
      const double elems = rows / threads;
      const bool whole = std::fmod(ld, v16) == 0;
      if (along_k) return whole ? elems / v16 * d.transposed_slot_slots : elems * d.element_slots;
      return whole ? 0.0 : elems / v16 * d.scalar_slot_slots;
    };
    copy = path(bm, !g.ta, g.ta ? g.m : g.k) + path(bn, g.tb, g.tb ? g.k : g.n);
  }
  // Share of issue slots that multiply-add: SIMT, a thread's TM·TN FMAs a k-step against
  // its (TM + TN) / V shared loads, its copy and the loop's own; mma, a warp's fragments.
  const double a = simt ? tm * tn / (tm * tn + (tm + tn) / v16 + 3 + copy)
                        : wm * wn / (wm * wn + d.mma_fragment_slots * (wm + wn));

  const double tiles = std::ceil(g.m / bm) * std::ceil(g.n / bn);
  const double blocks = tiles * split;
  const double per_sm = std::ceil(blocks / d.sms);  // the busiest SM's blocks
  const double kslice = std::ceil(std::ceil(g.k / bk) / split) * bk;

  // One k-step of b resident blocks, in cycles.
  auto kstep = [&](double b) {
    const double compute = b * (bm * bn / (F * a) + d.step_clocks);
    const double feed = b * (bm + bn) * eb / d.l2_bytes_per_clock;
    // Latency is hidden by loads in flight: the resident warps, each with STAGES - 1 tiles
    // on their way (the fit's pipelines were 3 deep: 2 in flight count as one; a kernel
    // without STAGES, double-buffered, counts as the fit saw it).
    const double in_flight = b * warps * (pv.count("STAGES") ? std::max(1.0, stages - 1) / 2 : 1.0);
    const double hidden = std::min(1.0, std::pow(in_flight / d.warps_to_hide, d.hiding_exponent));
    return std::max(compute, feed) / hidden;
  };
  // A block's fixed cycles: the prologue, C out (and in with beta), and split-K's partial
  // tile out, plus for the last slice SPLITK partials read back (once a tile).
  const double tile_bytes = bm * bn * eb;
  auto fixed = [&](double b) {
    double c = d.block_fixed_clocks + b * tile_bytes * (g.beta ? 2 : 1) / d.l2_bytes_per_clock;
    if (split > 1) c += b * tile_bytes / d.l2_bytes_per_clock + tile_bytes * split / d.l2_bytes_per_clock;
    return c;
  };
  const double full_waves = std::floor(per_sm / occ), rest = per_sm - full_waves * occ;
  double cycles = full_waves * (kslice * kstep(occ) + fixed(occ));
  if (rest > 0) cycles += kslice * kstep(rest) + fixed(rest);

  const double dram = (g.m * g.k + g.k * g.n + g.m * g.n * (g.beta ? 2 : 1)) * eb / d.dram_bytes_per_s;
  // Split-K's partial tiles, written and read back once more: not hidden behind the
  // multiply-adds of the same blocks (they come after them).
  const double partials = split > 1 ? 2 * blocks * tile_bytes / d.dram_bytes_per_s : 0;
  Prediction out;
  out.seconds = std::max(cycles / d.clock_hz, dram) + partials + d.launch_s;
  out.occupancy = occ;
  out.waves = per_sm / occ;
  out.efficiency = g.m * g.n * g.k / (out.seconds * d.clock_hz * d.sms * peak_fma);
  out.why = fmt::format("{}x{} tiles{}, {:.0f} blocks, {:.2g} waves of {} per SM: predicted {:.3g} us, {:.0f} % of peak",
                        bm, bn, split > 1 ? fmt::format(" x SPLITK {}", split) : "", blocks, out.waves, occ,
                        out.seconds * 1e6, 100 * out.efficiency);
  return out;
}

void prefer_fewer_slices_among_ties(std::vector<ModelChoice>& sorted) {
  if (sorted.empty()) return;
  const double limit = sorted.front().predicted.seconds * (1 + kTie);
  const auto head =
      std::find_if(sorted.begin(), sorted.end(), [&](const ModelChoice& c) { return c.predicted.seconds > limit; });
  // Among ties: fewer slices, then the deeper pipeline. Where the model sees latency as
  // hidden either way, the deeper one was faster when measured: on the H100's deep-k and
  // skinny set (tests/data/gemm_shape_h100_deep.json) STAGES 5 over 3 at the same tile and
  // split had a geometric mean of 1.15 (1.35 with 32x32 tiles, 1.00 with 128x128), and a
  // depth that costs occupancy predicts slower, so it is no tie.
  std::stable_sort(sorted.begin(), head, [](const ModelChoice& a, const ModelChoice& b) {
    const auto ka = std::make_pair(get(a.values, "SPLITK", 1), -get(a.values, "STAGES", 0));
    const auto kb = std::make_pair(get(b.values, "SPLITK", 1), -get(b.values, "STAGES", 0));
    return ka < kb;
  });
}

bool shape_model_applies(const Variant& v) {
  return v.op == "gemm" && v.backend == BackendKind::Cuda && v.param("BM") && v.param("BN") && v.param("WM") &&
         v.param("WN");
}

namespace {

// The tile configurations the model ranks (values of its parameters other than SPLITK):
// the variant's metadata candidates that agree with the fixed values, or where it gives
// none (or none agrees) every combination of the domains that tiles consistently (each
// level divides the one above, a warp tile holds 32 thread tiles).
std::vector<ParamValues> tile_candidates(const Variant& v, const ParamValues& base,
                                         const std::vector<std::string>& fixed) {
  auto is_fixed = [&](const std::string& n) { return std::find(fixed.begin(), fixed.end(), n) != fixed.end(); };
  std::vector<ParamValues> out;
  for (const auto& c : v.candidates) {
    ParamValues pv = base;
    bool agrees = true;
    for (const auto& [k, x] : c) {
      if (k == "SPLITK") continue;
      if (is_fixed(k) && base.count(k) && base.at(k) != x) agrees = false;
      pv[k] = x;
    }
    if (agrees) out.push_back(std::move(pv));
  }
  if (!out.empty()) return out;
  out = {base};
  for (const char* name : kTileParams) {
    const ParamDef* d = v.param(name);
    if (!d || is_fixed(name)) continue;
    std::vector<ParamValues> next;
    for (const auto& pv : out)
      for (long long x : d->values) {
        auto t = pv;
        t[name] = x;
        next.push_back(std::move(t));
      }
    out = std::move(next);
  }
  std::erase_if(out, [](const ParamValues& pv) {
    const long long bm = get(pv, "BM", 1), bn = get(pv, "BN", 1), wm = get(pv, "WM", bm), wn = get(pv, "WN", bn);
    if (bm % wm || bn % wn) return true;
    if (pv.count("TM") && pv.count("TN")) {
      const long long tm = pv.at("TM"), tn = pv.at("TN");
      if (wm % tm || wn % tn || (wm / tm) * (wn / tn) != 32) return true;
    }
    return (bm / wm) * (bn / wn) * 32 > 1024;
  });
  return out;
}

}  // namespace

std::vector<ModelChoice> rank_gemm_configs(const Variant& v, const Device& dev, const Sizes& s, Precision p,
                                           const ParamValues& base, const std::vector<std::string>& fixed,
                                           std::size_t top) {
  std::vector<ModelChoice> ranked;
  if (!shape_model_applies(v) || !s.count("m") || !s.count("n") || !s.count("k")) return ranked;
  GemmShape g;
  g.m = static_cast<double>(s.at("m"));
  g.n = static_cast<double>(s.at("n"));
  g.k = static_cast<double>(s.at("k"));
  g.elem_bytes = p == Precision::D ? 8 : 4;
  g.beta = !s.count("form") || s.at("form") == 0;  // the scaled form reads C; @plain does not
  g.ta = s.count("ta") && s.at("ta") != 0;
  g.tb = s.count("tb") && s.at("tb") != 0;
  const ModelDevice md = ModelDevice::of(dev.info());
  const double F = fma_per_clock(v, p);
  const ParamDef* split = v.param("SPLITK");
  const bool split_open = split && std::find(fixed.begin(), fixed.end(), "SPLITK") == fixed.end();
  const std::vector<long long> splits = split_open ? split->values : std::vector<long long>{get(base, "SPLITK", 1)};
  // The pipeline depth where the variant has one: its domain unless fixed.
  const ParamDef* depth = v.param("STAGES");
  const bool depth_open = depth && std::find(fixed.begin(), fixed.end(), "STAGES") == fixed.end();
  const std::vector<long long> depths =
      depth_open ? depth->values : std::vector<long long>{get(base, "STAGES", depth ? depth->default_for(p) : 0)};
  for (const auto& tile : tile_candidates(v, base, fixed))
    for (long long sk : splits)
      for (long long st : depths) {
        ModelChoice c;
        c.values = tile;
        if (split) c.values["SPLITK"] = sk;
        if (depth) c.values["STAGES"] = st;
        c.predicted = predict_gemm(c.values, g, md, F);
        ranked.push_back(std::move(c));
      }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const ModelChoice& a, const ModelChoice& b) { return a.predicted.seconds < b.predicted.seconds; });
  // The variant's constraints in ranking order, until `top` configurations pass and none
  // left can tie with the best that passed: most candidates are never checked.
  std::vector<ModelChoice> out;
  for (auto& c : ranked) {
    if (!std::isfinite(c.predicted.seconds)) break;
    if (out.size() >= top && c.predicted.seconds > out.front().predicted.seconds * (1 + kTie)) break;
    if (v.violated_constraint(dev, s, p, c.values).empty()) out.push_back(std::move(c));
  }
  prefer_fewer_slices_among_ties(out);
  if (out.size() > top) out.resize(top);
  return out;
}

}  // namespace hetbench::gemm_model
