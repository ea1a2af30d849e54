// T1 documents hetbench did not write (Kernel Tuner's own examples): no `hetbench` block says
// which op the kernel computes, so the import declares one from the T1 arguments
// (ops/declared_op.hpp) and launches the kernel as Kernel Tuner's tune_kernel_T1 does.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interop/t1_reader.hpp"

namespace hetbench {

// The op's name: `given`, else General.BenchmarkName (else the kernel's name) with every
// character other than a letter, digit or _ turned into _.
std::string t1_declared_op_name(const nlohmann::ordered_json& t1, const std::string& given, const T1Reader& r);

// Fills `meta` (which holds name, op, source, backend, params and constraints already) with
// the op's declaration, the precision, the launch, Kernel Tuner's defines and the constant
// memory symbols; `notes` receives what the import drops or assumes, for stderr.
void t1_foreign_to_metadata(nlohmann::ordered_json& meta, const nlohmann::ordered_json& t1, const T1Reader& r,
                            std::vector<std::string>& notes);

// The source as Kernel Tuner's CUDA backends compile it: kernels found by their plain names,
// which hetbench's CUDA programs need as extern "C" (wrapped unless the file says it).
std::string t1_foreign_source(const std::string& text, bool cuda, const std::string& file);

}  // namespace hetbench
