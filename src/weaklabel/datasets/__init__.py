"""Registry of named datasets: ``load(name)`` returns train/test arrays (and real
candidate sets for partial-label sets) read from ``$WEAKLABEL_DATA``; ``load_votes`` and
``load_crowd`` read the labeling-function votes and crowd answers staged there, ``load_texts``
the raw documents of the text sets, and
``load_obd`` the Open Bandit Dataset's logs."""

from ._registry import REGISTRY, DataNotFoundError, Dataset, available, data_dir, list_datasets, load, load_mat
from ._sources import CrowdSet, OBDLog, TextSet, VoteSet, load_crowd, load_obd, load_texts, load_votes
from ._words import ocr_words

__all__ = ["load", "load_mat", "ocr_words", "list_datasets", "available", "data_dir", "Dataset", "DataNotFoundError", "REGISTRY",
           "load_votes", "load_crowd", "load_obd", "load_texts", "VoteSet", "CrowdSet", "TextSet", "OBDLog"]
