"""The online learners against an earlier commit of their own code, side by side in one run.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/online_side_by_side.py --baseline COMMIT [--rounds 10]

(the developer page names the commit the performance page's table compares with).

The earlier commit is installed into a second environment of its own (a virtual environment
that sees this one's packages, with that commit's weaklabel installed over them; kept in the
user cache directory, made once).  Each round starts a worker process in each environment
(this file's ``--worker`` mode) and times every number in one and at once in the other (the
first side alternating by round), so both sides of every ratio meet the same state of a
shared machine within a second or so of each other.  A number is the best of its rounds
(``--repeats`` timings each): a busy machine only ever adds time, and where a process's
arrays and compiled kernels land in memory moves a dense pass for the whole life of the
process, so every round starts fresh processes and the best is that of several layouts.
BLAS is pinned to one thread (the variable and threadpoolctl).

Measured, with the public API only (so the same code times both commits): rows/s of one
``fit`` pass (``max_iter=1, shuffle=False``) of each online learner on dense float64, dense
float32 (usps) and sparse rows (sector); and ``partial_fit`` on 100-row chunks of usps
against one ``fit`` pass.  The targets:

- rows/s of every learner and form at least 0.9x the earlier commit's;
- the 100-row ``partial_fit`` ratio (chunks / one pass) at most 1.2x the earlier commit's.
"""

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LEARNERS = (("AvgPerceptron", "partial", {}), ("MaxPerceptron", "partial", {}), ("AvgPegasos", "partial", {}),
            ("MaxPegasos", "partial", {}), ("CSPA", "bandit", {}), ("SPA", "bandit", {}),
            ("Banditron", "bandit", {}), ("BPA", "bandit", {}), ("Confidit", "bandit", {"diagonal": True}))
FORMS = ("dense float64", "dense float32", "sparse")
BATCH = 100


# ---- the measurement (a worker in each environment) ------------------------------------

def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def serve():
    """The worker: load the data once, then, for each line ``KEY REPEATS`` read, answer with
    the best of ``REPEATS`` timings in seconds of ``KEY``: ``learner|form``, one ``fit``
    pass; ``learner|chunks``, ``partial_fit`` over 100-row chunks of dense float64 rows.  A
    learner's first item compiles its kernels outside the timing."""
    import warnings

    import numpy as np
    import scipy.sparse as sp
    from threadpoolctl import threadpool_limits

    import weaklabel.bandit
    import weaklabel.partial
    from weaklabel import datasets
    from weaklabel.simulate import make_candidate_sets

    d, ds = datasets.load("usps"), datasets.load("sector")
    X64 = np.ascontiguousarray(d.X_train, dtype=np.float64)
    data = {"dense float64": (X64, d.y_train), "dense float32": (X64.astype(np.float32), d.y_train),
            "sparse": (sp.csr_matrix(ds.X_train, dtype=np.float64), ds.y_train)}
    sets = {form: make_candidate_sets(y, 2, random_state=0) for form, (_, y) in data.items()}
    learners = {name: (getattr(getattr(weaklabel, module), name), module, params) for name, module, params in LEARNERS}
    warmed = set()

    def item(key):
        name, what = key.split("|")
        cls, module, params = learners[name]
        kw = {"max_iter": 1, "shuffle": False, **params}
        X, y = data["dense float64" if what == "chunks" else what]
        target = sets["dense float64" if what == "chunks" else what] if module == "partial" else y
        if (name, what) not in warmed:
            cls(**kw).fit(X[:50], target[:50])                       # compile outside the timing
            warmed.add((name, what))
        if what != "chunks":
            return lambda: cls(**kw).fit(X, target)
        classes = np.unique(y)

        def chunks():
            est = cls(**kw)
            for lo in range(0, X.shape[0], BATCH):
                est.partial_fit(X[lo:lo + BATCH], target[lo:lo + BATCH], classes=classes)
        return chunks

    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        print("ready", flush=True)
        for line in sys.stdin:
            key, repeats = line.rsplit(maxsplit=1)
            print(json.dumps(_best(item(key), int(repeats))), flush=True)


# ---- the two environments and the table ---------------------------------------------------

def cache_dir():
    env = os.environ.get("WEAKLABEL_CACHE")
    return Path(env) if env else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "weaklabel"


def baseline_python(commit):
    """The python of an environment with ``commit``'s weaklabel (made on first use)."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", commit], check=True,
                         capture_output=True, text=True).stdout.strip()
    home = cache_dir() / "benchmark-envs" / sha
    python = home / "bin" / "python"
    if (home / "ready").exists():
        return python, sha
    venv.create(home, system_site_packages=True, clear=True)
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "src.tar"
        subprocess.run(["git", "-C", str(REPO), "archive", "-o", str(archive), sha], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "src", filter="data")
        # (build isolation: the build backend comes from the registry, as for `pip install -e .`)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps",
                        str(Path(tmp) / "src")], check=True)
    (home / "ready").write_text(sha + "\n")
    return python, sha


class Worker:
    """A worker process (:func:`serve`) in the environment of ``python``."""

    def __init__(self, python):
        env = {"WEAKLABEL_DATA": str(REPO.parent / "shared" / "data"), **os.environ,
               "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        # from a neutral directory: the checkout's own src/ must not shadow the installed package
        self.proc = subprocess.Popen([str(python), str(Path(__file__).resolve()), "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=tempfile.gettempdir())
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the worker of {python} did not start")

    def time(self, key, repeats):
        self.proc.stdin.write(f"{key} {repeats}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def where(python):
    return subprocess.run([str(python), "-c", "import weaklabel; print(weaklabel.__file__)"], check=True,
                          capture_output=True, text=True, cwd=tempfile.gettempdir()).stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required="--worker" not in sys.argv, help="the commit to compare with")
    ap.add_argument("--rounds", type=int, default=10, help="rounds, each with fresh workers on both sides")
    ap.add_argument("--repeats", type=int, default=3, help="timings of each number within a run")
    ap.add_argument("--json", help="also write every round's timings (seconds) to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        serve()
        return
    old_python, sha = baseline_python(args.baseline)
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    print(f"earlier: {sha} ({where(old_python)})\nnow:     {head} ({where(sys.executable)})")
    pythons = {"earlier": old_python, "now": sys.executable}
    keys = [f"{name}|{what}" for name, _, _ in LEARNERS for what in (*FORMS, "chunks")]
    times = {"earlier": {k: [] for k in keys}, "now": {k: [] for k in keys}}
    for r in range(args.rounds):
        # fresh workers every round: a process's memory layout (where its arrays and compiled
        # kernels land) moves a dense pass by up to a third, the same way for all of its timings
        workers = {side: Worker(python) for side, python in pythons.items()}
        try:
            for k in keys:
                # each number timed in one environment, then at once in the other (which goes
                # first alternates by round): both sides meet the same state of the machine
                for side in (("earlier", "now") if r % 2 == 0 else ("now", "earlier")):
                    times[side][k].append(workers[side].time(k, args.repeats))
        finally:
            for w in workers.values():
                w.close()
    if args.json:
        Path(args.json).write_text(json.dumps({"earlier": sha, "now": head, "times": times}, indent=1))
    best = {side: {k: min(t) for k, t in by_key.items()} for side, by_key in times.items()}
    old, new = best["earlier"], best["now"]
    n = {"dense float64": 7291, "dense float32": 7291, "sparse": 6412}       # usps and sector train rows
    print(f"\n{'learner':14s} {'form':14s} {'earlier rows/s':>15s} {'now rows/s':>12s} {'now / earlier':>14s}")
    misses = []
    for name, _, _ in LEARNERS:
        for form in FORMS:
            k = f"{name}|{form}"
            ratio = old[k] / new[k]
            misses += [k] if ratio < 0.9 else []
            print(f"{name:14s} {form:14s} {n[form] / old[k]:15,.0f} {n[form] / new[k]:12,.0f} {ratio:13.2f}x")
    print(f"\n{'learner':14s} {'100-row partial_fit / one fit pass':>36s} {'now / earlier':>14s}")
    for name, _, _ in LEARNERS:
        r_old = old[f"{name}|chunks"] / old[f"{name}|dense float64"]
        r_new = new[f"{name}|chunks"] / new[f"{name}|dense float64"]
        misses += [f"{name}|chunks"] if r_new / r_old > 1.2 else []
        print(f"{name:14s} {f'{r_old:.2f}x -> {r_new:.2f}x':>36s} {r_new / r_old:13.2f}x")
    print("\nevery learner meets both targets" if not misses else f"\nmisses a target: {', '.join(misses)}")


if __name__ == "__main__":
    main()
