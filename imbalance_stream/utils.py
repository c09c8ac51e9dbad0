"""River's estimator checks, run offline.

River's :func:`river.checks.check_estimator` feeds a model the datasets its kind calls for. Two of
them are downloaded on first use: ``CreditCard`` for anomaly detectors and ``Music`` for multi-label
classifiers, so on a machine without a network the checks of those models fail before they start
(``URLError``). The functions here run the same checks on the same models, with River's bundled
``Shuttle`` (ODDS, 7% anomalies) and ``Yeast`` (multi-label) in their place; every other dataset
is River's own, already bundled with it. River's checks need scikit-learn (the ``sklearn`` extra).
"""

from __future__ import annotations

import threading
import typing
from collections.abc import Callable, Iterator

from river import base, checks, datasets

__all__ = ["check_estimator", "yield_checks"]

# River's own dataset choice, kept to defer to for every model whose datasets are bundled.
_RIVER_DATASETS = checks._yield_datasets
# The substitution swaps a function of River's checks module for the time it takes to build the
# checks; the lock keeps two threads from swapping it at once.
_SWAP = threading.Lock()


def _bundled_datasets(model: base.Estimator, scale: int = 1) -> Iterator[typing.Iterable]:
    """River's datasets for ``model``, with bundled files in place of the downloaded ones."""
    if isinstance(model, base.MultiLabelClassifier):
        yield datasets.Yeast().take(50 * scale)  # River's: Music, downloaded
        return
    if isinstance(model, base.AnomalyDetector) and not isinstance(
        model, (base.Classifier, base.Regressor)
    ):
        yield datasets.Shuttle().take(1000 * scale)  # River's: CreditCard, downloaded
        return
    yield from _RIVER_DATASETS(model, scale)


def _require_sklearn() -> None:
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise ImportError(
            'River\'s checks need scikit-learn: pip install "imbalance-stream[sklearn]"'
        ) from None


def yield_checks(model: base.Estimator) -> list[Callable]:
    """River's checks for ``model``, each bound to a dataset bundled with River.

    The same checks as :func:`river.checks.yield_checks`, in the same order, with their datasets
    already drawn: anomaly detectors get River's ``Shuttle`` (its first 1,000 rows, 10,000 for the
    memory check) instead of ``CreditCard``, multi-label classifiers ``Yeast`` instead of
    ``Music``. Each check is a function of the model (pass it a fresh ``model.clone()``) named
    after River's check; checks named in ``model._unit_test_skips()`` are included, as River's
    ``yield_checks`` includes them.

    Parameters
    ----------
    model
        A River estimator.

    Returns
    -------
    list
        The checks, ready to call; each reads its dataset once.

    Examples
    --------

    >>> from imbalance_stream.anomaly import KDENovelty
    >>> from imbalance_stream.utils import yield_checks
    >>> detector = KDENovelty(mode="stream", n_reference=20, n_test=10, seed=1)
    >>> found = yield_checks(detector)
    >>> [check.__name__ for check in found][:3]
    ['check_repr', 'check_str', 'check_tags']
    >>> "check_roc_auc" in {check.__name__ for check in found}
    True

    """
    _require_sklearn()
    with _SWAP:
        checks._yield_datasets = _bundled_datasets
        try:
            return list(checks.yield_checks(model))
        finally:
            checks._yield_datasets = _RIVER_DATASETS


def check_estimator(model: base.Estimator) -> None:
    """Run River's checks on ``model`` without a network.

    :func:`river.checks.check_estimator`, with River's bundled datasets in place of the two it
    downloads (see :func:`yield_checks`): a classifier and an anomaly detector alike go through
    every check River gives their kind, offline. As in River, the checks named in
    ``model._unit_test_skips()`` are skipped and each check runs on a fresh ``model.clone()``,
    so ``model`` itself is left as it was.

    Parameters
    ----------
    model
        A River estimator.

    Raises
    ------
    AssertionError
        A check failed, or the model raised an error during one: the message names the check, the
        model's class and what went wrong (the original error is its ``__cause__``).

    Examples
    --------

    A classifier and a novelty detector of the package; any River estimator goes the same way.

    >>> from river import anomaly
    >>> from imbalance_stream.anomaly import KDENovelty
    >>> from imbalance_stream.linear_model import ACOG
    >>> from imbalance_stream.utils import check_estimator
    >>> check_estimator(ACOG(covariance="full"))
    >>> check_estimator(KDENovelty(sigma=50.0, mode="stream", n_reference=20, n_test=10))

    River's own detectors too, which River's checks would feed CreditCard:

    >>> check_estimator(anomaly.HalfSpaceTrees(seed=42))

    """
    skips = model._unit_test_skips()
    for check in yield_checks(model):
        if check.__name__ in skips:
            continue
        try:
            check(model.clone())
        except Exception as error:
            detail = str(error) if isinstance(error, AssertionError) else repr(error)
            detail = f": {detail}" if detail else ""
            raise AssertionError(
                f"River's {check.__name__} failed on {type(model).__name__}{detail}"
            ) from error
