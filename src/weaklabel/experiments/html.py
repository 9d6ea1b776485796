"""One self-contained HTML page for a results store: its report, plots, commands, versions.

The page needs no other file: PNGs are embedded as data URIs and the report's Markdown
(the subset our reports use: headings, pipe tables, lists, images, bold and code) is
turned into HTML here, so no Markdown package is needed.  A small script marks
``<body data-tables=N data-images-ok=M>`` once the images have decoded, which a
headless browser can check.
"""

from __future__ import annotations

import base64
import html
import platform
import re
from importlib import metadata
from pathlib import Path

from .store import ResultStore

__all__ = ["write_html", "versions"]

_PACKAGES = ("weaklabel", "numpy", "scipy", "scikit-learn", "numba", "dask", "distributed", "matplotlib",
             "vowpalwabbit", "cleanlab")


def versions():
    """Return the versions of Python and of the packages that shape the results.

    Returns
    -------
    dict
        Package -> version, for the installed ones.
    """
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def _inline(text):
    text = html.escape(text, quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"<em>\1</em>", text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return text


def _cells(line):
    """The cells of a Markdown table row; an escaped pipe (``\\|``) stays inside its cell."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    if parts and parts[0] == "":
        parts = parts[1:]
    if parts and parts[-1] == "":
        parts = parts[:-1]
    return [c.strip().replace("\\|", "|") for c in parts]


def _image(folder, alt, name):
    path = (folder / name).resolve()
    if path.parent != folder.resolve() or not path.is_file():
        return f'<p class="missing">image {html.escape(name)} is missing</p>'
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></figure>'


def markdown_to_html(md, folder):
    """The Markdown subset of our reports -> HTML (images from ``folder`` embedded)."""
    out = []
    lines = md.splitlines()
    i = 0
    para = []

    def flush():
        if para:
            out.append("<p>" + " ".join(_inline(p) for p in para) + "</p>")
            para.clear()

    while i < len(lines):
        line = lines[i]
        s = line.strip()
        m_img = re.fullmatch(r"!\[([^\]]*)\]\(([^)]+)\)", s)
        if not s:
            flush()
        elif s.startswith("#"):
            flush()
            level = min(len(s) - len(s.lstrip("#")), 4)
            out.append(f"<h{level}>{_inline(s[level:].strip())}</h{level}>")
        elif s.startswith("|"):
            flush()
            block = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                block.append(lines[i])
                i += 1
            rows = [_cells(b) for b in block if not re.fullmatch(r"\|?[\s:|-]+\|?", b.strip())]
            head, body = rows[0], rows[1:]
            out.append("<table><thead><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in head) + "</tr></thead><tbody>"
                       + "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in body)
                       + "</tbody></table>")
            continue
        elif m_img:
            flush()
            out.append(_image(folder, m_img.group(1), m_img.group(2)))
        elif s.startswith("- "):
            flush()
            items = []
            while i < len(lines) and lines[i].strip().startswith("- "):
                items.append(lines[i].strip()[2:])
                i += 1
            out.append("<ul>" + "".join(f"<li>{_inline(t)}</li>" for t in items) + "</ul>")
            continue
        else:
            para.append(s)
        i += 1
    flush()
    return "\n".join(out)


_STYLE = """
body { font-family: sans-serif; max-width: 1400px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.5em; text-align: left; }
th { background: #eee; }
img { max-width: 100%; height: auto; }
figure { margin: 1em 0; }
code, pre { background: #f4f4f4; padding: 0 0.2em; }
pre { padding: 0.5em; overflow-x: auto; }
.missing { color: #a00; }
"""

_SCRIPT = """
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (im) { return im.complete && im.naturalWidth > 0; }).length;
  document.body.setAttribute("data-tables", String(document.getElementsByTagName("table").length));
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-images-ok", String(ok));
});
"""


def write_html(store, out_html):
    """Write one self-contained page for a results store.

    The page holds the folder's report.md (tables and embedded PNGs), the cells per
    experiment and stage, and every command (with package versions) recorded by
    ``weaklabel reproduce`` runs that wrote to the store.

    Parameters
    ----------
    store : str or Path
        A results.sqlite, or the folder holding one.
    out_html : str or Path
        The page to write.

    Returns
    -------
    Path
        The page written.
    """
    store = Path(store)
    if store.is_dir():
        store = store / "results.sqlite"
    if not store.is_file():
        raise FileNotFoundError(f"no results store at {store}; pass a results.sqlite or the folder holding one.")
    folder = store.parent
    with ResultStore(store, read_only=True) as s:
        exps = s.experiments()
        runs = s.runs()
    parts = [f"<h1>weaklabel results: {html.escape(folder.name)}</h1>"]
    report = folder / "report.md"
    if report.is_file():
        parts.append(markdown_to_html(report.read_text(), folder))
    else:
        parts.append("<p>No report.md beside this store: only its summary follows.</p>")
    parts.append("<h2>Store</h2><table><thead><tr><th>experiment</th><th>stage</th><th>cells</th>"
                 "<th>compute seconds</th></tr></thead><tbody>"
                 + "".join(f"<tr><td>{html.escape(e)}</td><td>{html.escape(st)}</td><td>{n}</td><td>{sec:.1f}</td></tr>"
                           for e, st, n, sec in exps) + "</tbody></table>")
    parts.append("<h2>Commands and versions</h2>")
    if runs:
        import datetime

        for t, cmd, ver in runs:
            when = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            vtxt = ", ".join(f"{k} {v}" for k, v in sorted(ver.items()))
            parts.append(f"<p>{when}</p><pre>{html.escape(cmd)}</pre><p>{html.escape(vtxt)}</p>")
    else:
        parts.append("<p>No command recorded (the store predates run logging).</p>")
    now = ", ".join(f"{k} {v}" for k, v in sorted(versions().items()))
    parts.append(f"<p>This page: written with {html.escape(now)}.</p>")
    page = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>weaklabel: "
            f"{html.escape(folder.name)}</title><style>{_STYLE}</style></head><body>"
            + "\n".join(parts) + f"<script>{_SCRIPT}</script></body></html>")
    out_html = Path(out_html)
    out_html.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_html.with_name(out_html.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(out_html)
    return out_html
