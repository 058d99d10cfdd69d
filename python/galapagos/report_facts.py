"""The text of `galapagos report` (galapagos/report.py): the run, the winner's evidence, its
lineage and the notes at the top, as rows both the HTML page and the Markdown file show.

The winner's figure is /winner `speedup`: the final interleaved comparison (winner and baselines
timed in turns, A B, B A, ...) over /winner `fastest_baseline`. Every per-candidate speedup (/candidates
`speedup`, the histogram, the lineage) is a search-time figure: it divides by the baseline as
timed during the search, and is labelled so wherever it can differ from the final one."""
import json
import math
import numbers

FINAL = "final interleaved comparison"


def finite(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def fmt_time(s):
    if not finite(s):
        return "-"
    if s < 1e-6:
        return f"{s * 1e9:.1f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.3f} ms"
    return f"{s:.3f} s"


def fmt_num(v, spec=".3g"):
    return format(v, spec) if finite(v) else "-"


def fastest_baseline(r):
    """(name, time_median_s) of the fastest baseline the candidates are compared with: the one
    /winner `fastest_baseline` names (its /baselines time), else the fastest correct row of
    /baselines; (None, nan) when no baseline ran."""
    b = r.baselines[r.baselines.status == "ok"] if not r.baselines.empty else r.baselines
    named = r.winner.get("fastest_baseline")
    if isinstance(named, str) and named and (b["name"] == named).any():
        return named, float(b[b["name"] == named].time_median_s.min())
    if b.empty:
        return (named if isinstance(named, str) and named else None), float("nan")
    row = b.sort_values("time_median_s").iloc[0]
    return row["name"], float(row.time_median_s)


def baseline_retimings(r, name):
    """The correct re-timings of baseline `name` in /baseline_timings (empty for older files)."""
    t = r.baseline_timings
    if t.empty or name is None:
        return t.iloc[0:0]
    t = t[(t["name"] == name) & (t.status == "ok")]
    return t[t.time_median_s.map(finite)]


def search_speedup(r):
    """The winner's search-time speedup: /winner `search_speedup`, else its /candidates row's."""
    s = r.winner.get("search_speedup")
    if finite(s):
        return float(s)
    best = r.best()
    return float(best.speedup) if best is not None and finite(best.speedup) else float("nan")


def final_speedup_text(r):
    """'0.97x over openmp_plain (final interleaved comparison)', or None without a final figure."""
    s = r.winner.get("speedup")
    if not finite(s):
        return None
    return f"{s:.2f}x over {r.winner.get('fastest_baseline', 'the fastest baseline')} ({FINAL})"


def _parents(row):
    """A /candidates row's parent ids (the loader decodes the JSON array; older files lack it)."""
    p = row.get("parents")
    if not isinstance(p, (list, tuple)):
        return []
    return [int(x) for x in p if isinstance(x, numbers.Integral) and not isinstance(x, bool)]


def _how(row, by_id, migrations):
    """How a candidate came to be on its island, from its origin, parents and /migrations."""
    parents = _parents(row)
    origin = str(row.origin)
    pid = parents[0] if parents else None
    if origin == "migrant" and pid is not None:
        p = by_id.get(pid)
        sent = migrations[(migrations.candidate_id == pid) & (migrations.to_island == row.island)]
        if p is not None:
            sent = sent[sent.from_island == p.island]
        sent = sent[sent.generation <= row.generation] if not sent.empty else sent
        when = f" at its generation {int(sent.generation.max())}" if not sent.empty else ""
        src = f"island {p.island}" if p is not None else "another island"
        return f"migrant: candidate {pid} sent by {src}{when}, re-measured here"
    if origin == "llm":
        return f"LLM rewrite of candidate {pid}" if pid is not None else "LLM rewrite"
    if origin == "random":
        return "drawn at random"
    if origin == "template":
        return "the template's own defaults, tried first"
    if origin == "offspring":
        # The GA names the one or two members it bred from; a model-based strategy (forest,
        # hybrid, annealing, ...) proposes from every point measured so far, and names none.
        return ("bred from " + " and ".join(f"candidate {p}" for p in parents)) if parents else \
            "proposed by the island's search strategy from every point it had measured"
    return origin + (f" of candidate {pid}" if pid is not None else "")


def lineage(r):
    """The winner's chain of ancestors through /candidates `parents`, oldest first and ending at
    the winner, as rows (step, candidate, island, generation, origin, how it came, median time,
    search-time speedup). Empty when no candidate succeeded."""
    best = r.best()
    if best is None:
        return []
    c = r.candidates
    by_id = {}
    for _, row in c.iterrows():
        by_id.setdefault(row.id, row)
    chain, seen, row = [], set(), best
    while row is not None and row.id not in seen:
        seen.add(row.id)
        chain.append(row)
        parents = _parents(row)
        row = by_id.get(parents[0]) if parents else None
    mg = r.migrations
    rows = []
    for step, row in enumerate(reversed(chain)):
        rows.append((str(step + 1), str(row.id), str(row.island), str(row.generation), str(row.origin),
                     _how(row, by_id, mg), fmt_time(row.time_median_s),
                     f"{row.speedup:.2f}x" if finite(row.speedup) else "-"))
    return rows


LINEAGE_HEADER = ("step", "candidate", "island", "generation", "origin", "how it came", "median time",
                  "search-time speedup")


def lineage_after(r):
    """Where the winner went after it was found: the /migrations rows that sent it on."""
    best = r.best()
    if best is None or r.migrations.empty:
        return None
    sent = r.migrations[r.migrations.candidate_id == best.id].sort_values(["generation", "to_island"])
    if sent.empty:
        return None
    hops = []
    for (src, dst), rows in sent.groupby(["from_island", "to_island"]):
        gens = sorted(set(int(g) for g in rows.generation))
        hops.append(f"from island {src} to island {dst} at generation{'s' if len(gens) > 1 else ''} {_ranges(gens)}")
    return "The winner was then sent on as a migrant: " + "; ".join(hops) + "."


def _ranges(numbers_):
    """'1-4, 7, 9-10' for [1, 2, 3, 4, 7, 9, 10]."""
    runs = []
    for n in numbers_:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


def winner_facts(r, cost):
    """The winner's parameters and evidence as (title, [(key, value)]) sections."""
    best = r.best()
    w = r.winner
    params = json.loads(best.params) if best.params else {}
    sections = [("Parameters", [(k, str(v)) for k, v in params.items()] or [("(none)", "")])]
    ev = [("candidate", f"{best.id} (island {best.island}, generation {best.generation}, {best.origin})")]
    final = final_speedup_text(r)
    if final:
        ev.append(("speedup", final))
    searched = search_speedup(r)
    if finite(searched):
        ev.append(("search-time speedup", f"{searched:.2f}x (its /candidates row: over the fastest baseline as timed "
                                          "during the search; the figure the search ranked it by)"))
    if w:
        ev.append(("final check", f"{w.get('status', '-')}" + (f": {w['reason']}" if w.get("reason") else "")))
        ev.append(("method", str(w.get("method", "-"))))
        if w.get("beat_baseline") in (0, 1):
            ev.append(("outcome", f"{'beat' if w['beat_baseline'] == 1 else 'did not beat'} the fastest baseline, "
                                  f"{w.get('fastest_baseline', '?')}, in the {FINAL}"))
    drift = w.get("baseline_drift")
    if finite(drift):
        name = w.get("fastest_baseline", "the fastest baseline")
        ev.append(("baseline drift", f"{drift:.2f}x: slowest over fastest re-timing of {name} during the run "
                                     "(/baseline_timings); 1.00x is a steady node"))
    seeds = (cost or {}).get("seeds")
    sizes = (cost or {}).get("accept_sizes")
    if sizes:
        ev.append(("sizes checked", f"{len(sizes)} acceptance sizes x {seeds or '?'} seed{'' if seeds == 1 else 's'} each: " + "; ".join(sizes)))
    if (cost or {}).get("fitness"):
        ev.append(("timed at", cost["fitness"]))
    src = w if w else {}
    rel = src.get("rel_error", best.rel_error)
    ev.append(("error against the reference", f"{fmt_num(rel, '.3e')} (max |out-ref| / max |ref|; tolerance "
                                               f"{r.attrs.get('tolerance', '?')})"))
    t = {k: src.get(k, best.get(k)) for k in ("time_median_s", "time_min_s", "time_spread_s", "repetitions")}
    spread = t["time_spread_s"] / t["time_median_s"] if finite(t["time_median_s"]) and t["time_median_s"] else float("nan")
    reps = int(t["repetitions"]) if finite(t["repetitions"]) else "-"
    ev.append(("timing" + (f" ({FINAL})" if w else " (search-time)"),
               f"median {fmt_time(t['time_median_s'])}, min {fmt_time(t['time_min_s'])}, IQR "
               f"{fmt_time(t['time_spread_s'])} ({fmt_num(100 * spread, '.1f')}% of the median) over {reps} runs"))
    ev.append(("roofline fraction", fmt_num(100 * float(src.get("roofline_fraction", best.roofline_fraction)), ".0f") + "%"))
    sp = []
    for k, v in sorted(w.items()):
        if k.startswith("baseline_") and k.endswith("_median_s") and isinstance(v, float):
            name = k[len("baseline_"):-len("_median_s")]
            sp.append((name, f"{v / t['time_median_s']:.2f}x (baseline {fmt_time(v)}; {FINAL}, timed side by side "
                             "with the winner)" if finite(v) and t["time_median_s"] else "baseline failed"))
    if not sp:  # no final comparison: against the baselines measured at the start
        for _, b in r.baselines.iterrows():
            ok = b.status == "ok" and best.time_median_s > 0
            sp.append((b["name"], f"{b.time_median_s / best.time_median_s:.2f}x (baseline {fmt_time(b.time_median_s)}; "
                                  "search-time: baseline timed at the start of the run)" if ok else f"baseline {b.status}"))
    sections.append(("Evidence", ev))
    sections.append(("Speedup over each baseline", sp or [("(no baseline)", "")]))
    return sections


def run_facts(r):
    a, c = r.attrs, r.candidates
    counts = ", ".join(f"{k} {v}" for k, v in c.status.value_counts().sort_index().items())
    wall = r.generations.groupby("island").wall_time_s.max().max() if not r.generations.empty else float("nan")
    rows = [("family / backend", f"{a.get('family')} / {a.get('backend')}"),
            ("fitness problem", str(a.get("fitness_size", "-"))),
            # what the search minimised; files written before objectives existed minimised time
            ("objective", f"{a.get('objective', 'time')} per call ({a.get('fitness_unit', 's')})"),
            ("islands", str(a.get("islands", "-"))), ("seed", str(a.get("seed", "-"))),
            ("galapagos", f"{a.get('galapagos_version')} ({a.get('git_revision')})"),
            ("created", str(a.get("created_utc", "-"))),
            ("finished", {True: "yes", False: "no"}.get(a.get("finished"), "-")),
            ("candidates", f"{len(c)}: {counts}"), ("search wall-clock", f"{fmt_time(wall)} (longest island)")]
    for _, m in r.machine.iterrows():
        rows.append((f"island {m.island} machine", f"{m.cpu_model}, {m.cores} cores, {m.bandwidth_gbs:.1f} GB/s, "
                                                    f"{m.peak_gflops:.1f} GFLOP/s"))
    if not r.llm_calls.empty:
        # a row with a `tool` is a tool call the model made, not a request (files before tools have none)
        tools = r.llm_calls["tool"].astype(bool) if "tool" in r.llm_calls else None
        requests = len(r.llm_calls) - (int(tools.sum()) if tools is not None else 0)
        rows.append(("LLM calls", f"{requests}" + (f" (and {int(tools.sum())} tool calls)" if tools is not None and tools.any() else "")))
    return rows


def notes(r):
    """(warnings, notes): the node's noise warning (/winner `noise`), then what a reader must know
    before trusting the figures."""
    warnings, told = [], []
    noise = r.winner.get("noise")
    if isinstance(noise, str) and noise.strip():
        warnings.append("Noisy measurements: " + noise.strip())
    if r.attrs.get("finished") is not True:
        told.append("The run is not finished (stopped or still running): this is its last checkpoint.")
    if not r.winner:
        told.append("No /winner: the winner was never timed interleaved with the baselines; every figure is search-time.")
    elif r.winner.get("beat_baseline") == 0:
        speedup = r.winner.get("speedup")
        slower = f" the winner takes {1 / speedup:.2f}x its time" if finite(speedup) and speedup > 0 else ""
        told.append(f"No candidate beat {r.winner.get('fastest_baseline', 'the fastest baseline')}: in the {FINAL}"
                    f"{slower or ' the winner was not faster'}. Keep the baseline.")
    searched, final = search_speedup(r), r.winner.get("speedup")
    if finite(searched) and finite(final) and abs(searched - final) > 0.1 * max(abs(final), 1e-12):
        told.append(f"The winner's search-time speedup ({searched:.2f}x) and its final interleaved one ({final:.2f}x) "
                    "differ by more than 10%: timings on the node moved between the search and the side-by-side final "
                    "comparison. The final figure is the one to believe.")
    return warnings, told
