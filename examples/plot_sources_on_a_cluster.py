"""
Weak sources on a cluster: labeling functions, a label model and an end model over Dask partitions
==================================================================================================

Labeling functions run where each partition of a Dask DataFrame lives; their votes stay
there, one block per partition; a label model is fitted by distributed EM, each worker
sending only its partition's sufficient statistics (the result equals the label model
fitted in memory on the same votes); and an end model learns from hashed features and the
label model's posteriors, partition by partition, then is scored on a held-out partition.
Here the cluster is a two-process ``LocalCluster``; for a real one, start ``dask scheduler``
and ``dask worker tcp://HOST:8786`` on the machines and pass ``Client("tcp://HOST:8786")``
instead.

It reads the staged 20 Newsgroups (``text/20news-bydate.tar.xz`` under ``WEAKLABEL_DATA``).
"""

import dask
import dask.dataframe as dd
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier

from weaklabel.datasets import load_texts
from weaklabel.distributed import fit_end_model, fit_label_model, predict_proba_partitions
from weaklabel.sources import MajorityVote, PrecisionVote, apply_lfs, keyword, regex

groups = ["comp.graphics", "rec.autos", "sci.med", "talk.politics.guns"]
data = load_texts("20news").subset(groups)
GRAPHICS, AUTOS, MED, GUNS = range(4)
lfs = [keyword(["graphics", "polygon", "render", "image"], GRAPHICS, field="text"),
       keyword(["car", "cars", "engine", "dealer"], AUTOS, field="text"),
       keyword(["doctor", "patients", "disease", "treatment"], MED, field="text"),
       keyword(["gun", "guns", "firearms", "weapons"], GUNS, field="text"),
       regex(r"\b(nra|batf|second amendment)\b", GUNS, field="text")]

order = np.random.default_rng(0).permutation(len(data.texts["train"]))   # the posts come sorted by group
posts = pd.DataFrame({"text": np.asarray(data.texts["train"], dtype=object)[order]})
y = data.y["train"][order]                              # true labels: only to score, at the end
frame = dd.from_pandas(posts, npartitions=4)            # on a real cluster: dd.read_parquet(...), etc.

# %%
# The votes stay on the workers: ``apply_lfs`` returns a Dask array of one CSR block per
# partition, and nothing is computed until the label model asks for statistics. (The guard
# lets the cluster's worker processes start when this file runs as a script.)

if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        L = apply_lfs(lfs, frame)
        print(f"votes: a {type(L).__name__} of {L.numblocks[0]} blocks")
        model = fit_label_model(PrecisionVote(), L, client, n_classes=4)
        P = predict_proba_partitions(model, L).compute()        # one block of posteriors per partition

        # The same fit in memory, on the same votes gathered: the distributed EM gives the same
        # model (up to the order of floating-point sums).
        L_here = L.compute()
        here = PrecisionVote().fit(L_here, n_classes=4)
        print(f"largest difference of the precisions: {np.abs(model.precision_ - here.precision_).max():.1e}")
        print(f"EM iterations: {model.n_iter_} on the cluster, {here.n_iter_} in memory")

        # The true labels, only to score: the label model against majority vote on the posts a
        # function votes on.
        covered = L_here.getnnz(axis=1) > 0
        acc = {"PrecisionVote (cluster)": np.mean(P.argmax(axis=1)[covered] == y[covered]),
               "MajorityVote": np.mean(MajorityVote().fit(L_here).predict(L_here)[covered] == y[covered])}
        for name, a in acc.items():
            print(f"{name}: {a:.3f} on {covered.sum()} covered posts of {covered.size}")

        # The end model: a logistic regression by SGD on hashed words (a stateless
        # vectoriser, applied where each partition is), trained on partitions 0-2 from the
        # posteriors and scored on partition 3, held out, against the true labels.
        vectorizer = HashingVectorizer(n_features=2**18, alternate_sign=False)
        X = [dask.delayed(vectorizer.transform)(part.text) for part in frame.to_delayed()]
        blocks = L.to_delayed().ravel()
        end = fit_end_model(SGDClassifier(loss="log_loss", alpha=1e-5, shuffle=False, random_state=0), model,
                            X[:3], list(blocks[:3]), client, n_epochs=5)
        held_out = frame.partitions[3].compute()
        rows = posts.index.get_indexer(held_out.index)
        acc["end model (held-out partition)"] = end.score(vectorizer.transform(held_out.text), y[rows])
        print(f"end model on the held-out partition: {acc['end model (held-out partition)']:.3f} "
              f"on {rows.size} posts")

        fig, ax = plt.subplots(figsize=(7.5, 2.8))
        ax.barh(list(acc), list(acc.values()), color=["tab:blue", "tab:gray", "tab:green"])
        ax.set_xlim(0, 1)
        ax.set_xlabel("accuracy (label models: covered posts; end model: every post)")
        ax.set_title("4 partitions on 2 workers")
        fig.tight_layout()
        plt.show()
