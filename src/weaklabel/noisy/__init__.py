"""Learning from labels corrupted by a known confusion matrix: UMA (Louche & Ralaivola)."""

from ._uma import UMA

__all__ = ["UMA"]
