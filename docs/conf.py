"""Sphinx configuration of weaklabel's documentation (``make -C docs html``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import weaklabel  # noqa: E402

project = "weaklabel"
author = "the weaklabel developers"
copyright = "2026, the weaklabel developers"
release = weaklabel.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "weaklabel_docs",          # _ext/weaklabel_docs.py: reproduction pages from the result snapshots
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_parts", "reproductions/generated", "**/README.md"]
templates_path = ["_templates"]

# Markdown pages (MyST): GitHub-style tables, ``$...$`` never read as math, heading anchors
# so that ``page.md#a-section`` links resolve (and broken ones warn, hence fail with -W).
myst_enable_extensions = ["colon_fence", "deflist"]
# no typographic replacements: "--cbify" is a flag, not an en dash, and tables must show
# exactly what their stores hold (tests/test_docs_numbers.py compares them)
smartquotes = False
myst_heading_anchors = 3

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = True
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()      # the docstring tests check the sections (tests/test_docstrings.py)
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "plot_gallery": "True",
}

html_theme = "pydata_sphinx_theme"
html_title = "weaklabel"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_end": ["navbar-icon-links"],
    "footer_start": ["copyright"],
    "footer_end": [],
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
html_copy_source = False

# every internal cross-reference must resolve: -n (nitpicky) with -W fails the build otherwise
nitpicky = False
suppress_warnings = ["myst.xref_missing"] if os.environ.get("WEAKLABEL_DOCS_LAX") else []
