"""The ``pos_val`` entry that every metric of the package documents, written once."""

from __future__ import annotations

from imbalance_stream.base._docstrings import fill_docs

__all__: list[str] = []

_POS_VAL = """\
    pos_val
        Value to treat as "positive".
"""

#: Put the entry in place of a docstring's ``    %(pos_val)s`` line, or the whole Parameters
#: section of a metric whose only parameter it is in place of ``    %(pos_val_section)s``.
pos_val_docs = fill_docs(
    {"pos_val": _POS_VAL, "pos_val_section": "    Parameters\n    ----------\n" + _POS_VAL}
)
