"""Paper reproductions: experiment specs, the resumable runner, the SQLite store, plots and reports."""
