"""
Weak sources on a cluster: labeling functions and a label model over Dask partitions
====================================================================================

Labeling functions run where each partition of a Dask DataFrame lives; their votes stay
there, one block per partition; and a label model is fitted by distributed EM, each worker
sending only its partition's sufficient statistics. The result equals the label model
fitted in memory on the same votes. Here the cluster is a two-process ``LocalCluster``; for
a real one, start ``dask scheduler`` and ``dask worker tcp://HOST:8786`` on the machines and
pass ``Client("tcp://HOST:8786")`` instead.

It reads the staged 20 Newsgroups (``text/20news-bydate.tar.xz`` under ``WEAKLABEL_DATA``).
"""

import dask.dataframe as dd
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster

from weaklabel.datasets import load_texts
from weaklabel.distributed import fit_label_model, predict_proba_partitions
from weaklabel.sources import MajorityVote, PrecisionVote, apply_lfs, keyword, regex

groups = ["comp.graphics", "rec.autos", "sci.med", "talk.politics.guns"]
data = load_texts("20news").subset(groups)
GRAPHICS, AUTOS, MED, GUNS = range(4)
lfs = [keyword(["graphics", "polygon", "render", "image"], GRAPHICS, field="text"),
       keyword(["car", "cars", "engine", "dealer"], AUTOS, field="text"),
       keyword(["doctor", "patients", "disease", "treatment"], MED, field="text"),
       keyword(["gun", "guns", "firearms", "weapons"], GUNS, field="text"),
       regex(r"\b(nra|batf|second amendment)\b", GUNS, field="text")]

posts = pd.DataFrame({"text": data.texts["train"]})
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
        y = data.y["train"]
        acc = {"PrecisionVote (cluster)": np.mean(P.argmax(axis=1)[covered] == y[covered]),
               "MajorityVote": np.mean(MajorityVote().fit(L_here).predict(L_here)[covered] == y[covered])}
        for name, a in acc.items():
            print(f"{name}: {a:.3f} on {covered.sum()} covered posts of {covered.size}")

        fig, ax = plt.subplots(figsize=(5, 2.4))
        ax.barh(list(acc), list(acc.values()), color=["tab:blue", "tab:gray"])
        ax.set_xlim(0, 1)
        ax.set_xlabel("accuracy on the covered training posts")
        ax.set_title("Label model fitted over 4 partitions on 2 workers")
        fig.tight_layout()
        plt.show()
