// The tuner's results into the tuning database: one entry per problem and variant, keyed
// exactly as `run` looks parameters up (device identity, variant hash, precision,
// storage, problem class), so that a later `run` on the same problem finds them.
#pragma once

#include "tune/tuner.hpp"
#include "tuning/db.hpp"

namespace hetbench::tune {

// A hook that puts each found best into `db` and says on stderr what it stored.
ResultHook database_hook(tuning::TuningDb& db, std::uint64_t seed);

// A hook that gives a task the parameters of up to `n` entries of `db` for the same
// variant (current hash) and precision, on the same device, else architecture, else
// vendor: those of the task's own storage (layout) first, then by problem-class distance,
// with no reach cut-off (a start only has to be a good guess), then the faster.
StartsHook database_starts(const tuning::TuningDb& db, std::size_t n);

}  // namespace hetbench::tune
