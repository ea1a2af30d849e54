// What GEMM tells the tuning layer (hetbench/op_rules.hpp, docs/tuning-db.md): its problem
// classes and the kernel order of `--variant auto`. The configuration of a warp-tiled
// kernel where nothing is tuned near is the GEMM shape model's (tuning/gemm_shape_model),
// which reads the kernel's parameters, not the op.
#pragma once

#include <nlohmann/json.hpp>

#include "hetbench/op_rules.hpp"

namespace hetbench::gemm_detail {

// log2 of m, n, k and whether a dimension leaves a partial 64-wide tile (which costs the
// tiled kernels their edge handling); the label buckets each dimension in half octaves
// and names the shape (square, tall, wide, skinny, flat).
ClassCoords gemm_class(const nlohmann::json& features);

// The own variant that measured best with its defaults on the H200 and NVIDIA's OpenCL,
// first that exists for the device and precision (dmma is D only, the dw kernels DF/DD
// only, so one order serves every precision).
VariantPreference gemm_preference();

}  // namespace hetbench::gemm_detail
