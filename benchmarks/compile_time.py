"""First-fit latency: what numba's compilation costs a user on a fresh install.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/compile_time.py [--repeats 2] [--learners CSPA MMS]

Each learner is fitted once on a tiny problem in a fresh Python process whose numba cache
(``NUMBA_CACHE_DIR``) is an empty temporary folder, so every kernel it calls is compiled
afresh, as on a new machine or a clean CI clone; then once more in a second fresh process on
the cache the first one wrote, as on every later run. It prints the CPU seconds of that first
``fit`` (the child's process time: compiling is single-threaded, and process time is steadier
than wall time on a shared machine), the best of ``repeats`` pairs, and the cold / warm ratio.
The imports are timed apart and not counted. Run it on the code before and after a change to
see what the change saves; the machine's speed drifts, so compare runs made side by side.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

#: each learner's first fit: a few rows, so the fit itself is negligible and the time is the compile
LEARNERS = {
    "AvgPerceptron": "from weaklabel.partial import AvgPerceptron as L; L(random_state=0).fit(X, S)",
    "AvgPegasos": "from weaklabel.partial import AvgPegasos as L; L(random_state=0).fit(X, S)",
    "CSPA": "from weaklabel.bandit import CSPA as L; L(random_state=0).fit(X, S)",
    "Banditron": "from weaklabel.bandit import Banditron as L; L(random_state=0).fit(X, y)",
    "Confidit (diagonal)": "from weaklabel.bandit import Confidit as L; L(diagonal=True, random_state=0).fit(X, y)",
    "Confidit (full)": "from weaklabel.bandit import Confidit as L; L(random_state=0).fit(X, y)",
    "SketchedConfidit": "from weaklabel.bandit import SketchedConfidit as L; L(sketch_size=4, random_state=0).fit(X, y)",
    "CorrectedLogistic": "from weaklabel.noisy import CorrectedLogistic as L; L().fit(X, y)",
    "DawidSkene": "from weaklabel.sources import DawidSkene as L; L().fit(votes)",
    "MMS": "from weaklabel.bags import MMS as L; L(n_rounds=2, max_iter=2, random_state=0).fit(X, S)",
}

CHILD = """
import json, time
t0 = time.process_time()
import numpy as np
from weaklabel.simulate import make_candidate_sets
rng = np.random.RandomState(0)
X = rng.randn(60, 5)
y = np.arange(60) % 3
S = make_candidate_sets(y, set_size=2, random_state=0)
votes = np.where(rng.rand(60, 4) < 0.8, y[:, None], (y[:, None] + 1) % 3)
t1 = time.process_time()
{fit}
t2 = time.process_time()
print(json.dumps([t1 - t0, t2 - t1]))
"""


def first_fit(code, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", CHILD.format(fit=code)], env=env, capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        raise SystemExit(f"the child failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--learners", nargs="+", default=list(LEARNERS), choices=list(LEARNERS), metavar="NAME")
    args = ap.parse_args()
    print(f"{'learner':22s} {'cold first fit (s)':>19s} {'warm first fit (s)':>19s} {'cold / warm':>12s}")
    total_cold = 0.0
    for name in args.learners:
        cold = warm = float("inf")
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as cache:
                cold = min(cold, first_fit(LEARNERS[name], cache)[1])
                warm = min(warm, first_fit(LEARNERS[name], cache)[1])
        total_cold += cold
        print(f"{name:22s} {cold:19.2f} {warm:19.2f} {cold / max(warm, 1e-9):11.0f}x")
    print(f"{'sum':22s} {total_cold:19.2f}")


if __name__ == "__main__":
    main()
