"""River-protocol base classes shared by every estimator, and the feature-space helper."""

from .arrays import capacity_for, grow_matrix, grow_vector
from .binary import BinaryClassifier, UnknownLabel, check_label
from .features import FeatureSpace, FeatureSpaceFull, InvalidFeature, as_float
from .rows import ArrayRows
from .transaction import NumericalError
from .validation import InvalidParameter

__all__ = [
    "ArrayRows",
    "BinaryClassifier",
    "FeatureSpace",
    "FeatureSpaceFull",
    "InvalidFeature",
    "InvalidParameter",
    "NumericalError",
    "UnknownLabel",
    "as_float",
    "check_label",
    "capacity_for",
    "grow_matrix",
    "grow_vector",
]
