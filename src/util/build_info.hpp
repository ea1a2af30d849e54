// The commit hetbench was built from. Defined in a file CMake generates at configure
// time, so that a new commit recompiles that one file instead of every layer.
#pragma once

namespace hetbench {

const char* git_commit();  // 12 hex digits, "-dirty" when the tree had changes, or "unknown"

}  // namespace hetbench
