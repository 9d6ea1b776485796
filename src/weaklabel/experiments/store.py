"""SQLite results store: one row per finished cell, keyed by a hash of its full config.

Rows are written by one process (the runner's), each in its own transaction, so a
killed sweep loses at most the cells that were running and never duplicates one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path

__all__ = ["ResultStore", "config_key"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    experiment TEXT NOT NULL,
    stage TEXT NOT NULL,
    config TEXT NOT NULL,
    result TEXT NOT NULL,
    seconds REAL NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS results_exp ON results (experiment, stage);
CREATE TABLE IF NOT EXISTS runs (
    created REAL NOT NULL,
    command TEXT NOT NULL,
    versions TEXT NOT NULL
);
"""


def config_key(config):
    """Stable hash of a JSON-able config (sorted keys)."""
    blob = json.dumps(config, sort_keys=True, separators=(",", ":"), default=_default)
    return hashlib.sha256(blob.encode()).hexdigest()


def _default(o):
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


class ResultStore:
    """An SQLite file of finished cells.

    Parameters
    ----------
    path : str or Path
        The database file; its folder is created if needed.
    """

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(os.fspath(self.path), timeout=60)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.executescript(_SCHEMA)
        self._conn.commit()

    def close(self):
        self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def done_keys(self, experiment=None):
        q = "SELECT key FROM results" + (" WHERE experiment = ?" if experiment else "")
        return {r[0] for r in self._conn.execute(q, (experiment,) if experiment else ())}

    def put(self, key, experiment, stage, config, result, seconds):
        """Insert one finished cell (ignored if the key is already there)."""
        with self._conn:
            self._conn.execute(
                "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, experiment, stage, json.dumps(config, sort_keys=True, default=_default),
                 json.dumps(result, default=_default), float(seconds), time.time()),
            )

    def rows(self, experiment, stage=None):
        """List of (config, result) dicts for an experiment (and stage)."""
        q = "SELECT config, result FROM results WHERE experiment = ?"
        args = [experiment]
        if stage is not None:
            q += " AND stage = ?"
            args.append(stage)
        return [(json.loads(c), json.loads(r)) for c, r in self._conn.execute(q + " ORDER BY key", args)]

    def log_run(self, command, versions):
        """Record the command line and package versions of a run that wrote to this store."""
        with self._conn:
            self._conn.execute("INSERT INTO runs VALUES (?, ?, ?)",
                               (time.time(), command, json.dumps(versions, sort_keys=True)))

    def runs(self):
        """List of (unix time, command, versions dict), oldest first."""
        return [(t, c, json.loads(v)) for t, c, v in
                self._conn.execute("SELECT created, command, versions FROM runs ORDER BY created")]

    def experiments(self):
        """List of (experiment, stage, cells, total seconds)."""
        return list(self._conn.execute(
            "SELECT experiment, stage, COUNT(*), SUM(seconds) FROM results GROUP BY experiment, stage "
            "ORDER BY experiment, stage"))

    def count(self, experiment=None):
        q = "SELECT COUNT(*) FROM results" + (" WHERE experiment = ?" if experiment else "")
        return self._conn.execute(q, (experiment,) if experiment else ()).fetchone()[0]
