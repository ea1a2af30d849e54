// The GEMM shape model: for a tiled GEMM kernel and a problem that the tuning database
// knows nothing near, predict each candidate configuration's time from the device's
// compute units and the problem's m, n, k, and take the best-predicted one
// (docs/tuning-db.md, "The GEMM shape model").
//
// It applies to any CUDA GEMM variant whose parameters follow the metadata vocabulary of
// warp-tiled kernels (docs/metadata-format.md): BM, BN (a block's tile of C), WM, WN (a
// warp's), TM, TN (a thread's, SIMT kernels), BK, STAGES (the k-tile and the
// shared-memory stages) and SPLITK (slices of k summed by the last slice). It names no
// variant: what it knows of a kernel is those parameters, its metadata "candidates" (the
// tiles it ranks; without them, every consistent combination of the domains) and its
// constraints.
//
// Per configuration (all per compute unit, "SM"):
//   occupancy  blocks resident at once: threads, registers (estimated from the
//              accumulators) and shared memory (the k-tile stages) of a block;
//   waves      the busiest SM's blocks, ceil(tiles · SPLITK / SMs), run occupancy at a
//              time; a wave of b blocks advancing one k-step costs
//              max(b·(BM·BN / (F·a) + c), b·(BM + BN)·bytes / L2) / h(b) cycles, where F
//              is the SM's multiply-adds per cycle, a the share of issue slots that are
//              multiply-adds (thread tile TM×TN against its shared loads and its share of
//              the k-tile's copy, which depends on the layout: below; mma, the warp tile
//              against its fragments), c a block's cycles per k-step beyond them, L2 the
//              SM's share of L2 bandwidth and h the latency hidden by b blocks' warps;
//   fixed      a block's prologue and epilogue (C written, and with SPLITK the partial
//              tile out and, by the last slice, SPLITK partials read back), and the launch.
// A configuration whose accumulators and fragments would pass 255 registers a thread is
// never predicted (it would spill). The constants are fitted (a random search on the sum
// over the sets of the logarithms of the geometric mean and the worst case) to the
// measurements kept in tests/data/: gemm_shape_h200.json (scripts/gemm-shape-bench calib:
// 36 problems, 128-8192, NN, regblock S and D, dmma D), gemm_shape_h100_deep.json
// (scripts/gemm-shape-bench deep: 7 deep-k and skinny problems, dmma D with SPLITK 1-32 and
// STAGES 3 and 5), gemm_shape_h100_layouts.json (scripts/gemm-shape-bench lcalib: 32
// problems in every layout, odd and even leading dimensions, regblock S and dmma D with
// STAGES 3-5) and gemm_shape_h100_picks.json (21 problems of bench/gemm/shapes.txt and
// holdout-shapes.txt where two fits' choices differed, each measured as `auto` chose it,
// as a ratio to cuBLAS in the same run); the H100 SXM has the H200's SMs and clock. The
// configuration predicted best reaches, of the best measured one, 0.969 / 0.900 / 0.950 /
// 0.980 (geometric mean) and 0.856 / 0.802 / 0.860 / 0.821 (worst) on these four;
// tests/ops/test_gemm_shape_model.cpp keeps it so.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"

namespace hetbench::gemm_model {

// The machine as the model sees it.
struct ModelDevice {
  int sms = 132;
  double clock_hz = 1.98e9;
  double regs_per_sm = 65536;
  int threads_per_sm = 2048;
  int blocks_per_sm = 32;
  double smem_per_sm = 228 * 1024;
  double l2_bytes_per_clock = 64; // one SM's share of L2 bandwidth, as the tiles see it
  double dram_bytes_per_s = 4.0e12;
  double launch_s = 4e-6;           // a launch, start to end, empty
  double block_fixed_clocks = 1754;  // a block's prologue: the first k-tile's latency
  double warps_to_hide = 10.78;     // resident warps from which latency is hidden ...
  double hiding_exponent = 0.524;  // ... as (warps / warps_to_hide)^hiding_exponent below
  double sustained = 0.6905;         // the share of the SM's multiply-add rate a main loop sustains
  double step_clocks = 7.513;        // a block's k-step beyond its multiply-adds (loop, barrier share)
  double mma_fragment_slots = 1.27; // mma: issue slots per fragment element a warp loads per k-step
  // SIMT, issue slots of a k-tile's global-to-shared copy beyond the loop's, by the
  // operand's path (its stored rows along k or along m/n; its leading dimension a multiple
  // of V, the elements of a 16-byte access, or not): along k and a multiple of V, per slot
  // of V (one 16-byte load, V transposed scalar stores); along k otherwise, per element
  // (the element path: a load and a store each); along m/n, not a multiple of V, per slot
  // (V scalar loads, one 16-byte store); along m/n and a multiple of V, none.
  double transposed_slot_slots = 86.38;
  double element_slots = 27;
  double scalar_slot_slots = 2.33;
  static ModelDevice of(const DeviceInfo& d);
};

struct GemmShape {
  double m = 0, n = 0, k = 0;
  int elem_bytes = 4;
  bool beta = false;  // C is read (beta != 0)
  bool ta = false, tb = false;  // op(A) = A^T (A stored k×m), op(B) = B^T (B stored n×k)
};

struct Prediction {
  double seconds = 0;
  int occupancy = 0;     // blocks per SM
  double waves = 0;      // blocks per SM / occupancy, on the busiest SM
  double efficiency = 0; // the wave's rate against F
  std::string why;       // "64x64 tiles, 256 blocks x SPLITK 2, 2.0 waves of 8 per SM, ..."
};

// Multiply-adds per cycle per SM at the variant's best: a tensor-core variant (an mma
// SHAPE parameter) or SIMT, by precision. Devices other than NVIDIA's scale by clock and SMs.
double fma_per_clock(const Variant& v, Precision p);

// The predicted time of one configuration (the values of the vocabulary above; those the
// variant lacks take neutral values).
Prediction predict_gemm(const ParamValues& pv, const GemmShape& g, const ModelDevice& d, double fma_per_clock);

struct ModelChoice {
  ParamValues values;  // every parameter of the variant
  Prediction predicted;
};

// Relative difference of predicted times below which two configurations tie.
inline constexpr double kTie = 0.02;

// Reorders configurations sorted by predicted time: those within kTie of the first are no
// evidence apart, and among them the fewest slices (less traffic, the plain summation
// order) come first, in their order otherwise (the faster predicted, or for equal times
// the candidates' order).
void prefer_fewer_slices_among_ties(std::vector<ModelChoice>& sorted);

// Whether the model applies: a CUDA GEMM variant with BM, BN, WM and WN parameters.
bool shape_model_applies(const Variant& v);

// The variant's configurations ranked by predicted time, best first, at most `top`:
// the parameters named in `fixed` keep those values (the command line's), the model's
// (BM, BN, WM, WN, TM, TN from the candidates, SPLITK over its domain) vary, the rest keep
// `base`; every configuration returned passes the variant's constraints on this device and
// problem. Predictions within kTie of the best tie (prefer_fewer_slices_among_ties).
std::vector<ModelChoice> rank_gemm_configs(const Variant& v, const Device& dev, const Sizes& s, Precision p,
                                           const ParamValues& base, const std::vector<std::string>& fixed,
                                           std::size_t top = 1);

}  // namespace hetbench::gemm_model
