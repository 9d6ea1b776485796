"""One-page HTML reports: self-contained, and rendered by headless Chromium."""

import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from weaklabel.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("html")
    r = CliRunner().invoke(main, ["reproduce", "cspa-linear", "--quick", "--no-progress", "--dataset", "vehicle",
                                  "--out", str(tmp / "run")])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["report", str(tmp / "run"), "--html", str(tmp / "page.html")])
    assert r.exit_code == 0, r.output
    return tmp / "page.html", (tmp / "run" / "report.md").read_text()


@pytest.mark.data("vehicle")
def test_page_is_self_contained_with_commands_and_versions(page):
    path, md = page
    text = path.read_text()
    is_row = [line.startswith("|") for line in md.splitlines()]
    n_tables_md = sum(1 for i, r in enumerate(is_row) if r and (i == 0 or not is_row[i - 1]))
    assert text.count("<table>") == n_tables_md + 1                # the report's tables + the store's
    assert text.count('src="data:image/png;base64,') == md.count("![")
    assert not re.search(r'src="(?!data:)', text)                    # nothing loaded from elsewhere
    assert "weaklabel reproduce cspa-linear --quick" in text
    assert "numpy" in text and "scikit-learn" in text and "cspa-linear" in text


def test_report_needs_a_store(tmp_path):
    r = CliRunner().invoke(main, ["report", str(tmp_path), "--html", str(tmp_path / "x.html")])
    assert r.exit_code == 2 and "no results store" in r.output
    r = CliRunner().invoke(main, ["report", "cspa-linear"])
    assert r.exit_code == 2 and "--out" in r.output


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium; "
                                            ".ci/run installs it)")
@pytest.mark.data("vehicle")
def test_chromium_renders_every_table_and_image(page, tmp_path):
    path, md = page
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=10000"]
    dom = subprocess.run(flags + ["--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120).stdout
    body = re.search(r"<body([^>]*)>", dom)
    assert body, dom[:500]
    attrs = dict(re.findall(r'data-([a-z-]+)="(\d+)"', body.group(1)))
    assert int(attrs["tables"]) == path.read_text().count("<table>")
    assert int(attrs["images"]) == md.count("![") >= 1
    assert attrs["images-ok"] == attrs["images"]                     # every PNG decoded
    shot = tmp_path / "shot.png"
    subprocess.run(flags + [f"--screenshot={shot}", "--window-size=1400,2000", path.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.stat().st_size > 20_000                              # a rendered page, not a blank one
