"""Simulators of weak supervision from clean labels (kept apart from the loaders)."""

from .bags import bags
from .bandit import acceptable_labels, bandit_feedback
from .candidate_sets import make_candidate_sets
from .structured import (hidden_markov_chain, hmc_bayes_predict, hmc_model, markov_chains_of_lengths, missing_labels,
                         node_candidate_sets, sudoku_puzzles, visual_sudoku)
from .noisy_labels import annotators, confusion_family, noisy_labels, random_stochastic_matrix

__all__ = ["hidden_markov_chain", "markov_chains_of_lengths", "node_candidate_sets", "hmc_bayes_predict", "hmc_model", "missing_labels", "sudoku_puzzles", "visual_sudoku", "bags", "make_candidate_sets", "bandit_feedback", "acceptable_labels", "noisy_labels", "confusion_family", "random_stochastic_matrix", "annotators"]
