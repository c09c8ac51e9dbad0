"""Docstring entries the linear models share word for word, each put in place of its
``    %(name)s`` line by :func:`shared_docs` (with the binary classifiers' entries of
``base._docstrings.DOCS``)."""

from __future__ import annotations

from imbalance_stream.base._docstrings import DOCS, fill_docs

__all__: list[str] = []

#: The cost-sensitive learners' ``loss`` and ``rho`` (ACOG, SACOG, COG, CPA); the Attributes
#: sections of the hinge-loss learners (PA, AROW, COG), of PAUM and ROMMA, and of the pairwise
#: AUC learners (OAM_seq, OPAUC); ``positive`` with ``intercept`` (the models with a bias).
LINEAR_DOCS = {
    "cost_loss": """\
    loss
        ``"I"`` (cost in the margin) or ``"II"`` (cost in the slope).
""",
    "cost_rho": """\
    rho
        Cost ratio of a missed positive to a false alarm. ``None`` estimates Tn/Tp online with
        the Laplace rule ``(t_n + 1) / (t_p + 1)``, counting the current label first: the paper's
        "sum" setting (balanced accuracy). A float fixes it: the "cost" setting, c_p / c_n.
""",
    "hinge_attributes": """\
    Attributes
    ----------
    n_updates
        Number of rounds with a positive hinge loss.
""",
    "changed_attributes": """\
    Attributes
    ----------
    n_updates
        Number of rounds that changed the weights.
""",
    "positive_intercept": DOCS["positive"] + DOCS["intercept"],
    "pairwise_attributes": """\
    Attributes
    ----------
    n_positive, n_negative
        Samples of each class learned.
""",
}

#: Fill the ``%(name)s`` lines of a class's docstring from :data:`LINEAR_DOCS` and ``DOCS``.
shared_docs = fill_docs({**DOCS, **LINEAR_DOCS})
