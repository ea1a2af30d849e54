"""Loads T4 files as the autotuning_methodology package does for a full search space
(SearchspaceStatistics), with every time key its experiments take by default ("all":
compilation, runtimes, framework, search_algorithm, validation) and the performance key
"time"; the package asserts that no key is NaN for every configuration. Prints each key's
total and exits non-zero when a file does not load.

usage: am_load.py T4_FILE...
"""

import sys
from pathlib import Path

from autotuning_methodology.searchspace_statistics import SearchspaceStatistics

KEYS = ["compilation", "runtimes", "framework", "search_algorithm", "validation"]

for f in sys.argv[1:]:
    s = SearchspaceStatistics(application_name="hetbench", device_name="device", minimization=True,
                              objective_time_keys=KEYS, objective_performance_keys=["time"],
                              full_search_space_file_path=Path(f), full_validate=True)
    if not s.loaded:
        raise SystemExit(f"{f}: not loaded")
    totals = ", ".join(f"{k} {float(s.objective_times[k].sum()):.3g} s" for k in KEYS)
    print(f"{Path(f).name}: {s.size} configuration(s); {totals}")
