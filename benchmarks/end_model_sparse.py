"""The text workflow on sparse features: labeling functions, TF-IDF and an EndModel
(PrecisionVote + logistic regression) on 100,000 short synthetic texts, one core.

Prints the seconds of each step and the end model's accuracy on the true labels; the aim is
the whole fit under a minute without densifying the TF-IDF matrix. Run with BLAS on one
thread: ``OPENBLAS_NUM_THREADS=1 python benchmarks/end_model_sparse.py``.
"""

import time

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from weaklabel.sources import EndModel, apply_lfs, keyword


def main(n=100_000, seed=0):
    rng = np.random.RandomState(seed)
    pos, neg = ["free", "win", "cash", "now", "offer"], ["hello", "meeting", "lunch", "project", "report", "team"]
    filler = [f"w{k}" for k in range(2000)]
    y = rng.randint(0, 2, n)
    texts = [" ".join(rng.choice(pos if c else neg, 3)) + " " + " ".join(rng.choice(filler, 5)) for c in y]
    lfs = [keyword(["free", "cash"], 1), keyword(["win", "offer"], 1), keyword(["meeting", "report"], 0),
           keyword(["lunch", "team"], 0)]
    t0 = time.perf_counter()
    L = apply_lfs(lfs, texts)
    t1 = time.perf_counter()
    X = TfidfVectorizer().fit_transform(texts)
    t2 = time.perf_counter()
    model = EndModel().fit(X, L)
    t3 = time.perf_counter()
    print(f"{n} texts, {X.shape[1]} TF-IDF columns ({type(X).__name__}, {X.nnz} stored values)")
    print(f"labeling functions {t1 - t0:.1f} s, TF-IDF {t2 - t1:.1f} s, EndModel.fit {t3 - t2:.1f} s, "
          f"all {t3 - t0:.1f} s (aim: under 60 s)")
    print(f"end model accuracy on the true labels: {model.score(X, y):.3f}")


if __name__ == "__main__":
    main()
