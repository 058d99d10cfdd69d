"""python3 -m galapagos.report RESULTS.h5 [--out DIR] [--cost JSON]: the report of one galapagos run, as a
self-contained HTML page (index.html), the same in Markdown (report.md), and every plot as a PNG
file beside them. `galapagos report` runs it and passes --cost: the family's bytes and flops at
the fitness size (for the roofline chart) and the sizes the search checked. Needs no GPU.
The plots are drawn in report_plots.py, the tables' rows made in
report_facts.py; this file lays them out and writes the folder. docs/report.md
describes every part."""
import argparse
import base64
import html
import json
import os
import shutil
import sys
import tempfile

from .report_facts import LINEAGE_HEADER, lineage, lineage_after, notes, run_facts, winner_facts
from .report_plots import PLOTS, axes_json, make_plots
from .results import ResultsError, load
from .report_ledger import ledger_sections
from .report_model import model_section


def _cell(v):
    return str(v).replace("|", "\\|").replace("\n", " ")


def axes_caption(axes):
    """One line on what a plot's axes and legend show, e.g. 'x: evaluations on the island; y: best
    median time (ms); legend: island 0, baseline openmp_plain (timed at the start)'."""
    parts = []
    for key, say in (("xlabel", "x"), ("ylabel", "y")):
        seen = list(dict.fromkeys(a[key] for a in axes if a[key]))
        if seen:
            parts.append(f"{say}: {', '.join(seen)}")
    legend = list(dict.fromkeys(t for a in axes for t in a["legend"]))
    if legend:
        parts.append("legend: " + ", ".join(legend))
    return "; ".join(parts)


def write_markdown(r, out, page):
    lines = [f"# galapagos report: {r.attrs.get('family')} on {r.attrs.get('backend')}", ""]
    lines += [f"> **Warning.** {_cell(w)}" for w in page["warnings"]] + ([""] if page["warnings"] else [])
    lines += [f"- {n}" for n in page["notes"]] + ([""] if page["notes"] else [])
    lines += [f"Results file: `{os.path.abspath(r.path)}`", "", "## Run", "", "| | |", "|---|---|"]
    lines += [f"| {_cell(k)} | {_cell(v)} |" for k, v in page["run"]]
    lines += ["", "## Winner", ""]
    for title, rows in page["sections"]:
        lines += [f"### {title}", "", "| | |", "|---|---|"] + [f"| {_cell(k)} | {_cell(v)} |" for k, v in rows] + [""]
    lines += ["### Lineage", "", LINEAGE_TEXT, "", "| " + " | ".join(LINEAGE_HEADER) + " |",
              "|" + "---|" * len(LINEAGE_HEADER)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in page["lineage"]]
    lines += [""] + ([page["lineage_after"], ""] if page["lineage_after"] else [])
    lines += ["## Plots", ""]
    for name, title, what in PLOTS:
        lines += [f"### {title}", "", f"{what}. {axes_caption(page['axes'][name])}.", "", f"![{title}]({name})", ""]
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


LINEAGE_TEXT = ("How the winner was found: its chain of parents through /candidates, oldest first, ending at the "
                "winner. Times and speedups are the search's (search-time).")

# Once the page has loaded it records on <body> how many plots it has, how many decoded, and the
# files of those that did not (data-plots, data-plots-loaded, data-plots-broken): a browser
# (tests/integration/report_chromium.py) reads the verdict from the page itself.
CHECK = ("window.addEventListener('load',function(){var p=[].slice.call(document.querySelectorAll('img.plot'));"
         "var bad=p.filter(function(i){return !(i.complete&&i.naturalWidth>0);});"
         "document.body.setAttribute('data-plots',p.length);document.body.setAttribute('data-plots-loaded',p.length-bad.length);"
         "document.body.setAttribute('data-plots-broken',bad.map(function(i){return i.getAttribute('data-file');}).join(' '));});")


def write_html(r, out, page):
    e = html.escape

    def table(rows):
        return "<table>" + "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows) + "</table>"

    parts = [f"<h1>galapagos report: {e(str(r.attrs.get('family')))} on {e(str(r.attrs.get('backend')))}</h1>"]
    parts += [f'<div class="warning" id="noise-warning"><strong>Warning.</strong> {e(w)}</div>' for w in page["warnings"]]
    if page["notes"]:
        parts.append('<ul class="notes">' + "".join(f"<li>{e(n)}</li>" for n in page["notes"]) + "</ul>")
    parts += [f"<p>Results file: <code>{e(os.path.abspath(r.path))}</code></p>", "<h2>Run</h2>", table(page["run"]),
              "<h2>Winner</h2>"]
    for title, rows in page["sections"]:
        parts += [f"<h3>{e(title)}</h3>", table(rows)]
    parts += ['<section id="lineage"><h3>Lineage</h3>', f"<p>{e(LINEAGE_TEXT)}</p>", '<table class="lineage"><tr>'
              + "".join(f"<th>{e(h)}</th>" for h in LINEAGE_HEADER) + "</tr>"
              + "".join("<tr>" + "".join(f"<td>{e(v)}</td>" for v in row) + "</tr>" for row in page["lineage"]) + "</table>"]
    parts += ([f"<p>{e(page['lineage_after'])}</p>"] if page["lineage_after"] else []) + ["</section>", "<h2>Plots</h2>"]
    for name, title, what in PLOTS:
        with open(os.path.join(out, name), "rb") as f:  # embedded: the page stands alone
            data = base64.b64encode(f.read()).decode("ascii")
        axes = page["axes"][name]
        parts.append(f'<figure data-axes="{e(axes_json(axes))}"><img class="plot" data-file="{name}" '
                     f'src="data:image/png;base64,{data}" alt="{e(title)}">'
                     f"<figcaption>{e(title)}: {e(what)}. <small>{e(axes_caption(axes))}.</small></figcaption></figure>")
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;padding:3px 8px;"
             "text-align:left;vertical-align:top}th{background:#f4f4f4;font-weight:normal}"
             ".warning{background:#fff3cd;border:1px solid #e0a800;border-left:6px solid #e0a800;padding:.6em 1em;"
             "margin:1em 0}img.plot{max-width:100%;border:1px solid #eee}figure{margin:1em 0}"
             "figcaption small{color:#555}")
    doc = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           f"<title>galapagos report: {e(str(r.attrs.get('family')))}</title><style>{style}</style></head>"
           "<body>\n" + "\n".join(parts) + f"\n<script>{CHECK}</script>\n</body></html>\n")
    with open(os.path.join(out, "index.html"), "w", encoding="utf-8") as f:
        f.write(doc)


MARKER = ".galapagos-output"  # as apps/galapagos/output_folder.hpp: lists every file galapagos wrote


def check_output_folder(out, option):
    """Raises ResultsError unless `out` may receive the report: absent (in an existing folder), an
    empty folder, or a folder galapagos made (its marker lists every file in it)."""
    if os.path.islink(out):
        raise ResultsError(f"{out}: is a symbolic link: galapagos does not replace it; choose another {option}")
    if not os.path.lexists(out):
        parent = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(parent):
            raise ResultsError(f"{out}: its folder {parent} does not exist: create it first or choose another {option}")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ResultsError(f"{out}: cannot write in its folder {parent}: choose another {option}")
        return
    if not os.path.isdir(out):
        raise ResultsError(f"{out}: exists and is not a folder: galapagos does not replace it; choose another {option}")
    entries = sorted(os.listdir(out))
    if not entries:
        return
    mine = None
    try:
        with open(os.path.join(out, MARKER), encoding="utf-8") as f:
            lines = f.read().splitlines()
        if lines and lines[0].startswith("galapagos-output") and "files:" in lines:
            mine = {x for x in lines[lines.index("files:") + 1:] if x}
    except (OSError, UnicodeDecodeError):
        pass
    if mine is None:
        raise ResultsError(f"{out}: is a folder galapagos did not make (no {MARKER} in it): galapagos does not replace it; "
                           f"move it away or choose another {option}")
    for e in entries:
        p = os.path.join(out, e)
        if e != MARKER and (e not in mine or os.path.islink(p) or not os.path.isfile(p)):
            raise ResultsError(f"{out}: holds '{e}', which galapagos did not write there: galapagos does not replace the "
                               f"folder; move your files out of it or choose another {option}")


def write_marker(work, made_by):
    files = sorted(os.listdir(work))
    with open(os.path.join(work, MARKER), "w", encoding="utf-8") as f:
        f.write(f"galapagos-output 1\nThis folder was made by {made_by}. galapagos replaces it only while it holds no "
                "other files than\nthese; keep your own files elsewhere.\nfiles:\n" + "".join(x + "\n" for x in files))


def current_umask():
    mask = os.umask(0o022)  # reading the umask means setting it: set it straight back
    os.umask(mask)
    return mask


def main(argv):
    ap = argparse.ArgumentParser(prog="galapagos report", description="report of one galapagos run: HTML, Markdown, PNG plots")
    ap.add_argument("file", help="results file (HDF5)")
    ap.add_argument("--out", help="output folder (default: FILE without .h5, plus -report)")
    ap.add_argument("--cost", help="JSON: bytes, flops, dtype at the fitness size; accept_sizes, seeds, fitness")
    a = ap.parse_args(argv[1:])
    out = a.out.rstrip("/") or a.out if a.out is not None else os.path.splitext(a.file)[0] + "-report"
    option = "--out"
    try:
        if out == "":
            raise ResultsError("--out '': an empty path: name the output folder")
        cost = json.loads(a.cost) if a.cost else None
        r = load(a.file, require_success=True)
        check_output_folder(out, option)
    except ResultsError as e:
        print(f"galapagos report: {e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"galapagos report: --cost: not JSON ({e})", file=sys.stderr)
        return 2
    # Everything is written to a folder beside the target and renamed into place: an interrupted
    # report never leaves half a page.
    parent = os.path.dirname(os.path.abspath(out))
    try:
        work = tempfile.mkdtemp(prefix=".report-", dir=parent)
        os.chmod(work, 0o777 & ~current_umask())  # mkdtemp makes it 0700: the report is for the group to read
    except OSError as e:
        print(f"galapagos report: {out}: cannot write there ({e.strerror or e})", file=sys.stderr)
        return 2
    try:
        warnings, told = notes(r)
        page = {"warnings": warnings, "notes": told, "run": run_facts(r), "sections": winner_facts(r, cost) + [s for s in [model_section(r)] if s] + ledger_sections(a.file),
                "lineage": lineage(r), "lineage_after": lineage_after(r), "axes": make_plots(r, work, cost)}
        write_markdown(r, work, page)
        write_html(r, work, page)
        write_marker(work, f"galapagos report {os.environ.get('GALAPAGOS_VERSION', '')} from {os.path.abspath(a.file)}")
        check_output_folder(out, option)  # again: it may have changed while the report was drawn
        if os.path.isdir(out):
            shutil.rmtree(out)
        os.rename(work, out)
    except ResultsError as e:
        shutil.rmtree(work, ignore_errors=True)
        print(f"galapagos report: {e}", file=sys.stderr)
        return 2
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    print(f"report: {os.path.join(out, 'index.html')} (and report.md, {len(PLOTS)} plots)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
