// The files of the kernels an experiment ran from outside the build (`run --kernel`,
// `tune --kernel`: GEMMbench and Lift entries), recorded with it: each file's SHA-256 in
// experiment.json ("kernels") and a copy in the folder's kernels/, so that `replay` on this
// or another machine, or from the store, needs nothing but the experiment
// (docs/results-format.md).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/plan/spec.hpp"

namespace hetbench {

// {"format", "from" (the path given), "entry" (what to load, relative to the folder:
// "kernels/E.json" or "kernels"), "files": {"kernels/NAME": SHA-256}} for an experiment
// with --kernel entries, else null. Throws Error naming a file that cannot be read or
// whose name two entries share.
nlohmann::json kernel_files_of(const Experiment& e);

// Copies the files `kernels` (kernel_files_of's) names into `dir`/kernels/, checking each
// copy against its recorded SHA-256 (a file changed since it was read is an Error).
void copy_kernel_files(const nlohmann::json& kernels, const std::filesystem::path& dir);

// The entry path to load for a recorded experiment in `dir`: its kernels/ copy, each file
// checked against its SHA-256; "" when it ran no such kernel. Throws Error naming the file
// that is missing or differs. An experiment recorded before copies were kept gives the
// path it was run with.
std::string recorded_kernel_entry(const nlohmann::json& experiment, const std::filesystem::path& dir);

}  // namespace hetbench
