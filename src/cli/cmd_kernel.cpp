// hetbench kernel export-t1 VARIANT [--out FILE] [--size SIZE --precision P --device DEV]
// and kernel import-t1 FILE --out DIR [--name NAME]: kernel variants as T1 tuning-problem
// descriptions, with --size one Kernel Tuner runs as written (docs/interop.md).
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "hetbench/error.hpp"
#include "interop/t1.hpp"
#include "util/json_file.hpp"

namespace hetbench::cli {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream f(file);
  f << text;
  if (!f) throw Error(fmt::format("cannot write '{}'", file.string()));
}

const KernelVariant& find_kernel_variant(const std::string& which) {
  std::vector<const Variant*> found;
  std::string ids;
  for (const auto& v : all_variants()) {
    if (v->kind == VariantKind::Kernel) ids += (ids.empty() ? "" : ", ") + v->id();
    if (v->id() == which) {
      found = {v.get()};
      break;
    }
    if (v->name == which) found.push_back(v.get());
  }
  if (found.size() > 1) {
    std::string list;
    for (const auto* v : found) list += (list.empty() ? "" : ", ") + v->id();
    throw Error(fmt::format("variant '{}' is ambiguous: give one of {}", which, list));
  }
  if (found.empty()) throw Error(fmt::format("unknown variant '{}': kernel variants are {}", which, ids));
  const auto* k = dynamic_cast<const KernelVariant*>(found.front());
  if (!k)
    throw Error(fmt::format("{} is a {} variant: only kernel variants have a T1 description", found.front()->id(),
                            to_string(found.front()->kind)));
  return *k;
}

// The files the metadata pastes before the kernel, as absolute paths, resolved as
// src/kernel/metadata.cpp resolves them (beside the metadata, then under the kernel root).
std::vector<std::string> metadata_includes(const KernelVariant& v) {
  std::vector<std::string> out;
  if (fs::path(v.origin).extension() != ".json" || !fs::exists(v.origin)) return out;
  const auto j = read_json_file<ojson>(v.origin);
  if (!j.contains("includes")) return out;
  for (const auto& inc : j["includes"]) {
    fs::path p = fs::path(v.origin).parent_path() / inc.get<std::string>();
    if (!fs::exists(p)) p = fs::path(kernel_dir()) / inc.get<std::string>();
    out.push_back(fs::absolute(p).lexically_normal().string());
  }
  return out;
}

int export_t1(const std::string& which, const std::string& out) {
  const KernelVariant& v = find_kernel_variant(which);
  if (out.empty()) {
    // On stdout the document points at the installed source and its includes.
    T1Source src{fs::absolute(v.source_path).lexically_normal().string(), metadata_includes(v)};
    fmt::print("{}\n", variant_to_t1(v, src).dump(2));
    return 0;
  }
  // Beside a file, the source goes along as hetbench builds it (includes pasted in), so
  // that the pair is self-contained, as Kernel Tuner expects KernelFile beside the T1 file.
  const fs::path file(out);
  const fs::path source = file.parent_path() / fs::path(v.source_path).filename();
  if (fs::exists(source) && fs::equivalent(source, v.source_path))
    throw Error(fmt::format("--out {}: the kernel source would overwrite {} itself; choose another folder", out,
                            v.source_path));
  const ojson doc = variant_to_t1(v, T1Source{source.filename().string(), {}});
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  write_text(source, v.source_text);
  write_text(file, doc.dump(2) + "\n");
  fmt::print(stderr, "hetbench: {} -> {} and {}\n", v.id(), file.string(), source.string());
  return 0;
}

// The kernel variants of v's op and API whose execution is one launch, comma-separated.
std::string single_launch_variants(const KernelVariant& v) {
  std::string out;
  for (const auto& w : all_variants()) {
    const auto* k = dynamic_cast<const KernelVariant*>(w.get());
    if (k && k->op == v.op && k->backend == v.backend && k->launches.size() == 1 && k->setup.empty())
      out += (out.empty() ? "" : ", ") + k->id();
  }
  return out;
}

struct RunnableOptions {
  std::string size, precision, device, strategy = "brute_force";
  long long budget = 0;
};

// The variant at one problem on one device, as Kernel Tuner's tune_kernel_T1 runs it: the
// T1 file and beside it the source as compiled (prelude and the problem's defines in).
int export_runnable_t1(const std::string& which, const std::string& out, const RunnableOptions& o) {
  const KernelVariant& v = find_kernel_variant(which);
  if (out.empty()) throw Error("--size writes a T1 file and its kernel source: give --out FILE");
  T1Problem p;
  p.strategy = o.strategy;
  p.budget = o.budget;
  if (o.budget < 0) throw Error(fmt::format("--budget {}: expected a count of configurations (0: none)", o.budget));
  p.prec = o.precision.empty() ? v.precisions.front() : parse_precision(o.precision);
  const Op& op = find_op(v.op);
  const auto sizes = op.parse_sizes(o.size);
  if (sizes.size() != 1)
    throw Error(fmt::format("--size '{}': a T1 problem is one size, this names {}", o.size, sizes.size()));
  p.sizes = sizes.front();
  if (const std::string bad = op.signature().check(p.sizes); !bad.empty())
    throw Error(fmt::format("--size '{}': {}", o.size, bad));
  // The device whose limits the conditions take: named, or the first of the variant's API.
  std::shared_ptr<Device> dev;
  for (const auto& d : resolve_devices(o.device.empty() ? to_string(v.backend) : o.device))
    if (d->info().backend == v.backend && !dev) dev = d;
  if (!dev)
    throw Error(fmt::format("no {} device{} here: the conditions need one's limits", to_string(v.backend),
                            o.device.empty() ? "" : " matching '" + o.device + "'"));
  p.device = dev->info();
  const fs::path file(out);
  const fs::path source = file.parent_path() / (file.stem().string() + (v.backend == BackendKind::Cuda ? ".cu" : ".cl"));
  T1Runnable r;
  try {
    r = variant_to_runnable_t1(v, p, source.filename().string());
  } catch (const Error& e) {
    // A refused multi-launch variant: name those of its op and API that do the whole
    // operation in one launch, which a T1 file can describe.
    const auto alternatives = single_launch_variants(v);
    if (v.launches.size() < 2 || alternatives.empty()) throw;
    throw Error(fmt::format("{}; in one launch: {}", e.what(), alternatives));
  }
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  write_text(source, r.source);
  write_text(file, r.doc.dump(2) + "\n");
  fmt::print(stderr, "hetbench: {} in {} at {} on {} -> {} and {}\n", v.id(), name(p.prec), o.size, p.device.name,
             file.string(), source.string());
  return 0;
}

int import_t1(const std::string& file, const std::string& out_dir, const std::string& name, const std::string& op) {
  const auto t1 = read_json_file<ojson>(file);
  const T1Import imp = t1_to_metadata(t1, file, name, op);
  const fs::path dir(out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw Error(fmt::format("cannot create output folder '{}'", out_dir));
  const fs::path source = dir / imp.source.filename();
  if (!imp.source_text.empty()) {
    if (fs::exists(source) && fs::equivalent(source, imp.source))
      throw Error(fmt::format("{}: --out is the folder of the T1 file, whose source the import would rewrite "
                              "(as Kernel Tuner compiles it): give another folder",
                              file));
    write_text(source, imp.source_text);
  } else if (!fs::exists(source) || !fs::equivalent(source, imp.source)) {
    fs::copy_file(imp.source, source, fs::copy_options::overwrite_existing);
  }
  const fs::path meta = dir / (imp.metadata["name"].get<std::string>() + ".json");
  write_text(meta, imp.metadata.dump(2) + "\n");
  // Read back as `--kernels` will read it, so that a bad translation is said now.
  try {
    parse_variant_json(imp.metadata, dir.string(), meta.string());
  } catch (const Error& e) {
    fs::remove(meta, ec);
    throw Error(fmt::format("{}: the translated metadata is not valid: {}", file, e.what()));
  }
  for (const auto& n : imp.notes) fmt::print(stderr, "hetbench: {}: {}\n", file, n);
  if (imp.metadata.contains("op_declaration"))
    fmt::print(stderr, "hetbench: {}: no hetbench block, so the kernel's op '{}' is declared from its arguments "
                       "(run it with --kernels {} and no --size; no reference checks its values)\n",
               file, imp.metadata["op"].get<std::string>(), out_dir);
  fmt::print(stderr, "hetbench: {} -> {} and {}\n", file, meta.string(), source.string());
  return 0;
}

}  // namespace

Command add_kernel(CLI::App& app) {
  auto* sub = app.add_subcommand("kernel", "kernel variants in other formats");
  sub->require_subcommand(1);
  auto* ex = sub->add_subcommand("export-t1", "a kernel variant as a T1 tuning-problem description");
  auto variant = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  ex->add_option("variant", *variant, "a variant id (backend/op/name) or an unambiguous name")->required();
  ex->add_option("--out", *out, "the T1 file (default: stdout); the kernel source is written beside it");
  auto ro = std::make_shared<RunnableOptions>();
  ex->add_option("--size", ro->size,
                 "one problem size: writes a file Kernel Tuner runs as written (its source beside it, named after it)");
  ex->add_option("--precision", ro->precision, "with --size: S, D, ... (default: the variant's first)");
  ex->add_option("--device", ro->device, "with --size: the device whose limits bind the conditions (default: the first of the variant's API)");
  ex->add_option("--strategy", ro->strategy, "with --size: Kernel Tuner's search strategy (Search.Name)")->capture_default_str();
  ex->add_option("--budget", ro->budget, "with --size: configurations Kernel Tuner may evaluate (0: no budget)");
  auto* im = sub->add_subcommand("import-t1", "a T1 file as kernel metadata and its source");
  auto file = std::make_shared<std::string>();
  auto dir = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  im->add_option("file", *file, "the T1 file")->required();
  im->add_option("--out", *dir, "the folder for the metadata JSON and the source")->required();
  im->add_option("--name", *name, "the variant's name (default: the one in the file)");
  auto op = std::make_shared<std::string>();
  im->add_option("--op", *op, "a file without hetbench's block: the name of the op it declares (default: its "
                              "General.BenchmarkName)");
  return {sub, [=] {
            if (!ex->parsed()) return import_t1(*file, *dir, *name, *op);
            if (!ro->size.empty()) return export_runnable_t1(*variant, *out, *ro);
            if (!ro->precision.empty() || !ro->device.empty() || ro->budget != 0)
              throw Error("--precision, --device and --budget describe a problem: give --size too");
            return export_t1(*variant, *out);
          }};
}

}  // namespace hetbench::cli
