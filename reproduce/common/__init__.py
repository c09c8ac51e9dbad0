"""What every paper's protocol shares: the model description, the published numbers, the writer of
its records and the reader of its tables."""

from .models import Learner
from .published import load_published
from .results import read_table, run_cells, write_rows

__all__ = ["Learner", "load_published", "read_table", "run_cells", "write_rows"]
