"""Simulators of weak supervision from clean labels (kept apart from the loaders)."""

from .candidate_sets import make_candidate_sets

__all__ = ["make_candidate_sets"]
