"""Every number on the documentation's pages comes from a result store or says where it came
from: the tables the built reproduction pages show equal a fresh rendering of their
snapshots, and every measured table typed into a page by hand is marked as such, with the
command (or the paper) that produced it."""

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILT = DOCS / "_build" / "html"
STORES = DOCS / "reproductions" / "stores"


class _Tables(HTMLParser):
    """The text of every table row of an HTML page: a list of lists of cell strings."""

    def __init__(self):
        super().__init__()
        self.rows, self._row, self._cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _page_rows(page):
    parser = _Tables()
    parser.feed(page.read_text())
    return parser.rows


def _summary_rows(table):
    from weaklabel.experiments.render import _fmt

    return [[_fmt(v, table.formats.get(col, "")) for col, v in zip(table.columns, row)] for row in table.rows]


def _pages_including():
    """``{snapshot name: built page}`` for every page that includes a generated report."""
    out = {}
    for md in (DOCS / "reproductions").glob("*.md"):
        for name in re.findall(r"generated/([a-z0-9-]+)/report.md", md.read_text()):
            out[name] = BUILT / "reproductions" / (md.stem + ".html")
    return out


@pytest.mark.slow
@pytest.mark.skipif(not (BUILT / "index.html").exists() and not os.environ.get("CI"),
                    reason="the docs are not built (make -C docs html); .ci/run builds them first")
@pytest.mark.parametrize("name", sorted(p.name[: -len(".json.gz")] for p in STORES.glob("*.json.gz")))
def test_every_table_on_a_reproduction_page_equals_its_snapshot(name, tmp_path):
    """Each row of each table of the snapshot's report, rendered afresh by today's code,
    is a row of the built page, cell for cell (so a page that shows other numbers than its
    store, or lost a table, fails)."""
    from weaklabel.experiments import registry

    page = _pages_including().get(name)
    assert page is not None, f"no reproduction page includes generated/{name}/report.md"
    assert page.exists(), f"{page} is missing: run `make -C docs html` first"
    shown = [[cell.replace("**", "") for cell in row] for row in _page_rows(page)]
    summary = registry.get(name).run(tmp_path, snapshot=STORES / f"{name}.json.gz", write=False)
    assert summary.tables, name
    for table in summary.tables:
        assert table.columns in shown, \
            f"{page.name}: the header of table {table.name!r} of {name} is not on the page"
        for row in _summary_rows(table):
            assert row in shown, f"{page.name}: row {row} of table {table.name!r} of {name} is not on the page"


_MARK = re.compile(r"Typed by hand", re.I)


def _tables(text):
    """(line number, header, body lines) of every Markdown table, with the lines of its
    section before it (since the last heading)."""
    lines = text.splitlines()
    out, section = [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"#+ ", line):
            section = []
        if (line.strip().startswith("|") and i + 1 < len(lines)
                and re.match(r"^\s*\|(\s*:?-+:?\s*\|)+\s*$", lines[i + 1])):
            j = i + 2
            while j < len(lines) and lines[j].strip().startswith("|"):
                j += 1
            out.append((i + 1, line, lines[i + 2:j], list(section)))
            section += lines[i:j]
            i = j
            continue
        section.append(line)
        i += 1
    return out


def _measured(body):
    """A table holds measured figures when its body has decimal numbers outside code
    (a rule table's ``eta=1.0`` defaults are code)."""
    return any(re.search(r"(?<![\w.])\d+\.\d+", re.sub(r"`[^`]*`", "", row)) for row in body)


@pytest.mark.parametrize("page", sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")
                                        if "_build" not in p.parts and "generated" not in p.parts))
def test_every_measured_table_typed_by_hand_says_so(page):
    """A Markdown table with decimal numbers outside the generated reports is marked by a
    line with "Typed by hand" in its section, naming in backquotes the command that
    produced it, or the paper it quotes."""
    text = (DOCS / page).read_text()
    bad = []
    for lineno, header, body, before in _tables(text):
        if not _measured(body):
            continue
        marks = [line for line in before if _MARK.search(line)]
        if not marks or not any("`" in m or "paper" in m.lower() or "published" in m.lower() for m in marks):
            bad.append(f"{page}:{lineno}: {header.strip()[:60]}")
    assert not bad, "tables of measured numbers without a 'Typed by hand' line naming their source:\n" + \
        "\n".join(bad)


def test_the_marker_check_finds_an_unmarked_table():
    text = "# A\n\nSome prose.\n\n| a | b |\n|---|---|\n| 0.5 | 1.25 |\n"
    (line, header, body, before), = _tables(text)
    assert _measured(body) and not any(_MARK.search(x) for x in before)
    marked = "# A\n\n*Typed by hand from `weaklabel speed`.*\n\n| a | b |\n|---|---|\n| 0.5 | 1.25 |\n"
    (_, _, _, before), = _tables(marked)
    assert any(_MARK.search(x) for x in before)
    assert not _measured(["| yes | no |", "| 3 | 4 |"])
    assert not _measured(["| `CSPA(beta=1.0)` | a rule |"])
