"""hetbench's Python reader: experiment folders (and the results store) as pandas DataFrames.

    import hetbench
    df = hetbench.read_experiment("hetbench-results/20250101-120000-sweep")

docs/report.md describes the columns; docs/results-format.md the records behind them.
Install with `pip install ./python` (pandas and numpy come along; matplotlib for the
report, psycopg2 for a PostgreSQL store: the extras `report` and `postgresql`).
"""
from ._version import __version__  # noqa: F401
from .experiment import ExperimentError, read_experiment, read_experiments, read_records  # noqa: F401
from .store import StoreError, read_store  # noqa: F401
