"""OAM_seq: online AUC maximisation with reservoir buffers (KOIL's baseline, seed 000)."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba import auc as kernels
from imbalance_stream.base import capacity_for, grow_vector
from imbalance_stream.base.features import KERNEL_MAX_FEATURES
from imbalance_stream.base.validation import check_int, check_real, check_seed

from ._docs import shared_docs
from ._pairwise import PairwiseAUCLinear

__all__ = ["OAMSeq"]


@shared_docs
class OAMSeq(PairwiseAUCLinear):
    """Online AUC Maximisation, sequential update (OAM_seq).

    A linear scorer ``w.x`` that minimises the pairwise hinge loss ``[1 - w.(x+ - x-)]_+``. Each
    class keeps a buffer of at most ``budget`` past samples, filled by reservoir sampling (a sample
    of class ``y`` enters a full buffer with probability ``budget / N_y``, replacing a uniformly
    chosen one). A new sample ``x`` of sign ``y`` is first offered to its own buffer, then pairs
    with every sample ``b`` of the opposite buffer in turn, each pair taking a passive-aggressive
    step

    ``w <- w + min(C_t / 2, loss / |x - b|^2) y (x - b)``,  ``loss = [1 - y w.(x - b)]_+``

    with ``C_t = C max(1, N_opp / budget)``: the aggressiveness grows with the number of opposite
    samples that each buffered one stands for (Zhao et al. 2011, Algorithms 1-3). KOIL's
    experiments use ``budget=100`` per class (the KOIL thesis, section 3.5; D-KOIL-21).

    %(dense_limits)s

    Parameters
    ----------
    C
        Aggressiveness (penalty) of the passive-aggressive steps.
    budget
        Size of each class's buffer.
    %(positive)s
    seed
        Seed of the reservoir sampling.

    %(pairwise_attributes)s
    n_steps
        Pairwise steps taken so far.

    Examples
    --------

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.linear_model import OAMSeq

    >>> oam = OAMSeq(C=0.01, budget=20, seed=1)
    >>> model = preprocessing.StandardScaler() | oam
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.ROCAUC())
    ROCAUC: 92.44%

    Each sample pairs with the whole opposite buffer, at most ``budget`` samples:

    >>> oam.n_positive, oam.n_negative, oam.n_steps
    (547, 702, 2177)

    References
    ----------
    Zhao, P., Hoi, S. C. H., Jin, R., Yang, T. (2011). Online AUC Maximization. ICML.

    """

    #: Stored vectors are dense over the features: at most 65,536 of them (``FeatureSpace``).
    _max_features = KERNEL_MAX_FEATURES

    def __init__(self, C: float = 1.0, budget: int = 100, positive=True, seed: int | None = None):
        check_real("C", C, low=0.0, low_open=True)
        check_int("budget", budget, low=1)
        check_seed(seed)
        super().__init__(positive=positive)
        self.C = C
        self.budget = budget
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._buffer = {1.0: np.zeros((budget, 0)), -1.0: np.zeros((budget, 0))}
        self._filled = {1.0: 0, -1.0: 0}
        self.n_steps = 0

    def _grow(self, n_features):
        self._w = grow_vector(self._w, n_features)
        for sign, buffer in self._buffer.items():
            if buffer.shape[1] < n_features:
                wider = np.zeros((self.budget, capacity_for(buffer.shape[1], n_features)))
                wider[:, : buffer.shape[1]] = buffer  # stored samples had 0 in the new columns
                self._buffer[sign] = wider

    def _learn(self, indices, values, sign):
        n = len(self._features)
        x = self._features.dense(indices, values, self._w.shape[0])
        self._count[sign] += 1
        own = self._buffer[sign]
        if self._filled[sign] < self.budget:
            own[self._filled[sign]] = x
            self._filled[sign] += 1
        elif self._rng.random() < self.budget / self._count[sign]:
            own[self._rng.integers(self.budget)] = x
        c_t = self.C * max(1.0, self._count[-sign] / self.budget)
        self.n_steps += kernels.oam_seq_pass(
            self._w, n, x, sign, self._buffer[-sign], self._filled[-sign], c_t
        )

    @classmethod
    def _unit_test_params(cls):
        yield {"seed": 0}
        yield {"C": 0.1, "budget": 5, "seed": 1}
        yield {"C": 10.0, "budget": 1}
