"""Test configuration: the data home points at the shared benchmark files unless set."""

import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent
os.environ.setdefault("IMBALANCE_STREAM_DATA", str(ROOT.parent / "shared" / "datasets"))
