// An op is the mathematics: problem sizes, seeded inputs, a higher-precision reference,
// operation and byte counts, and an error bound. One source file in src/ops/ per op.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/op_rules.hpp"
#include "hetbench/precision.hpp"

namespace hetbench {

class Device;
struct DeviceInfo;
class Variant;

// A problem's axes by name (usable in metadata expressions): its dimensions, and the
// choices the op's signature describes (GEMM's layout, the double-word storage), stored
// as the integers Axis gives them. An op that reads its problem from an input (spmv: a
// Matrix Market file or a generator spec) names the input too, and its dimensions are
// the input's (rows, cols, nnz, ...).
struct Sizes : std::map<std::string, std::int64_t> {
  using std::map<std::string, std::int64_t>::map;
  std::string input;  // e.g. "gen:poisson3d:n=128" or "m.mtx"; empty when sizes alone say it
  bool operator==(const Sizes&) const = default;
};
// "n=1000", "m=64,n=32,k=16" or "gen:poisson3d:n=8 (rows=512,...)"
std::string format_sizes(const Sizes& s);
// As recorded: the dimensions, plus "input" when there is one.
void to_json(nlohmann::json& j, const Sizes& s);

// One axis of an op's problems: a dimension (an integer >= 0) or a choice among named
// values. A choice is stored in Sizes either under its own name, holding the index of
// the value (GEMM's ta: 0 = N, 1 = T), or, with `indicators`, as one 0/1 key per value
// after the first, named after the value (storage aos/soa/d64: keys soa and d64), so
// that metadata expressions read it as flags. Absent keys mean the first value.
struct Axis {
  enum class Kind { Dimension, Choice };
  std::string name;
  Kind kind = Kind::Dimension;
  std::vector<std::string> values;  // Choice: the allowed values, the default first
  bool indicators = false;
  // Written into Sizes only when a size token names a value (so that records of problems
  // that never name it stay as they were). An optional dimension's absence means
  // `absent_value`.
  bool optional = false;
  std::int64_t absent_value = 0;
  // Opt-in: only variants that declare the axis (Variant::axes) run a problem whose size
  // key is present and differs from `absent_value`; for the others the point is skipped
  // with the reason, like a violated constraint (GEMM's @iter: a timed call that multiplies
  // several times is a property of the variant's code, not of every kernel).
  bool opt_in = false;
  std::string doc;
  // The precisions in which the axis means something (empty: all). The double-word
  // storage is a choice of DF and DD only: S and D problems carry its key (records stay
  // comparable), and a problem's label leaves it out there (meaningful_sizes).
  std::vector<Precision> precisions;

  static Axis dimension(std::string name, std::string doc = "");
  // A dimension that size tokens may leave out (then `absent` is meant) and that only
  // the variants declaring it run (opt_in).
  static Axis opt_in_dimension(std::string name, std::int64_t absent, std::string doc);
  // This axis, meaningful only in `p`.
  Axis only_in(std::vector<Precision> p) && {
    precisions = std::move(p);
    return std::move(*this);
  }
  static Axis choice(std::string name, std::vector<std::string> values, std::string doc = "", bool indicators = false,
                     bool optional = false);
  std::vector<std::string> keys() const;  // the Sizes keys the axis uses
  std::size_t index(const Sizes& s) const;  // a choice's value index (0 when absent)
  template <class E>
  E get(const Sizes& s) const {
    return static_cast<E>(index(s));
  }
  const std::string& value(const Sizes& s) const { return values.at(index(s)); }
  void set(Sizes& s, std::size_t index) const;
  // Case-insensitive; false when the value is not one of this choice's.
  bool set(Sizes& s, const std::string& value) const;
};

enum class Access { In, Out, InOut };
enum class Elem { Real, Int };  // the precision's storage type, or int32

// An operand as kernels name it. The problem holds it with this name, kind and element
// type; an InOut operand may be Out in a problem whose axes say its old value is unused.
struct OperandSpec {
  std::string name;
  bool array = true;
  Elem elem = Elem::Real;
  Access access = Access::In;
};

// What an op's problems consist of, known without building one.
struct OpSignature {
  std::vector<OperandSpec> operands;
  std::vector<Axis> axes;

  const OperandSpec* operand(const std::string& name) const;
  const Axis* axis(const std::string& name) const;
  std::vector<std::string> size_keys() const;  // every key sizes may hold
  // Applies a size-token suffix naming a choice's value ("soa", "d64"); false if none has it.
  bool set_choice(Sizes& s, const std::string& value) const;
  // Empty when the sizes are a point of this signature; otherwise what is wrong.
  std::string check(const Sizes& s) const;
};

// Operand and output bytes on the host. resize() leaves new bytes uninitialised (every
// user fills them whole: seeded data, a download): a value-initialising resize of a 2 GiB
// operand is one thread zeroing and faulting in every page before the parallel fill or the
// copy writes them again. Where zeros are meant, say so: assign(n, 0) or resize(n, 0).
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using Bytes = std::vector<unsigned char, DefaultInitAllocator<unsigned char>>;

struct ArrayOperand {
  std::string name;
  bool is_int = false;  // int32 elements; otherwise the precision's storage type
  Access access = Access::In;
  std::size_t count = 0;          // elements
  std::size_t elem_bytes = 0;
  Bytes host;  // initial contents of In and InOut arrays
  std::size_t bytes() const { return count * elem_bytes; }
};

struct ScalarOperand {
  std::string name;
  bool is_int = false;
  double value = 0;  // integers are exact up to 2^53
};

using Outputs = std::map<std::string, Bytes>;

struct Validation {
  double max_ratio = 0;       // max over checked elements of error / bound; <= 1 passes
  double max_abs_err = 0;
  double max_rel_err = 0;     // relative to |reference|, for information
  std::size_t checked = 0, nan = 0, unwritten = 0, over_bound = 0;
  std::string bound;          // the bound that was applied, in words
  std::string note;           // e.g. "sampled 4096 of 16M elements"
  bool passed() const { return nan == 0 && unwritten == 0 && over_bound == 0 && max_ratio <= 1.0; }
};
nlohmann::json to_json(const Validation& v);

class Problem {
 public:
  virtual ~Problem() = default;
  Precision prec = Precision::S;
  Sizes sizes;
  std::vector<ArrayOperand> arrays;
  std::vector<ScalarOperand> scalars;
  double flops = 0;       // floating-point operations of one execution
  double min_bytes = 0;   // fewest bytes one execution must move through device memory
  // Bytes the memory system moves in one execution when it reads and writes in granules
  // of g bytes (a GPU's 32-byte sectors, a CPU's 64-byte lines: docs/memory-system.md);
  // empty where that is min_bytes. Recorded as raw_bytes and raw_gbs.
  std::function<double(std::size_t g)> raw_bytes;
  // Loads of one execution that each wait for the one before (a pointer chase); > 0
  // makes the record's headline ns_per_load = median / dependent_loads.
  double dependent_loads = 0;
  nlohmann::json features = nlohmann::json::object();  // recorded with every point

  const ArrayOperand& array(const std::string& name) const;
  const ScalarOperand* scalar(const std::string& name) const;
};

class Op {
 public:
  virtual ~Op() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<Precision> precisions() const { return {Precision::S, Precision::D}; }
  // Operands and axes: static, so that metadata and listings need no problem.
  virtual const OpSignature& signature() const = 0;
  // One --size token ("1000", "2^20", "1e6", ranges, then any @value of a choice axis) to a
  // list of problems; throws Error.
  virtual std::vector<Sizes> parse_sizes(const std::string& spec) const;
  // The kind of input the op reads its problems from ("matrix" for spmv), or "" when
  // --size alone gives them.
  virtual std::string input_kind() const { return ""; }
  // The op's one problem as a --size token, where its operands' sizes are fixed (an op
  // declared by a T1 problem, ops/declared_op.hpp); run measures it when no --size is
  // given. Empty: --size names the problems.
  virtual std::string fixed_size() const { return ""; }
  // One input token (a file or generator spec) to a problem: reads or generates the
  // input (with the experiment's seed) and returns its dimensions; throws Error naming
  // the file, line or key on bad input.
  virtual std::vector<Sizes> parse_input(const std::string& token, std::uint64_t seed) const;
  // The file or generator an input token reads: the token less what the op adds to it
  // (spmv: a storage suffix, "m.mtx@soa" reads m.mtx). Replay checks this file's hash.
  virtual std::string input_source(const std::string& token) const { return token; }
  // What the problem is like, known without building it (the tuning database's problem
  // class, `--variant auto`): the sizes by default; an op that reads an input summarizes
  // it (spmv: the row-length statistics of its matrix).
  virtual nlohmann::json features(const Sizes& s, std::uint64_t seed) const;
  // Bytes the problem needs on the device, without building it (memory checks up front).
  // A real number, so that sizes near 2^63 times element sizes cannot wrap around into a
  // small count that passes the check (it is compared with memory, never allocated).
  virtual double device_bytes(const Sizes& s, Precision p) const = 0;
  // Whether the problem fits the device beyond its total bytes (device_bytes, checked by
  // plan): empty, or one error naming the size that does not fit: a buffer larger than
  // the largest allocation (transfer, copy_strided's offset and stride, pchase's working
  // set) or more local memory per work-group than the device has (bank_conflict's tile).
  virtual std::string device_fit(const Sizes&, Precision, const DeviceInfo&) const { return ""; }
  // Empty when the op forms a problem of these sizes in precision p; otherwise why not
  // (a choice that means nothing in p): bad input, refused before anything runs.
  virtual std::string problem_misfit(const Sizes&, Precision) const { return ""; }
  // The problem, checked against the signature (sizes in, operands out); throws Error.
  std::unique_ptr<Problem> make_problem(const Sizes& s, Precision p, std::uint64_t seed) const;
  virtual Validation validate(const Problem& prob, const Outputs& out) const = 0;

  // What tuning asks of the op (hetbench/op_rules.hpp, docs/tuning-db.md).
  // The features a problem's class is made of: by default the signature's dimensions in
  // the sizes (choices such as a layout are keys of their own); an op that reads an input
  // takes the `features` it summarized from it (spmv: the row-length statistics).
  virtual nlohmann::json class_features(const Sizes& s, const nlohmann::json& features) const;
  // The class of a problem from those features (or from the features a database entry
  // stored): by default log2 of each numeric feature, by name. Throws Error naming a
  // feature the class needs that is missing.
  virtual ClassCoords problem_class(const nlohmann::json& features) const;
  // How far (in the classes' distance) an entry may be and still serve a problem; farther,
  // the variant's defaults (and auto's rule) are the better guess.
  virtual double class_reach() const { return 2; }
  // The own variants `--variant auto` tries first for a problem with these features.
  virtual VariantPreference preferred_variants(const nlohmann::json& /*features*/) const { return {}; }
  // Parameter values for variant `v` from the problem's features, for the parameters the
  // op has a rule for (the caller keeps those in the variant's domain).
  virtual std::map<std::string, ParamRule> param_rules(const Variant& /*v*/, const nlohmann::json& /*features*/) const {
    return {};
  }
  // Where nothing is tuned near: configurations of `v` that a model of the op ranks best
  // first for the problem on `dev`, at most `top`, each passing the variant's constraints,
  // the parameters named in `fixed` kept at their `base` values; empty where the op has no
  // model for the variant (GEMM: the shape model of warp-tiled CUDA kernels). Run and auto
  // take the first, tune starts from them.
  virtual std::vector<ModelledConfig> modelled_configs(const Variant& /*v*/, const Device& /*dev*/, const Sizes& /*s*/,
                                                       Precision /*p*/, const std::map<std::string, long long>& /*base*/,
                                                       const std::vector<std::string>& /*fixed*/,
                                                       std::size_t /*top*/) const {
    return {};
  }
  virtual OpRates rates() const { return {}; }

 protected:
  virtual std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const = 0;
};

// Ops register themselves from their source files (static registrars).
void register_op(std::unique_ptr<Op> op);
// A record's sizes as a label shows them: without the keys of the op's axes that mean
// nothing in `precision` (the double-word storage in S and D), and each choice kept as 0/1
// flags as one key naming the value (storage=soa, direction=d2h); an op or precision
// hetbench does not know keeps every key.
nlohmann::json meaningful_sizes(const std::string& op, const std::string& precision, nlohmann::json sizes);
const Op& find_op(const std::string& name);  // throws Error listing the ops
const Op* op_named(const std::string& name);  // null when no op has the name
// The precisions a run measures when none are named: S and D where the op has them, else
// every precision it has (transfer: S, "one run per size"; an int32-only op: I32).
std::vector<Precision> default_precisions(const Op& op);
// default_precisions of the op so named; S and D for a name no op has (planning names it).
std::vector<Precision> default_precisions(const std::string& op);
std::vector<const Op*> all_ops();

template <class T>
struct OpRegistrar {
  OpRegistrar() { register_op(std::make_unique<T>()); }
};

}  // namespace hetbench
