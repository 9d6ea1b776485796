"""The online learners against an earlier commit of their own code, side by side in one run.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/online_side_by_side.py --baseline COMMIT [--rounds 60]

(the developer page names the commit the performance page's table compares with).

The earlier commit is installed into a second environment of its own (a virtual environment
that sees this one's packages, with that commit's weaklabel installed over them; kept in the
user cache directory, made once).  Each round starts a worker process in each environment
(this file's ``--worker`` mode) and times every number in one and at once in the other (the
first side alternating by round), so both sides of every ratio meet the same state of a
shared machine within a second or so of each other; each timing is the best of ``--repeats``.
A ratio is the median over the rounds of the round's own ratio (both sides of it from the
same round), with a 95 % bootstrap interval of that median; the ratio of the two sides'
best times is printed beside it.  Why the median of paired ratios: where a process's arrays
and compiled kernels land in memory moves a dense pass by up to a third for the whole life
of the process, so a ratio of two bests compares each side's luckiest process, and one
lucky round on one side moves it by 15 % (one learner's pass read 0.84x in one run of the
same code, 0.95-1.04x in three others).  Twenty rounds leave intervals about 0.15 wide; sixty
(the default, about half an hour) about 0.08.  BLAS is pinned to one thread (the
variable and threadpoolctl).

Measured, with the public API only (so the same code times both commits): rows/s of one
``fit`` pass (``max_iter=1, shuffle=False``) of each online learner on dense float64, dense
float32 (usps) and sparse rows (sector); and ``partial_fit`` on 100-row chunks of usps
against one ``fit`` pass.  The targets, each met when the whole interval of its median is on
its side (missed when the whole interval is beyond it; undecided otherwise: run more rounds):

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

import numpy as np

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
    ap.add_argument("--baseline", required=not {"--worker", "--table"} & set(sys.argv), help="the commit to compare with")
    ap.add_argument("--rounds", type=int, default=60, help="rounds, each with fresh workers on both sides")
    ap.add_argument("--repeats", type=int, default=10, help="timings of each number within a run")
    ap.add_argument("--json", help="also write every round's timings (seconds) to this file")
    ap.add_argument("--table", metavar="JSON", help="print the tables of a run written by --json, and stop")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        serve()
        return
    if args.table:
        run = json.loads(Path(args.table).read_text())
        print(f"earlier: {run['earlier']}\nnow:     {run['now']}")
        table(run["times"])
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
    table(times)


def median_interval(ratios, seed=0):
    """The median of a run's paired ratios and a 95 % bootstrap interval of it (2,000
    resamples of the rounds)."""
    ratios = np.asarray(ratios)
    resampled = np.random.default_rng(seed).choice(ratios, size=(2000, ratios.size))
    lo, hi = np.percentile(np.median(resampled, axis=1), [2.5, 97.5])
    return float(np.median(ratios)), float(lo), float(hi)


def verdict(interval, *, at_least=None, at_most=None):
    """``"met"`` when the whole interval is on the target's side, ``"missed"`` when the whole
    interval is beyond it, else ``"undecided"`` (more rounds narrow the interval)."""
    _, lo, hi = interval
    if at_least is not None:
        return "met" if lo >= at_least else "missed" if hi < at_least else "undecided"
    return "met" if hi <= at_most else "missed" if lo > at_most else "undecided"


def table(times):
    """Print both tables from every round's timings (``times[side][key]``, seconds) and the
    verdict on each target; returns ``{key: verdict}`` of the numbers not met."""
    old, new = ({k: np.array(t) for k, t in times[side].items()} for side in ("earlier", "now"))
    n = {"dense float64": 7291, "dense float32": 7291, "sparse": 6412}       # usps and sector train rows
    head = "now / earlier: median [95 % interval]"
    print(f"\n{'learner':14s} {'form':14s} {'earlier rows/s':>15s} {'now rows/s':>12s} {head:>38s} {'of bests':>9s}")
    not_met = {}
    for name, _, _ in LEARNERS:
        for form in FORMS:
            k = f"{name}|{form}"
            med = median_interval(old[k] / new[k])               # each round's rows/s now / earlier
            not_met[k] = verdict(med, at_least=0.9)
            print(f"{name:14s} {form:14s} {n[form] / old[k].min():15,.0f} {n[form] / new[k].min():12,.0f} "
                  f"{f'{med[0]:.2f}x [{med[1]:.2f}-{med[2]:.2f}]':>38s} {old[k].min() / new[k].min():8.2f}x")
    print(f"\n{'learner':14s} {'100-row partial_fit / one fit pass':>36s} {head:>38s} {'of bests':>9s}")
    for name, _, _ in LEARNERS:
        c, p = f"{name}|chunks", f"{name}|dense float64"
        med = median_interval((new[c] / new[p]) / (old[c] / old[p]))
        not_met[c] = verdict(med, at_most=1.2)
        r_old, r_new = np.median(old[c] / old[p]), np.median(new[c] / new[p])
        bests = (new[c].min() / new[p].min()) / (old[c].min() / old[p].min())
        print(f"{name:14s} {f'{r_old:.2f}x -> {r_new:.2f}x':>36s} {f'{med[0]:.2f}x [{med[1]:.2f}-{med[2]:.2f}]':>38s} "
              f"{bests:8.2f}x")
    not_met = {k: v for k, v in not_met.items() if v != "met"}
    print("\nevery learner meets both targets (every interval on the target's side)" if not not_met else
          "\n" + "\n".join(f"{k}: {v}" for k, v in not_met.items()))
    return not_met


if __name__ == "__main__":
    main()
