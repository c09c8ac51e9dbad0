"""The batch density-ratio estimator interface."""

from __future__ import annotations

import abc
import functools
import inspect
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import numpy as np
from river import base

from imbalance_stream.base.features import MAX_ABS_VALUE
from imbalance_stream.base.validation import check_int, check_real, check_seed

__all__ = ["COUNT", "FOLDS", "SEED", "WIDTH", "DensityRatioEstimator", "NotFitted", "as_matrix"]

#: The rules the estimators check their parameters by, ``rule(name, value)`` returning the value
#: accepted: a Gaussian width (None: chosen from the data), a count of at least 1, a number of
#: folds, a seed.
WIDTH = functools.partial(check_real, low=0.0, low_open=True, optional=True)
COUNT = functools.partial(check_int, low=1)
FOLDS = functools.partial(check_int, low=2)


def SEED(name: str, value) -> int | None:  # a rule, named like the others
    return check_seed(value)


Init = TypeVar("Init", bound=Callable[..., None])


def checked_init(init: Init) -> Init:
    """Decorator of a batch estimator's constructor whose body is its signature alone: the
    arguments, bound and defaulted as the signature has them, are checked and set in its order
    by :meth:`DensityRatioEstimator._set_params`, so that each parameter is named once."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self, *args, **kwargs) -> None:
        init(self, *args, **kwargs)  # arguments it refuses raise the interpreter's own TypeError
        arguments = signature.bind(self, *args, **kwargs)
        arguments.apply_defaults()
        self._set_params(**dict(list(arguments.arguments.items())[1:]))  # all but self

    return __init__  # type: ignore[return-value]


def as_matrix(X, name: str, n_features: int | None = None) -> np.ndarray:
    """``X`` as a C-contiguous 2-D float64 array of finite values, or a ValueError naming it."""
    try:
        array = np.ascontiguousarray(X, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a 2-D array of real numbers ({error})") from None
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2 or array.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {array.shape}")
    if not np.isfinite(array).all():
        row, column = np.argwhere(~np.isfinite(array))[0]
        raise ValueError(f"{name} has a non-finite value at row {row}, column {column}")
    if np.abs(array).max() > MAX_ABS_VALUE:  # squared distances would overflow to inf
        row, column = np.argwhere(np.abs(array) > MAX_ABS_VALUE)[0]
        raise ValueError(
            f"{name} has the value {array[row, column]:g} at row {row}, column {column}, beyond "
            f"the {MAX_ABS_VALUE:g} a feature may reach: scale the data"
        )
    if n_features is not None and array.shape[1] != n_features:
        raise ValueError(f"{name} has {array.shape[1]} features, the fit had {n_features}")
    return array


class NotFitted(RuntimeError):
    """``weight`` was called before ``fit``."""


class DensityRatioEstimator(base.Base, abc.ABC):
    """Estimates ``w(x) = p_target(x) / p_source(x)`` from two samples, scikit-learn style.

    ``fit(X_source, X_target)`` returns the estimator; ``weight(X)`` gives the ratio at the rows
    of ``X``. The source sample is the ratio's denominator, the target sample its numerator: for
    covariate shift the source is the labelled training data and the target the data to adapt to;
    for novelty detection (Hido et al.'s inlier score) the target is the reference data of normal
    behaviour and the source the data to screen, so a small ratio marks a novelty.
    """

    n_features_in_: int

    #: The parameters the estimator chooses when they are None, each mapped to the attribute that
    #: holds its choice after a fit: what the windowed detectors and re-weighters hold between
    #: selections (:class:`~imbalance_stream.base.windows.RefreshSchedule`).
    SELECTED: dict[str, str] = {}

    #: Whether ``fit`` takes ``start``, the starting point of an iterative solver (a warm start).
    WARM_START = False

    #: ``{parameter: rule}``: how each constructor parameter is checked (:meth:`check_params`).
    PARAMETER_RULES: ClassVar[dict[str, Callable[[str, Any], Any]]] = {}

    @classmethod
    def check_params(cls, **params) -> dict[str, Any]:
        """``params`` as the estimator accepts them, each checked by its rule without building
        an estimator (a bad value raises ``InvalidParameter`` naming it); a parameter without a
        rule is returned as given. What the estimator's constructor and the windowed detectors
        and re-weighters that refit it check their settings by."""
        rules = cls.PARAMETER_RULES
        return {
            name: rules[name](name, value) if name in rules else value
            for name, value in params.items()
        }

    def _set_params(self, **params) -> None:
        """Set the constructor's parameters, checked by :meth:`check_params`."""
        for name, value in self.check_params(**params).items():
            setattr(self, name, value)

    def fit(self, X_source, X_target):
        """Fit on a source (denominator) and a target (numerator) sample; returns ``self``."""
        source = as_matrix(X_source, "X_source")
        target = as_matrix(X_target, "X_target", source.shape[1])
        self.n_features_in_ = source.shape[1]
        self._fit(source, target)
        return self

    def weight(self, X) -> np.ndarray:
        """The estimated ratio ``p_target(x) / p_source(x)`` at each row of ``X``."""
        if not hasattr(self, "n_features_in_"):
            raise NotFitted(f"{type(self).__name__} must be fitted before weight() is called")
        return self._weight(as_matrix(X, "X", self.n_features_in_))

    @abc.abstractmethod
    def _fit(self, source: np.ndarray, target: np.ndarray) -> None: ...

    @abc.abstractmethod
    def _weight(self, X: np.ndarray) -> np.ndarray: ...
