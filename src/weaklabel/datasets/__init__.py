"""Registry of named datasets: ``load(name)`` returns train/test arrays (and real
candidate sets for partial-label sets) read from ``$WEAKLABEL_DATA``; ``load_votes`` and
``load_crowd`` read the labeling-function votes and crowd answers staged there, and
``load_obd`` the Open Bandit Dataset's logs."""

from ._registry import REGISTRY, DataNotFoundError, Dataset, available, data_dir, list_datasets, load
from ._sources import CrowdSet, OBDLog, VoteSet, load_crowd, load_obd, load_votes
from ._words import ocr_words

__all__ = ["load", "ocr_words", "list_datasets", "available", "data_dir", "Dataset", "DataNotFoundError", "REGISTRY",
           "load_votes", "load_crowd", "load_obd", "VoteSet", "CrowdSet", "OBDLog"]
