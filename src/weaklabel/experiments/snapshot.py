"""Snapshots: the plan and the stored rows one experiment's report reads, as one small file.

The documentation renders its reproduction pages from snapshots kept under version
control (:meth:`weaklabel.experiments.engine.Experiment.write_snapshot` writes one,
``Experiment.run(snapshot=...)`` renders from it).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from .store import _default as _json_default
from .store import config_key

__all__ = ["Snapshot"]


class _Recorder:
    """A read-only store that remembers the rows handed out."""

    def __init__(self, store):
        self.store, self.path, self.unreadable, self.used = store, store.path, [], {}

    def rows(self, experiment, stage=None):
        rows = self.store.rows(experiment, stage)
        if stage is not None:
            self.used.setdefault(stage, {}).update({config_key(c): (c, r) for c, r in rows})
        return rows


class Snapshot:
    """The plan and the stored rows of one experiment's report, as one file.

    Read with :meth:`read`; it answers ``rows(experiment, stage)`` as a results store does,
    so a :class:`~weaklabel.experiments.engine.Context` can render from it.  Only the rows
    some cell of the plan reads are kept (see
    :meth:`~weaklabel.experiments.engine.Experiment.write_snapshot`).

    Parameters
    ----------
    experiment : str
        The experiment's name.
    plan : dict
        The plan its report was run with.
    rows : dict
        Stage -> {config key: (config, result)}.
    memos : dict or None, default=None
        What :meth:`~weaklabel.experiments.engine.Context.memo` computed (JSON-able).
    """

    def __init__(self, experiment, plan, rows, memos=None):
        self.experiment, self.plan, self.unreadable = experiment, plan, []
        self.memos = json.loads(json.dumps(memos or {}, default=_json_default))
        self._rows = {stage: dict(r) for stage, r in rows.items()}
        self.path = None

    def __len__(self):
        return sum(len(rows) for rows in self._rows.values())

    def rows(self, experiment, stage=None):
        """Return the stored ``(config, result)`` rows of an experiment, as a results store does.

        Parameters
        ----------
        experiment : str
            The experiment's name; another experiment's rows are empty.
        stage : str or None, default=None
            One stage, or every stage (sorted).

        Returns
        -------
        list of tuple
            ``(config, result)`` dict pairs.
        """
        if experiment != self.experiment:
            return []
        stages = [stage] if stage is not None else sorted(self._rows)
        return [row for st in stages for row in self._rows.get(st, {}).values()]

    def seed(self, store, keys=None):
        """Copy the rows a store lacks from this snapshot into the store.

        ``weaklabel reproduce NAME --from-snapshot FILE`` uses it: a fresh clone extends the
        documentation's runs (a new stage, a wider grid) without recomputing the cells the
        snapshot holds.  The copied rows keep their configs and results; their seconds are 0.

        Parameters
        ----------
        store : ResultStore
            A writable store; rows it holds readably are left alone.
        keys : collection of str or None, default=None
            Copy only these cells' rows (the engine passes the cells a run asks for, so a row
            no cell of the experiment could have produced is never copied); None: every row.

        Returns
        -------
        list of str
            The keys of the rows copied.
        """
        have = store.done_keys(self.experiment)
        copied = []
        for stage, rows in sorted(self._rows.items()):
            for key, (cfg, res) in rows.items():
                if key not in have and (keys is None or key in keys):
                    store.put(key, self.experiment, stage, cfg, res, 0.0)
                    copied.append(key)
        return copied

    def write(self, path):
        """Write the snapshot as gzip-compressed JSON (long curves rounded to 7 significant digits).

        Parameters
        ----------
        path : str or Path
            The file to write (its folder is created if needed).
        """
        import gzip

        body = {"experiment": self.experiment, "plan": self.plan, "memos": self.memos,
                "rows": {st: [[c, _round_floats(r)] for c, r in rows.values()]
                         for st, rows in sorted(self._rows.items())}}
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            json.dump(body, fh, default=_json_default, separators=(",", ":"), sort_keys=True)

    @classmethod
    def read(cls, path):
        """Read a snapshot file.

        Parameters
        ----------
        path : str or Path
            A file :meth:`write` wrote.

        Returns
        -------
        Snapshot
            The snapshot, with ``path`` set.

        Raises
        ------
        ValueError
            When the file is not a weaklabel snapshot.
        """
        import gzip
        import zlib

        try:
            with gzip.open(path, "rb") as fh:
                data = fh.read(MAX_SNAPSHOT_BYTES + 1)          # never more than the cap, whatever it inflates to
            if len(data) > MAX_SNAPSHOT_BYTES:
                raise ValueError(f"it inflates to more than {MAX_SNAPSHOT_BYTES // 2**20} MiB, more than any "
                                 "reproduction's snapshot")
            body = json.loads(data.decode("utf-8"))
            rows = _checked_body(body)
            snap = cls(body["experiment"], body["plan"], rows, memos=body.get("memos"))
        except FileNotFoundError:
            raise
        except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path} is not a readable weaklabel snapshot ({exc}).") from None
        snap.path = Path(path)
        return snap


#: the largest decompressed snapshot read (the reproductions' largest is under 40 MiB)
MAX_SNAPSHOT_BYTES = 256 * 2**20


def _checked_body(body):
    """The rows of a snapshot's JSON body, {stage: {key: (config, result)}}, after checking
    its shape: one line naming what is wrong, never a traceback, and never an empty snapshot."""
    if not isinstance(body, dict) or not {"experiment", "plan", "rows"} <= set(body):
        raise ValueError("it is not an object with experiment, plan and rows")
    if not isinstance(body["experiment"], str) or not isinstance(body["plan"], dict):
        raise ValueError("its experiment must be a name and its plan an object")
    if not isinstance(body["rows"], dict) or not isinstance(body.get("memos", {}), dict):
        raise ValueError(f"its rows must map stages to lists of [config, result]; got {type(body['rows']).__name__}")
    rows = {}
    for stage, pairs in body["rows"].items():
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], dict)
                                                   and isinstance(p[1], dict) for p in pairs):
            raise ValueError(f"its stage {stage!r} is not a list of [config, result] pairs")
        rows[stage] = {config_key(c): (c, r) for c, r in pairs}
    if not any(rows.values()):
        raise ValueError("it holds no rows")
    return rows


def _round_floats(value, digits=7, in_curve=False):
    """``value`` with the floats of its long lists (curves, which only figures read)
    rounded to ``digits`` significant digits: a snapshot is half the size, and every
    number a table prints, computed from exact scalars, stays the same to the last digit.
    """
    if isinstance(value, float):
        return float(f"{value:.{digits}g}") if in_curve and math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: _round_floats(v, digits, in_curve) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        curve = in_curve or len(value) >= 10
        return [_round_floats(v, digits, curve) for v in value]
    return value
