"""The paper reproductions, an application built on the learners (which never import it).

- :mod:`~weaklabel.experiments.engine`: ``Experiment``, ``Context`` and the results that
  hold numbers (``Table``, ``Figure``, ``Summary``), with their Markdown / CSV / PNG
  renderers;
- :mod:`~weaklabel.experiments.registry`: the one list of experiments, read by the
  command line, ``report`` and the tests;
- :mod:`~weaklabel.experiments.runner` and :mod:`~weaklabel.experiments.store`: cells run
  serially or on Dask, kept in a resumable SQLite store;
- one module per paper (``partial_labels``, ``pll_realworld``, ``uma``, ``cspa``, ``mms``,
  ``m3n_hmc``, ``sudoku``, ``visual_sudoku``), each defining ``EXPERIMENTS``.
"""
