// A variant is one implementation of an op: a kernel described by metadata, a host
// function, or a vendor library call. All kinds go through the same runner.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/device.hpp"
#include "hetbench/expr.hpp"
#include "hetbench/op.hpp"

namespace hetbench {

struct ParamDef {
  std::string name;
  std::vector<long long> values;  // the domain
  long long def = 0;
  std::string doc;
  // Metadata may give a default per precision ("default": {"S": 8, "D": 4}); `def` holds
  // the first, for listings and precisions without their own.
  std::map<Precision, long long> def_by_precision = {};
  long long default_for(Precision p) const {
    auto it = def_by_precision.find(p);
    return it == def_by_precision.end() ? def : it->second;
  }
};
using ParamValues = std::map<std::string, long long>;
std::string format_params(const ParamValues& p);  // "VW=4;WG=256"
// Parameter values from a JSON object of NAME: integer (a tuning database entry, a
// tuning's recorded starts); throws Error "WHERE: key 'KEY': ..." naming the bad key.
ParamValues params_from_json(const nlohmann::json& j, const std::string& where, const std::string& key);

using BufferMap = std::map<std::string, Buffer*>;

// A variant prepared for one device, problem and parameter set: run() issues the work
// on the device (asynchronously where the device allows).
class Instance {
 public:
  virtual ~Instance() = default;
  virtual void run() = 0;
  // What a variant keeps outside the operand buffers (a transfer's host memory, a peer
  // device's buffer): poisoned with the outputs before every run, and handed to
  // validation beside the downloaded outputs.
  virtual void reset() {}
  virtual void collect(Outputs&) {}
};

// A kernel described by metadata, hetbench's own host code, or a vendor library call.
enum class VariantKind { Kernel, Host, Library };
std::string to_string(VariantKind k);  // "kernel", "host", "library"
std::optional<VariantKind> parse_variant_kind(std::string_view s);
template <class Json>
void to_json(Json& j, VariantKind k) {
  j = to_string(k);
}

class Variant {
 public:
  virtual ~Variant() = default;
  std::string op, name;
  BackendKind backend = BackendKind::Host;
  VariantKind kind = VariantKind::Kernel;
  std::string description;
  std::string origin;   // metadata file or library name
  std::vector<Precision> precisions;
  std::vector<ParamDef> params;
  std::vector<Expr> constraints;      // over params, sizes and device values
  std::vector<std::string> axes;      // the op's opt-in axes this variant implements (Axis::opt_in)
  std::vector<std::string> required_ext;  // device extensions
  // Configurations to consider first (metadata "candidates"): each names some parameters,
  // every value in its domain; the GEMM shape model ranks these, where given, instead of
  // the whole domain (docs/metadata-format.md).
  std::vector<ParamValues> candidates;
  // Set where whether the variant can run is only known at run time (an offload runtime
  // that finds no device): empty when it can run on the device, otherwise why not. A
  // point it refuses is skipped with that reason, like a violated constraint.
  std::function<std::string(const Device&)> unavailable;

  std::string id() const { return to_string(backend) + "/" + op + "/" + name; }
  const ParamDef* param(const std::string& n) const;
  ParamValues defaults() const;
  // Empty when the variant can run on the device in this precision; otherwise why not.
  std::string unsupported_reason(const Device& dev, Precision p) const;
  // Empty when the problem sets no opt-in axis of the op that this variant does not
  // implement; otherwise which one (Axis::opt_in).
  std::string missing_axis(const Sizes& s) const;
  // Empty when the parameters satisfy every constraint and missing_axis is empty;
  // otherwise the failing one.
  std::string violated_constraint(const Device& dev, const Sizes& s, Precision p, const ParamValues& pv) const;
  virtual std::unique_ptr<Instance> prepare(Device& dev, const Problem& prob, const BufferMap& bufs,
                                            const ParamValues& pv) const = 0;
};

// Values that metadata expressions can name besides sizes and params.
Vars device_vars(const DeviceInfo& d, Precision p);
// The device's values and a problem's sizes of `op`, as metadata expressions read them:
// every choice axis's keys present, the absent ones of an optional choice at 0.
Vars problem_vars(const DeviceInfo& d, const std::string& op, const Sizes& s, Precision p);

void register_variant(std::shared_ptr<Variant> v);
// Adds every *.json kernel description found under a file or folder; throws Error
// naming the file and key on malformed metadata.
void load_variant_metadata(const std::string& path);
// Registers a kernel variant from a metadata object built in code (foreign formats such
// as GEMMbench entries are translated into it); files are relative to `dir`.
std::shared_ptr<Variant> register_variant_json(const nlohmann::ordered_json& j, const std::string& dir,
                                               const std::string& origin);
// The same without registering it: to check a translated description (src/interop).
std::shared_ptr<Variant> parse_variant_json(const nlohmann::ordered_json& j, const std::string& dir,
                                            const std::string& origin);
// All variants: the built-in ones, kernel metadata from the kernel folder and from
// $HETBENCH_KERNELS and --kernels paths.
const std::vector<std::shared_ptr<Variant>>& all_variants();
std::vector<std::shared_ptr<Variant>> variants_for(const std::string& op);
// Library baselines that this build left out, with the reason (for `hetbench list`).
std::vector<std::pair<std::string, std::string>>& missing_baselines();

// Folder of the built-in kernels: $HETBENCH_KERNEL_DIR, <exe>/../kernels,
// <exe>/../share/hetbench/kernels or the source tree.
std::string kernel_dir();
// A folder shipped with hetbench ("kernels", "bench"), found the same way.
std::string data_dir(const std::string& sub);
void add_kernel_path(const std::string& path);  // from --kernels, before first use
// The paths given with add_kernel_path, in order: a worker process is handed them.
std::vector<std::string> kernel_paths();

template <class V>
struct VariantRegistrar {
  template <class... A>
  explicit VariantRegistrar(A&&... a) {
    register_variant(std::make_shared<V>(std::forward<A>(a)...));
  }
};

}  // namespace hetbench
