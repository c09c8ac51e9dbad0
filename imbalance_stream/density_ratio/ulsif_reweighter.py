"""uLSIF as a stream re-weighter."""

from __future__ import annotations

from .reweighter import EstimatorReweighter
from .ulsif import ULSIF
from .windowed import WINDOWS, Preset, preset, shared_parameter_docs

__all__ = ["ULSIFReweighter"]


@preset("sigma", "ridge", "n_centres", WINDOWS, "reselect_every", renamed={"lambda_": "ridge"})
@shared_parameter_docs
class ULSIFReweighter(Preset, EstimatorReweighter):
    """Importance weights by uLSIF (Algorithm 4) on a source and a target window.

    At a refresh, uLSIF models the ratio as ``w(x) = sum_l alpha_l k(x, c_l)`` with ``n_centres``
    centres drawn from the target window and fits it by regularised least squares in closed form,
    ``alpha = max(0, (H + lambda I)^-1 h)`` (eq. 3.28), the width and ridge chosen by closed-form
    leave-one-out. ``weight_one`` is ``w(x)`` at any point, in ``O(n_centres d)``, normalised to
    mean 1 over the source window (D-DR-13) and clipped at ``clip`` if given.

    Parameters
    ----------
    %(sigma_leave_one_out)s
    %(ridge)s
    %(n_centres_target)s
    %(n_source)s
    %(reweighter_windows)s
    %(seed_leave_one_out)s
    %(reselect_every)s

    Examples
    --------

    Image segments under a selection bias (:class:`~imbalance_stream.datasets.SelectionShift`):
    windows are rare in the labelled past and common in the present, so the past's window
    segments are weighted up:

    >>> from river import datasets
    >>> from imbalance_stream.datasets import SelectionShift
    >>> from imbalance_stream.density_ratio import ULSIFReweighter
    >>> shift = SelectionShift(datasets.ImageSegments(), positive="window", seed=1)
    >>> data = list(shift)
    >>> past, present = data[: shift.shift_at], data[shift.shift_at :]
    >>> reweighter = ULSIFReweighter(seed=0)
    >>> for x, is_window in past:
    ...     reweighter.learn_source_one(x, is_window)
    >>> for x, _ in present:
    ...     reweighter.learn_target_one(x)
    >>> reweighter.refresh()
    True
    >>> weights = {True: [], False: []}
    >>> for x, is_window in past:
    ...     weights[is_window].append(reweighter.weight_one(x))
    >>> {label: round(sum(w) / len(w), 2) for label, w in weights.items()}
    {True: 2.8, False: 0.92}

    %(references_kanamori_2009)s

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Algorithm 4 and Section 3.3.1.

    """

    ESTIMATOR = ULSIF

    @classmethod
    def _unit_test_params(cls):
        yield {"n_source": 100, "n_target": 50, "refresh_every": 50, "seed": 1}
        yield {"sigma": 2.0, "ridge": 0.1, "n_centres": 20, "n_source": 60, "n_target": 40}
