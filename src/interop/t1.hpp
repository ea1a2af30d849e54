// Kernel variants as T1 documents: the tuning-problem description of the Auto-Tuning
// Association's TuningSchema (as Kernel Tuner carries it: kernel_tuner/schema/T1/1.0.0),
// and T1 documents back into hetbench kernel metadata (docs/metadata-format.md).
// docs/interop.md says what maps to what.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "kernel/kernel_variant.hpp"

namespace hetbench {

// Where the T1 document says the kernel source is. Kernel Tuner looks for KernelFile
// beside the T1 file first.
struct T1Source {
  std::string kernel_file;            // KernelFile as written into the document
  std::vector<std::string> includes;  // files hetbench pastes before it (absolute paths)
};

// The T1 document of a kernel variant; throws Error naming the variant's metadata file
// and the expression that has no Python translation.
nlohmann::ordered_json variant_to_t1(const KernelVariant& v, const T1Source& src);

// A tuning problem Kernel Tuner can run as written (tune_kernel_T1): the variant at one
// problem (precision, sizes) on one device, whose limits and the problem's values are bound
// into the conditions, the arguments and the source. What the document cannot say (more
// than one launch per execution, launch-sized local memory, scalars that change with the
// parameters) is refused with the reason.
struct T1Problem {
  Precision prec = Precision::S;
  Sizes sizes;
  DeviceInfo device;
  std::string strategy = "brute_force";  // Search.Name
  long long budget = 0;                  // Budget: ConfigurationCount, when > 0
  std::uint64_t seed = 1;                // the problem hetbench builds for the scalars' values
};
struct T1Runnable {
  nlohmann::ordered_json doc;
  std::string source;  // the kernel as compiled: prelude, the problem's defines, the source
};
T1Runnable variant_to_runnable_t1(const KernelVariant& v, const T1Problem& p, const std::string& kernel_file);

// A T1 document as hetbench metadata. The source named by KernelFile is looked up beside
// the T1 file, then as given; `source` receives its path. `name`, when not empty,
// replaces the variant's name. A document without hetbench's block (Kernel Tuner's own
// examples) declares its op from its arguments (interop/t1_foreign.hpp), named `op_name`
// or after its benchmark; `source_text` is then the source to write (as Kernel Tuner
// compiles it) and `notes` what the import dropped or assumed. Throws Error naming the
// file, the key and the expression.
struct T1Import {
  nlohmann::ordered_json metadata;
  std::filesystem::path source;
  std::string source_text;         // empty: copy `source` as it is
  std::vector<std::string> notes;
};
T1Import t1_to_metadata(const nlohmann::ordered_json& t1, const std::filesystem::path& t1_file,
                        const std::string& name = "", const std::string& op_name = "");

}  // namespace hetbench
