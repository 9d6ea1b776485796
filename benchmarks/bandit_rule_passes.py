"""The per-rule bandit passes against the single four-rule pass they replaced, in one process.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/bandit_rule_passes.py --baseline COMMIT [--repeats 20]

(the developer page names the commit: the last one with ``_bandit_pass``).

The earlier ``bandit/_kernels.py`` is read from git at that commit and loaded beside this
checkout's, as a module of the same package (it imports the same row helpers); the learners
are then fitted with either kernel, by pointing ``RULE_PASSES`` at it, alternately in one
process, so both sides meet the same state of a shared machine.  One number per rule and
dense precision: the best of ``--repeats`` fits with the per-rule passes over the best of as
many with the single pass (USPS, ``max_iter=3``, data order, BLAS on one thread).  The
weights each fit learns are compared too: they must be equal to the bit.  The target: every
ratio at most 1.11 (rows/s at least 0.9x the single pass's).
"""

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]


def _earlier_pass(commit):
    """``_bandit_pass`` of ``commit``'s ``bandit/_kernels.py``, loaded into this package."""
    source = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:src/weaklabel/bandit/_kernels.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "_kernels_earlier.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("weaklabel.bandit._kernels_earlier", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module._bandit_pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="a commit whose bandit/_kernels.py has _bandit_pass")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

    import weaklabel.bandit._learners as learners
    from weaklabel import datasets
    from weaklabel.bandit import BPA, CSPA, SPA, Banditron

    warnings.simplefilter("ignore")
    passes = {"single": (_earlier_pass(args.baseline),) * 4, "per rule": learners.RULE_PASSES}
    data = datasets.load("usps")
    X = np.ascontiguousarray(data.X_train)
    y = data.y_train
    makers = {"CSPA": lambda: CSPA(max_iter=3, shuffle=False),
              "SPA": lambda: SPA(max_iter=3, shuffle=False),
              "Banditron": lambda: Banditron(max_iter=3, shuffle=False, random_state=0),
              "Banditron, average=False": lambda: Banditron(max_iter=3, shuffle=False, random_state=0, average=False),
              "BPA": lambda: BPA(max_iter=3, shuffle=False, random_state=0)}
    print(f"single pass: {args.baseline}; per-rule passes: this checkout; best of {args.repeats} fits each\n")
    print(f"{'learner':<26}{'dense float64':>15}{'dense float32':>15}")
    missed = []
    with threadpool_limits(1):
        for name, make in makers.items():
            cells = []
            for Xf in (X, X.astype(np.float32)):
                best, coef = {}, {}
                for which, kernels in passes.items():        # compile outside the timings
                    learners.RULE_PASSES = kernels
                    coef[which] = make().fit(Xf, y).coef_
                if not np.array_equal(coef["single"], coef["per rule"]):
                    raise SystemExit(f"{name}: the per-rule pass learns other weights than the single pass")
                for _ in range(args.repeats):
                    for which, kernels in passes.items():
                        learners.RULE_PASSES = kernels
                        t0 = time.perf_counter()
                        make().fit(Xf, y)
                        best[which] = min(best.get(which, np.inf), time.perf_counter() - t0)
                ratio = best["per rule"] / best["single"]
                cells.append(f"{ratio:.2f}x")
                if ratio > 1.11:
                    missed.append(f"{name} {Xf.dtype}")
            print(f"{name:<26}{cells[0]:>15}{cells[1]:>15}")
    learners.RULE_PASSES = passes["per rule"]
    print("\ntime of the per-rule passes / the single pass's; weights equal to the bit in every fit")
    print("misses the target: " + (", ".join(missed) if missed else "none"))


if __name__ == "__main__":
    main()
