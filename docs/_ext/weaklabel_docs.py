"""Sphinx extension: the reproduction pages' tables and figures, rendered from result snapshots.

Each ``docs/reproductions/stores/NAME.json.gz`` is a snapshot of a ``weaklabel reproduce NAME``
results store (the plan and exactly the rows its report reads; written by
``weaklabel report NAME --out DIR --write-snapshot FILE``).  Before the build reads any page, this
extension renders each snapshot with the experiment's own ``summarize`` (exactly what
``weaklabel report NAME --snapshot FILE --out DIR`` writes) into
``docs/reproductions/generated/NAME/`` (``report.md``, CSVs, PNGs), and the pages include
``report.md``.  The numbers on the pages therefore come from the stores, never typed by hand.
Every report's "Grid choices at an edge" table is also gathered into one,
``docs/reproductions/generated/grid_edges.md``, which the deviations page includes.
"""

from __future__ import annotations

import re
from pathlib import Path


def render_snapshots(docs_dir):
    """Render every snapshot under ``docs_dir/reproductions/stores``; returns the names."""
    from weaklabel.experiments import registry

    from weaklabel.experiments.engine import Table
    from weaklabel.experiments.render import table_markdown

    stores = Path(docs_dir) / "reproductions" / "stores"
    done, edges = [], None
    for snap in sorted(stores.glob("*.json.gz")):
        name = snap.name[: -len(".json.gz")]
        out = Path(docs_dir) / "reproductions" / "generated" / name
        summary = registry.get(name).run(out, snapshot=snap)
        for table in summary.tables:
            if table.name == "grid_edges":
                edges = edges or Table("grid_edges", "", table.columns, [], note=table.note)
                edges.rows.extend(table.rows)
        report = out / "report.md"
        text = report.read_text()
        lines = text.split("\n")
        if lines and lines[0].startswith("# "):
            lines = lines[1:]                               # the page gives its own title
        body = "\n".join("#" + line if re.match(r"#+ ", line) else line for line in lines)
        body = body.replace("\n## ", "\n### ")              # tables sit under the page's sections
        report.write_text(f"*Rendered from the snapshot `reproductions/stores/{snap.name}` of the run's "
                          f"results store.*\n{body}")
        done.append(name)
    if edges is not None:
        (Path(docs_dir) / "reproductions" / "generated" / "grid_edges.md").write_text(
            "*Gathered from the reports rendered from the snapshots.*\n\n" + table_markdown(edges) + "\n")
    return done


def _on_builder_inited(app):
    render_snapshots(app.srcdir)


def setup(app):
    app.connect("builder-inited", _on_builder_inited)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
