"""Optional packages: the one place that imports them, with an error naming the extra.

The learners need only numpy, scipy, scikit-learn and numba.  The command line,
progress bars, plots, HDF5 data and Dask come with extras (``pip install
"weaklabel[cli]"``, ``[hdf5]``, ``[dask]``, or ``[all]``).
"""

from __future__ import annotations

import importlib

__all__ = ["require", "EXTRAS"]

#: top-level module -> (PyPI package, extra that installs it)
EXTRAS = {
    "click": ("click", "cli"),
    "tqdm": ("tqdm", "cli"),
    "matplotlib": ("matplotlib", "cli"),
    "h5py": ("h5py", "hdf5"),
    "dask": ("dask[distributed]", "dask"),
    "distributed": ("dask[distributed]", "dask"),
    "pandas": ("pandas", "pandas"),
}


def require(module, purpose):
    """Import ``module`` (e.g. ``"matplotlib.pyplot"``) or raise an ImportError naming the extra.

    Parameters
    ----------
    module : str
        Dotted module name; its top-level package must be one of :data:`EXTRAS`.
    purpose : str
        What needs it, for the message (e.g. ``"reading usps.h5"``).
    """
    top = module.split(".")[0]
    package, extra = EXTRAS[top]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{purpose} needs the optional package {package!r}, which is not installed ({exc}); "
            f"install it with: pip install \"weaklabel[{extra}]\" (or \"weaklabel[all]\")."
        ) from None
