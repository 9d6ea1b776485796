"""The documentation: every public name is in the API reference, and the built site (when
``make -C docs html`` has run, as ``.ci/run`` does before the tests) opens in headless
Chromium without console errors and with the expected headings."""

import importlib
import inspect
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILT = DOCS / "_build" / "html"
PUBLIC = ["weaklabel", "weaklabel.labels", "weaklabel.partial", "weaklabel.bandit", "weaklabel.bandit.evaluation",
          "weaklabel.bandit.logs", "weaklabel.bags", "weaklabel.structured", "weaklabel.structured.inference",
          "weaklabel.noisy", "weaklabel.sources", "weaklabel.calibration", "weaklabel.metrics", "weaklabel.simulate",
          "weaklabel.datasets", "weaklabel.presets", "weaklabel.distributed", "weaklabel.experiments.engine",
          "weaklabel.experiments.results", "weaklabel.experiments.render", "weaklabel.experiments.snapshot",
          "weaklabel.experiments.registry"]


def _documented():
    """``{module: names}`` listed under each ``.. currentmodule::`` of docs/api.rst."""
    out, module = {}, None
    for line in (DOCS / "api.rst").read_text().splitlines():
        m = re.match(r"\.\. currentmodule:: (\S+)", line)
        if m:
            module = m.group(1)
            continue
        m = re.match(r"   ([A-Za-z_][A-Za-z0-9_]*)$", line)
        if m and module:
            out.setdefault(module, set()).add(m.group(1))
        m = re.match(r"\.\. autodata:: (\S+)", line)
        if m and module:
            out.setdefault(module, set()).add(m.group(1))
    return out


def test_every_public_name_is_in_the_api_reference():
    documented = _documented()
    objects = {id(getattr(importlib.import_module(mod), n)) for mod, names in documented.items() for n in names
               if hasattr(importlib.import_module(mod), n)}
    missing = []
    for mod in PUBLIC:
        module = importlib.import_module(mod)
        for name in module.__all__:
            if name.startswith("__"):
                continue
            obj = getattr(module, name)
            here = name in documented.get(mod, ())
            elsewhere = (inspect.isclass(obj) or inspect.isfunction(obj)) and id(obj) in objects
            if not (here or elsewhere):
                missing.append(f"{mod}.{name}")
    assert not missing, f"not in docs/api.rst: {missing}"


def test_every_subpackage_with_all_is_listed():
    """A new public subpackage must be added to the reference (and to PUBLIC above)."""
    import pkgutil

    import weaklabel

    found = []
    for info in pkgutil.walk_packages(weaklabel.__path__, "weaklabel."):
        if any(part.startswith("_") for part in info.name.split(".")) or ".experiments." in info.name:
            continue
        if info.name.startswith("weaklabel.cli") or info.name == "weaklabel.experiments":
            continue
        module = importlib.import_module(info.name)
        if getattr(module, "__all__", None) and info.ispkg:
            found.append(info.name)
    assert set(found) <= set(PUBLIC), sorted(set(found) - set(PUBLIC))


def test_every_reproduction_page_has_its_snapshot():
    from weaklabel.experiments import registry

    pages = "".join(p.read_text() for p in (DOCS / "reproductions").glob("*.md"))
    for name in re.findall(r"generated/([a-z0-9-]+)/report.md", pages):
        assert name in registry.names()
        assert (DOCS / "reproductions" / "stores" / f"{name}.json.gz").exists(), name


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.slow
@pytest.mark.skipif(not (BUILT / "index.html").exists() and not os.environ.get("CI"),
                    reason="the docs are not built (make -C docs html); .ci/run builds them first")
@pytest.mark.parametrize("page, headings", [
    ("index.html", ["weaklabel"]),
    ("user_guide/partial.html", ["Candidate label sets", "The online learners"]),
    ("api.html", ["API reference"]),
    ("reproductions/partial.html", ["Candidate label sets"]),
])
def test_built_page_opens_in_chromium(page, headings, tmp_path):
    path = BUILT / page
    assert path.exists(), f"{path} is missing: run `make -C docs html` first"
    browser = _chromium()
    if browser is None:
        pytest.skip("no headless Chromium (apt-get install chromium)")
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--enable-logging=stderr", "--v=1", f"--user-data-dir={tmp_path}",
                           "--virtual-time-budget=5000", "--dump-dom", path.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line and
               re.search(r"Uncaught|Error|error|Failed to load", line)]
    assert not console, console
    dom = proc.stdout
    for heading in headings:
        assert re.search(r"<h1[^>]*>[^<]*" + re.escape(heading), dom) or re.search(
            r"<h[12][^>]*>(?:(?!</h).)*" + re.escape(heading), dom, re.S), heading


#: what a lab diary leaves: a date, a tracker number, a session count, a commit hash
_HISTORY = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b|\bissues? \d+|\bin progress\b|\bstops? \d+|\bsessions?\b"
                      r"|\b[a-z]+-?(?:first|second|third|[a-z]+th) session\b"
                      r"|(?<![\w.])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w.])", re.I)
ROOT = DOCS.parent


def _history_lines(paths):
    return [f"{p.relative_to(ROOT)}:{i + 1}: {line.strip()[:80]}" for p in paths
            for i, line in enumerate(p.read_text().splitlines()) if _HISTORY.search(line)]


def test_user_pages_and_the_code_carry_no_development_history():
    """Pages, docstrings and comments explain the code and its results: no dates, tracker
    numbers, session counts or commit hashes (history goes to CHANGELOG.md; the developer
    page may tell it). The pages rendered from the stores are checked with their sources."""
    pages = [p for p in DOCS.rglob("*.md") if not {"_build", "generated", "auto_examples"} & set(p.parts)
             and p.name != "development.md"]
    code = list((ROOT / "src" / "weaklabel").rglob("*.py")) + list((ROOT / "examples").glob("*.py")) \
        + list((ROOT / "benchmarks").glob("*.py"))
    bad = _history_lines([ROOT / "README.md"] + pages + code)
    tests = [f"{p.relative_to(ROOT)}: {name}" for p in (ROOT / "tests").rglob("*.py")
             for name in re.findall(r"def (test_\w+)", p.read_text()) if _HISTORY.search(name.replace("_", " "))]
    assert not bad + tests, "development history in user pages, code or test names:\n" + "\n".join(bad + tests)


def test_the_history_check_finds_a_diary():
    for line in ("measured 2026-11-29", "as issue 39 asks", "(session 12)", "the twenty-sixth session",
                 "over two sessions",
                 "the code of `84567cf`", "still in progress"):
        assert _HISTORY.search(line), line
    for line in ("sha256 of the file", "max_nodes=2000000", "2026 words", "1e-3 and 3e-5", "a 7-class set",
                 "0x7ffff", "issues of scale"):
        assert not _HISTORY.search(line), line


@pytest.mark.skipif(not (DOCS / "auto_examples").exists() and not os.environ.get("CI"),
                    reason="the gallery is not built (make -C docs html)")
def test_the_gallery_examples_print_no_warning():
    """What a reader copies should run clean: no example's captured output holds a warning."""
    pages = sorted((DOCS / "auto_examples").glob("plot_*.rst"))
    assert pages, "the gallery was not built"
    noisy = {p.name: line.strip() for p in pages for line in p.read_text().splitlines() if "Warning:" in line}
    assert not noisy, noisy
