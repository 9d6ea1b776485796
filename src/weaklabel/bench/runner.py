"""Run experiment cells serially or on local processes; skip the ones already stored."""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from .store import config_key

__all__ = ["Cell", "run_cells"]


class Cell:
    """One run: a JSON-able config and the module-level function that runs it."""

    __slots__ = ("experiment", "stage", "config", "fn", "key")

    def __init__(self, experiment, stage, config, fn):
        self.experiment = experiment
        self.stage = stage
        self.config = dict(config, experiment=experiment, stage=stage)
        self.fn = fn
        self.key = config_key(self.config)


def _timed(fn, config):
    t0 = time.perf_counter()
    out = fn(config)
    return out, time.perf_counter() - t0


def run_cells(cells, store, *, jobs=1, progress=True, desc="cells"):
    """Run every cell whose key is not in ``store``; store each result as it finishes.

    Parameters
    ----------
    cells : list of Cell
    store : ResultStore
    jobs : int
        1 runs in this process; N > 1 uses N local worker processes.
    progress : bool
        Show a progress bar (tqdm) on stderr.

    Returns
    -------
    n_run : int
        Cells run now (the rest were already stored).
    """
    done = store.done_keys()
    seen = set()
    todo = []
    for c in cells:
        if c.key not in done and c.key not in seen:
            seen.add(c.key)
            todo.append(c)
    if not todo:
        return 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc=desc, unit="cell", leave=False)
    try:
        if jobs <= 1:
            for c in todo:
                out, sec = _timed(c.fn, c.config)
                store.put(c.key, c.experiment, c.stage, c.config, out, sec)
                if bar:
                    bar.update(1)
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                pending = {}
                it = iter(todo)
                for c in it:                       # keep the queue short: 4 per worker
                    pending[pool.submit(_timed, c.fn, c.config)] = c
                    if len(pending) >= 4 * jobs:
                        break
                while pending:
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        c = pending.pop(fut)
                        out, sec = fut.result()
                        store.put(c.key, c.experiment, c.stage, c.config, out, sec)
                        if bar:
                            bar.update(1)
                        nxt = next(it, None)
                        if nxt is not None:
                            pending[pool.submit(_timed, nxt.fn, nxt.config)] = nxt
    finally:
        if bar:
            bar.close()
    return len(todo)
