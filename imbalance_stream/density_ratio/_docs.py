"""The papers that several classes of the density-ratio family cite word for word: each batch
method's paper, cited by its estimator, its re-weighter and its novelty detector.

Each entry opens a docstring's References section with the paper (the thesis's sections, which
differ from class to class, follow it) and stands in the docstring as a line of its own,
``    %(name)s``, put in its place when the class is defined
(:func:`~imbalance_stream.base._docstrings.fill_docs`; the detectors and re-weighters take them
with the parameter entries of
:func:`~imbalance_stream.density_ratio.windowed.shared_parameter_docs`)."""

from __future__ import annotations

from imbalance_stream.base._docstrings import fill_docs

__all__: list[str] = []

#: The References sections' openings, named by the paper's first author and year.
REFERENCES = {
    "references_huang_2007": """\
    References
    ----------
    Huang, J., Smola, A. J., Gretton, A., Borgwardt, K. M. and Schölkopf, B. (2007). Correcting
    sample selection bias by unlabeled data. NIPS 19.
""",
    "references_sugiyama_2008": """\
    References
    ----------
    Sugiyama, M., Suzuki, T., Nakajima, S., Kashima, H., von Bünau, P. and Kawanabe, M. (2008).
    Direct importance estimation for covariate shift adaptation. Annals of the Institute of
    Statistical Mathematics, 60(4), 699-746.
""",
    "references_kanamori_2009": """\
    References
    ----------
    Kanamori, T., Hido, S. and Sugiyama, M. (2009). A least-squares approach to direct importance
    estimation. Journal of Machine Learning Research, 10, 1391-1445.
""",
}

#: Fill the entries of :data:`REFERENCES` in a batch estimator's docstring.
cite_papers = fill_docs(REFERENCES)
