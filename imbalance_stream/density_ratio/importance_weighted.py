"""Any River classifier trained on importance-weighted samples."""

from __future__ import annotations

import inspect
import math

import numpy as np
from river import base

from imbalance_stream.base.binary import check_label_for
from imbalance_stream.base.composition import last_step
from imbalance_stream.base.validation import check_seed

from .reweighter import Reweighter

__all__ = ["ImportanceWeighted"]


def accepts_weight(model) -> bool:
    """Whether ``model.learn_one`` takes a sample weight ``w`` (a pipeline passes it to its last
    step, so the last step decides)."""
    try:
        parameters = inspect.signature(last_step(model).learn_one).parameters
    except (TypeError, ValueError):
        return False
    return "w" in parameters


class ImportanceWeighted(base.Wrapper, base.Classifier):
    """A River classifier that learns each labelled sample with its importance weight.

    Under covariate shift the loss on the current data is the loss on the labelled data with each
    sample weighted by ``p_now(x) / p_then(x)`` (Miao, 2015, eqs. 3.30-3.31). The ``reweighter``
    estimates that ratio from a window of labelled (source) samples and a window of current
    unlabelled (target) samples; this wrapper feeds it and passes each weight on:

    * ``learn_one(x, y)`` weighs ``(x, y)`` with ``reweighter.weight_one(x, y)`` (times the ``w``
      given, if any) and trains ``classifier`` on it, then adds it to the re-weighter's source
      window. A classifier whose ``learn_one`` takes ``w`` (River's linear models, Hoeffding
      trees, ...) gets the weight; any other learns the sample ``floor(w)`` times, and once
      more with probability ``w - floor(w)`` (seeded by ``seed``): the weight in expectation,
      exactly when it is a whole number (a weight of 1 is one update, as without the wrapper),
      with less spread than online bagging's ``Poisson(w)`` copies (at most 1/4 against ``w``);
    * ``observe_one(x)`` adds an unlabelled arrival to the target window;
    * ``predict_one`` and ``predict_proba_one`` are the classifier's and change nothing.

    River's ``evaluate.progressive_val_score`` never calls ``observe_one``: there the target
    window stays empty and the classifier learns unweighted. Evaluate it with this package's
    :func:`~imbalance_stream.evaluate.run_prequential` (or a scenario), which shows every arrival
    to ``observe_one``, or with a loop of your own.

    With labels that arrive late this is the natural loop (River's ``stream.simulate_qa``): when
    ``x`` arrives, predict it and ``observe_one(x)``; when its label comes, ``learn_one(x, y)``, and
    the weight says how representative ``x`` is of the data arriving now. A weight is taken from
    the re-weighter's last refresh before the sample joins its source window, so that the
    classifier learns before any window changes and a sample the classifier refuses changes
    nothing (D-DR-14). Bad features are refused by the re-weighter first, naming the feature.

    Labels are checked before anything changes, and a label that the classifier or the
    re-weighter cannot take raises :class:`~imbalance_stream.base.UnknownLabel`: one that is no
    class label (None, NaN, an infinite number, an unhashable value), one that is no class of the
    classifier (River's binary classifiers learn True/False, also written 1/0 or 1.0/0.0; this
    package's learn their ``positive`` and one other label), or one the re-weighter refuses
    (:class:`~imbalance_stream.density_ratio.DDRReweighter` takes numbers or text, of one kind).

    Parameters
    ----------
    classifier
        Any River classifier. The re-weighter compares the features as they arrive, before the
        classifier's own pipeline, so they must be numbers on comparable scales: encode
        categorical or text features (and scale them) before the wrapper, in the loop that
        feeds it, since River's pipelines have no ``observe_one`` to pass arrivals on.
    reweighter
        A :class:`~imbalance_stream.density_ratio.Reweighter` (``KMMReweighter``,
        ``KLIEPReweighter``, ``ULSIFReweighter``, ...).
    seed
        Seed of the rounding of weights to whole numbers of updates, for a classifier that
        takes no weight.

    Examples
    --------

    Phishing pages whose labels arrive 50 pages late: each page is predicted and observed when it
    arrives, and learned when its label comes, weighted towards the last 100 pages seen.

    >>> from river import datasets, linear_model, metrics, preprocessing, stream
    >>> from imbalance_stream.density_ratio import ImportanceWeighted, ULSIFReweighter
    >>> model = ImportanceWeighted(
    ...     preprocessing.StandardScaler() | linear_model.LogisticRegression(),
    ...     ULSIFReweighter(n_source=200, n_target=100, refresh_every=50, clip=10.0, seed=0),
    ... )
    >>> metric, asked = metrics.F1(), {}
    >>> for i, x, y in stream.simulate_qa(datasets.Phishing(), moment=None, delay=50):
    ...     if y is None:  # a page arrives
    ...         asked[i] = model.predict_one(x)
    ...         model.observe_one(x)
    ...     else:  # its label comes
    ...         metric.update(y, asked.pop(i))
    ...         model.learn_one(x, y)
    >>> metric
    F1: 86.24%

    References
    ----------
    Shimodaira, H. (2000). Improving predictive inference under covariate shift by weighting the
    log-likelihood function. Journal of Statistical Planning and Inference, 90(2), 227-244.

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 3.3.1.

    """

    def __init__(
        self, classifier: base.Classifier, reweighter: Reweighter, seed: int | None = None
    ):
        if not isinstance(reweighter, Reweighter):
            raise TypeError(
                f"reweighter must be an imbalance_stream.density_ratio.Reweighter, got "
                f"{type(reweighter).__name__}"
            )
        self.classifier = classifier
        self.reweighter = reweighter
        self.seed = check_seed(seed)
        self._rng = np.random.default_rng(seed)
        self._weighted = accepts_weight(classifier)

    @property
    def _wrapped_model(self):
        return self.classifier

    @property
    def _multiclass(self):
        return getattr(self.classifier, "_multiclass", False)

    # ---- learning -----------------------------------------------------------------------------

    def check_label_one(self, y) -> None:
        """Raise :class:`~imbalance_stream.base.UnknownLabel` if :meth:`learn_one` would refuse
        ``y`` (see "Labels" above); changes nothing."""
        # both checked here, before the classifier learns: it may learn the sample zero times,
        # River's binary ones refuse with errors of their own or learn 2 silently, and a label
        # the re-weighter refuses must not have been learned by the classifier first
        check_label_for(self.classifier, y)
        self.reweighter.check_label_one(y)

    def learn_one(self, x: dict, y, w: float = 1.0, **kwargs) -> None:
        """Learn ``(x, y)`` with its importance weight (times ``w``); then add it to the
        re-weighter's source window. Other keyword arguments go to the classifier."""
        self.check_label_one(y)  # before anything changes
        self.reweighter.check_one(x)  # and bad features
        weight = w * self.reweighter.weight_one(x, y)
        if self._weighted:  # checked at construction: this learn_one takes ``w``
            kwargs["w"] = weight
            self.classifier.learn_one(x, y, **kwargs)
        else:
            state = self._rng.bit_generator.state
            try:
                for _ in range(self._whole_updates(weight)):
                    self.classifier.learn_one(x, y, **kwargs)
            except BaseException:
                self._rng.bit_generator.state = state
                raise
        self.reweighter.learn_source_one(x, y)

    def _whole_updates(self, weight: float) -> int:
        """``weight`` rounded to a whole number of updates at random, unbiased: ``floor(weight)``,
        plus one with probability ``weight - floor(weight)``."""
        whole = math.floor(weight)
        return whole + int(self._rng.random() < weight - whole)

    def observe_one(self, x: dict) -> None:
        """Add an unlabelled arrival to the re-weighter's target window."""
        self.reweighter.learn_target_one(x)

    # ---- predicting ---------------------------------------------------------------------------

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        """The classifier's class probabilities; validates ``x`` and changes nothing."""
        self.reweighter._windows.query(x)
        return self.classifier.predict_proba_one(x, **kwargs)

    def predict_one(self, x: dict, **kwargs):
        """The classifier's prediction; validates ``x`` and changes nothing."""
        self.reweighter._windows.query(x)
        return self.classifier.predict_one(x, **kwargs)

    @classmethod
    def _unit_test_params(cls):
        from river import linear_model

        from imbalance_stream.linear_model import ACOG

        from .ddr_reweighter import DDRReweighter
        from .iwlspc import IWLSPC
        from .kliep_reweighter import KLIEPReweighter
        from .kmm_reweighter import KMMReweighter
        from .ulsif_reweighter import ULSIFReweighter

        yield {
            "classifier": linear_model.LogisticRegression(),
            "reweighter": ULSIFReweighter(n_source=100, n_target=50, refresh_every=50, seed=0),
        }
        yield {
            "classifier": linear_model.LogisticRegression(l2=0.01),
            "reweighter": KLIEPReweighter(n_source=60, n_target=40, refresh_every=40, clip=10.0),
        }
        yield {  # no weight in its learn_one: whole numbers of updates
            "classifier": ACOG(),
            "reweighter": KMMReweighter(n_source=50, n_target=50, clip=5.0),
            "seed": 2,
        }
        yield {  # class-wise weights with the prior ratio, one window per class
            "classifier": linear_model.LogisticRegression(),
            "reweighter": DDRReweighter(
                IWLSPC(sigma=1.0, ridge=0.1, n_centres=20, seed=0),
                n_per_class=40,
                max_iter=2,
                n_centres=20,
                sigma=1.0,
                ridge=0.1,
                n_source=100,
                n_target=50,
                refresh_every=100,
                clip=10.0,
                seed=0,
            ),
        }
