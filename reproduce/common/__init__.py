"""What every paper's protocol shares: the model description, the published numbers, the writer."""

from .models import Learner
from .published import load_published
from .results import run_cells, write_rows

__all__ = ["Learner", "load_published", "run_cells", "write_rows"]
