// Running a plan made elsewhere: replay builds its plan from records (src/compare) and
// measures it as run_experiment measures its own (engine/runner.cpp).
#pragma once

#include <filesystem>
#include <string>

#include "engine/plan/plan.hpp"
#include "engine/plan/spec.hpp"

namespace hetbench {

struct ResumeOptions;  // engine/record/resume.hpp

// As run_experiment, for a plan already made; its runs point into e.runs. `tuning_db`:
// the database the plan read, "" for none; `resume` as for run_experiment.
int run_plan(const Experiment& e, const Plan& plan, std::filesystem::path* dir = nullptr,
             const std::string& tuning_db = "", const ResumeOptions* resume = nullptr);

}  // namespace hetbench
