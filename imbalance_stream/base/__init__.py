"""River-protocol base classes shared by every estimator, and the feature-space helper."""

from .arrays import capacity_for, grow_matrix, grow_vector
from .binary import BinaryClassifier, UnknownLabel, check_label
from .composition import is_anomaly_detector, last_step, watches_arrivals
from .features import FeatureSpace, FeatureSpaceFull, InvalidFeature, as_float
from .rows import ArrayRows
from .transaction import NumericalError
from .validation import InvalidParameter

#: What this package's estimators raise for input they refuse, each before any state changes
#: (a bad feature or label, a full feature space, an update that would leave a non-finite
#: number): the input's fault, never a half-updated model.
REFUSALS = (InvalidFeature, UnknownLabel, FeatureSpaceFull, NumericalError)

__all__ = [
    "REFUSALS",
    "ArrayRows",
    "BinaryClassifier",
    "FeatureSpace",
    "FeatureSpaceFull",
    "InvalidFeature",
    "InvalidParameter",
    "NumericalError",
    "UnknownLabel",
    "as_float",
    "capacity_for",
    "check_label",
    "grow_matrix",
    "grow_vector",
    "is_anomaly_detector",
    "last_step",
    "watches_arrivals",
]
