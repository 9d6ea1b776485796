"""Figures quoted in two places agree: the README's table of several weak sources against the
snapshots of the runs it quotes (``docs/reproductions/stores``), rendered as the docs build
renders them."""

import re
from pathlib import Path

import pytest

from weaklabel.experiments import registry

ROOT = Path(__file__).resolve().parents[1]
STORES = ROOT / "docs" / "reproductions" / "stores"


def _summary(name, tmp_path):
    return registry.get(name).run(tmp_path / name, snapshot=STORES / f"{name}.json.gz", write=False)


def _readme_rows():
    text = (ROOT / "README.md").read_text()
    head = "| set | majority vote | named in advance | Snorkel LabelModel |"
    block = text[text.index(head):].split("\n\n")[0].splitlines()[2:]
    return {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:-1]] for r in block}


def _numbers(cell):
    return [float(x) for x in re.findall(r"\d\.\d{3}", cell)]


def test_the_readme_weak_sources_table_is_the_snapshot_with_models_named_in_advance(tmp_path):
    """The README's label-model column is one model per kind of source, the same on every set
    (never the best of a set by its test labels), and its figures are the snapshot's."""
    rows = _readme_rows()
    table = _summary("sources-corpus", tmp_path).tables[0]
    named = {"PrecisionVote": ("youtube", "sms", "trec"), 'DawidSkene(abstain="ignore")': ("product", "duck", "dog")}
    column = {"PrecisionVote": "PrecisionVote", 'DawidSkene(abstain="ignore")': "DawidSkene(abstain='ignore')"}
    for model, sets in named.items():
        cells = [rows[s] for s in sets] if sets[0] in rows else [rows["crowds: product / duck / dog"]]
        figures = [x for c in cells for x in _numbers(c[1])]
        assert all(c[1].endswith(model) for c in cells), model
        assert figures == [round(table.where(matrix=s)[0][column[model]], 3) for s in sets], model
        assert [x for c in cells for x in _numbers(c[0])] == [round(table.where(matrix=s)[0]["majority vote"], 3)
                                                             for s in sets]
        assert [x for c in cells for x in _numbers(c[2])] == [
            round(table.where(matrix=s)[0]["Snorkel LabelModel"], 3) for s in sets]


def _decimals(text):
    return set(re.findall(r"(?<![\d.])\d+\.\d{3}(?!\d)", text))


@pytest.mark.skipif(not (ROOT / "docs" / "reproductions" / "generated").exists(),
                    reason="the reports are rendered by the docs build (CI builds the docs first)")
def test_every_three_decimal_figure_in_the_readme_is_on_a_docs_page():
    """A figure the README quotes (an accuracy, an error, an F1 written to three decimals)
    must be the one a documentation page or a rendered report holds: quoting it twice
    cannot let the two drift apart unnoticed."""
    docs = ROOT / "docs"
    pages = "\n".join(p.read_text() for p in docs.rglob("*.md") if "_build" not in p.parts)
    missing = sorted(_decimals((ROOT / "README.md").read_text()) - _decimals(pages))
    assert not missing, f"the README quotes {missing}, which no docs page or rendered report holds"
