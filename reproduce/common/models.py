"""How a protocol names and builds one of a paper's models."""

from __future__ import annotations

import dataclasses
import importlib

__all__ = ["Learner"]


@dataclasses.dataclass(frozen=True)
class Learner:
    """One of a paper's models: the class that implements it and its fixed arguments.

    ``target`` is ``"module:Class"`` (imported only when the model is built, so a protocol can
    list models whose optional dependencies are missing); ``fixed`` holds the constructor
    arguments every run of the paper uses. A protocol subclasses it to add what it searches or
    sets per run (a grid, a cost ratio, a budget).
    """

    target: str
    fixed: dict = dataclasses.field(default_factory=dict)

    def model_class(self) -> type:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def available(self) -> bool:
        """Whether the class can be imported here."""
        try:
            self.model_class()
        except (ImportError, AttributeError):
            return False
        return True

    def build(self, **params):
        """The model with the fixed arguments, overridden by ``params``."""
        return self.model_class()(**{**self.fixed, **params})
