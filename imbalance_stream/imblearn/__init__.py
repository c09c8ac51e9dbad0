"""Resampling baselines of seed 003 (Ertekin 2009, chapters 4 and 5) on stored data.

* :func:`smote`: SMOTE's synthetic positives (the batch preprocessing of the SMOTE baseline),
  through imbalanced-learn, an optional dependency (``pip install imbalance-stream[imblearn]``).

Random undersampling on a stream is River's ``imblearn.RandomUnderSampler`` around the learner;
different costs are ``LASVM(class_weight=...)``.
"""

from .smote import smote

__all__ = ["smote"]
