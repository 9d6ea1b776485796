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
    head = "| set | majority vote | best label model (no true label) |"
    block = text[text.index(head):].split("\n\n")[0].splitlines()[2:]
    return {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:-1]] for r in block}


def _numbers(cell):
    return [float(x) for x in re.findall(r"\d\.\d{3}", cell)]


def test_the_readme_weak_sources_table_is_the_snapshots(tmp_path):
    rows = _readme_rows()
    wrench = _summary("wrench", tmp_path)
    labels, ends = wrench.tables[0], wrench.tables[1]
    for name, metric in (("youtube", "accuracy"), ("sms (F1)", "f1"), ("trec", "accuracy")):
        key = name.split()[0]
        lm = labels.where(set=key, metric=metric)[0]
        em = ends.where(set=key, metric=metric)[0]
        cells = rows[name]
        assert _numbers(cells[0]) == [round(lm["majority vote"], 3)], name
        best_name = re.sub(r"^\d\.\d{3} ", "", cells[1])            # "0.871 MatrixCompletion" -> the column
        assert _numbers(cells[1]) == [round(lm[best_name], 3)], name
        assert round(lm[best_name], 3) == round(max(v for k, v in lm.items() if k not in ("set", "metric", "covered")
                                                    and isinstance(v, float) and "published" not in k), 3), name
        assert _numbers(cells[2]) == [round(em["LR on majority-vote labels"], 3)], name
        assert _numbers(cells[3]) == [round(em[f"LR on {best_name} posteriors"], 3)], name
    crowd = _summary("crowds", tmp_path).tables[0]
    cells = rows["crowds: product / duck / dog"]
    sets = ("product", "duck", "dog")
    assert _numbers(cells[0]) == [round(crowd.where(set=s)[0]["majority vote"], 3) for s in sets]
    assert _numbers(cells[1]) == [round(crowd.where(set=s)[0]["Dawid-Skene, abstains ignored"], 3) for s in sets]
    best_ck = [round(max(v for k, v in crowd.where(set=s)[0].items() if k.startswith("crowd-kit")), 3) for s in sets]
    assert _numbers(cells[4]) == best_ck


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
