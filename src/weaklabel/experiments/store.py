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

__all__ = ["ResultStore", "StoreError", "config_key"]

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
    """Return a stable hash of a JSON-able config (sorted keys).

    Parameters
    ----------
    config : dict
        The config; numpy scalars and arrays are accepted.

    Returns
    -------
    str
        The SHA-256 hex digest.
    """
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


_COLUMNS = {"results": ["key", "experiment", "stage", "config", "result", "seconds", "created"],
            "runs": ["created", "command", "versions"]}


class StoreError(ValueError):
    """A results store that cannot be read or written: one message naming the file."""


class ResultStore:
    """An SQLite file of finished cells.

    A file that is not a results store (truncated, garbage, another schema, a folder)
    raises :class:`StoreError` naming it and what to do.  A stored row whose result cannot
    be read is left out of :meth:`rows` and :meth:`done_keys`, so the runner computes that
    cell again and replaces the row; ``unreadable`` counts them.

    Parameters
    ----------
    path : str or Path
        The database file; its folder is created if needed (not when ``read_only``).
    read_only : bool, default=False
        Open without ever writing (reports): the file must exist, and a store in a
        read-only place can be read.
    """

    def __init__(self, path, read_only=False):
        self.path = Path(path)
        self.read_only = read_only
        self.unreadable = set()
        try:
            if read_only:
                if not self.path.is_file():
                    raise StoreError(f"no results store at {self.path}; run `weaklabel reproduce` first.")
                uri = f"file:{os.fspath(self.path)}?mode=ro"
                try:
                    self._conn = sqlite3.connect(uri, uri=True, timeout=60)
                    self._conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
                except sqlite3.OperationalError:          # a WAL store in a place we cannot write
                    self._conn = sqlite3.connect(uri + "&immutable=1", uri=True, timeout=60)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._conn = sqlite3.connect(os.fspath(self.path), timeout=60)
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.executescript(_SCHEMA)
                self._conn.commit()
            # read text as bytes: a stored cell whose bytes are not UTF-8 (a bit flip) is then
            # one unreadable row, computed again, instead of an error on every later read
            self._conn.text_factory = bytes
            self._check_schema()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path} is not a readable results store ({exc}). Move it away to start afresh, "
                             "or choose another --out.") from None

    def _query(self, sql, args=()):
        """All rows of one query; any SQLite error (a damaged page, a locked file) is one
        :class:`StoreError` naming the store.
        """
        try:
            return self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path} cannot be read ({exc}). Move it away to start afresh, or choose another "
                             "--out.") from None

    def _check_schema(self):
        for table, cols in _COLUMNS.items():
            have = [_text(r[1]) for r in self._conn.execute(f"PRAGMA table_info({table})")]
            if have != cols:
                raise StoreError(f"{self.path} is an SQLite file but not a weaklabel results store (table {table} "
                                 f"has columns {have}). Move it away to start afresh, or choose another --out.")

    def close(self):
        """Close the database connection."""
        self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def done_keys(self, experiment=None):
        """Return the keys of the stored cells whose result can be read (the others are to be rerun).

        Parameters
        ----------
        experiment : str or None, default=None
            One experiment's cells, or every cell.

        Returns
        -------
        set of str
            The config keys.
        """
        q = "SELECT key, config, result FROM results" + (" WHERE experiment = ?" if experiment else "")
        return {_text(k) for k, c, r in self._query(q, (experiment,) if experiment else ())
                if self._parse(k, c, r) is not None}

    def _parse(self, key, config, result):
        try:
            cfg, res = json.loads(config), json.loads(result)       # bytes; not UTF-8 is a ValueError
        except (TypeError, ValueError):
            cfg = res = None
        if not isinstance(cfg, dict) or not isinstance(res, dict):
            self.unreadable.add(_text(key))
            return None
        return cfg, res

    def put(self, key, experiment, stage, config, result, seconds):
        """Store one finished cell.

        The runner only runs cells not stored readably, so this adds a row or replaces an
        unreadable one; never a duplicate.

        Parameters
        ----------
        key : str
            The cell's config key.
        experiment, stage : str
            Where the cell belongs.
        config, result : dict
            Its JSON-able settings and result.
        seconds : float
            How long it ran.
        """
        try:
            with self._conn:
                self._conn.execute(
                    "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?)",     # replaces an unreadable row
                    (key, experiment, stage, json.dumps(config, sort_keys=True, default=_default),
                     json.dumps(result, default=_default), float(seconds), time.time()),
                )
        except sqlite3.OperationalError as exc:
            if self.read_only:
                raise
            raise StoreError(f"{self.path} cannot be written ({exc}).") from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} cannot be written ({exc}). Move it away to start afresh, or choose "
                             "another --out.") from None

    def delete(self, keys):
        """Remove these cells' rows (one transaction), so the next run computes them again.

        Parameters
        ----------
        keys : iterable of str
            The config keys.
        """
        try:
            with self._conn:
                self._conn.executemany("DELETE FROM results WHERE key = ?", [(k,) for k in keys])
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} cannot be written ({exc}).") from None

    def rows(self, experiment, stage=None):
        """Return the readable ``(config, result)`` rows of an experiment (and stage).

        Parameters
        ----------
        experiment : str
            The experiment's name.
        stage : str or None, default=None
            One stage, or every stage.

        Returns
        -------
        list of tuple
            ``(config, result)`` dict pairs, ordered by key.
        """
        q = "SELECT config, result FROM results WHERE experiment = ?"
        args = [experiment]
        if stage is not None:
            q += " AND stage = ?"
            args.append(stage)
        out = []
        for k, c, r in self._query(q.replace("SELECT config", "SELECT key, config") + " ORDER BY key", args):
            parsed = self._parse(k, c, r)
            if parsed is not None:
                out.append(parsed)
        return out

    def log_run(self, command, versions):
        """Record the command line and package versions of a run that wrote to this store.

        Parameters
        ----------
        command : str
            The command line.
        versions : dict
            Package -> version (:func:`~weaklabel.experiments.html.versions`).
        """
        with self._conn:
            self._conn.execute("INSERT INTO runs VALUES (?, ?, ?)",
                               (time.time(), command, json.dumps(versions, sort_keys=True)))

    def runs(self):
        """Return the runs logged by :meth:`log_run`, oldest first.

        Returns
        -------
        list of tuple
            ``(unix time, command, versions dict)``; a damaged line is skipped.
        """
        out = []
        for t, c, v in self._query("SELECT created, command, versions FROM runs ORDER BY created"):
            try:
                out.append((t, _text(c), json.loads(v)))
            except (TypeError, ValueError):
                continue                                   # a damaged log line: not a result, skipped
        return out

    def experiments(self):
        """Return what the store holds, per experiment and stage.

        Returns
        -------
        list of tuple
            ``(experiment, stage, cells, total seconds)``.
        """
        return [(_text(e), _text(s), n, t) for e, s, n, t in self._query(
            "SELECT experiment, stage, COUNT(*), SUM(seconds) FROM results GROUP BY experiment, stage "
            "ORDER BY experiment, stage")]

    def count(self, experiment=None):
        """Return the number of stored rows.

        Parameters
        ----------
        experiment : str or None, default=None
            One experiment's rows, or every row.

        Returns
        -------
        int
            The count (unreadable rows included).
        """
        q = "SELECT COUNT(*) FROM results" + (" WHERE experiment = ?" if experiment else "")
        return self._query(q, (experiment,) if experiment else ())[0][0]


def _text(value):
    """A TEXT column read as bytes (see ``text_factory``), as str; undecodable bytes are
    replaced (a damaged key or name then matches nothing, and its row is rerun).
    """
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
