"""What the language model contributed to a run, for `galapagos report` (docs/report.md): its
rewrites, the candidates built from their sources (the GA tuning a rewrite's declared parameters,
migrants), how they compared with the best template point measured by then, and the tokens and
money spent per improvement of the run's best. Read from /candidates and /llm_calls."""
import math

from .report_facts import finite, fmt_num, fmt_time


def _objective(c):
    """What the search minimised: /candidates `fitness` (files before objectives: the time)."""
    return c["fitness"] if "fitness" in c else c["time_median_s"]


def model_section(r):
    """(title, rows) or None when the run asked no model."""
    calls, c = r.llm_calls, r.candidates
    if calls.empty:
        return None
    tool = calls["tool"].astype(str) != "" if "tool" in calls else calls["id"] < 0
    requests = calls[~tool]
    rewrites = c[c.origin == "llm"]
    sources = set(rewrites.source_hash)
    made = c.source_hash.isin(sources)
    ok = c.status == "ok"
    fit = _objective(c)
    # Time order across islands: generation, then id (ids grow within an island).
    order = c.assign(fit_=fit, made_=made, ok_=ok).sort_values(["generation", "id"])
    best_template, best_any = math.inf, math.inf
    beat, gains, improvements = 0, [], []
    for g, rows in order.groupby("generation", sort=True):
        template_then = best_template  # the template's best measured in earlier generations
        for row in rows.itertuples():
            if not row.ok_ or not finite(row.fit_):
                continue
            if row.made_:
                if finite(template_then):
                    gains.append(template_then / row.fit_)
                    beat += row.fit_ < template_then
                if row.fit_ < best_any:
                    improvements.append(int(row.id))
            if row.fit_ < best_any:
                best_any = row.fit_
        for row in rows.itertuples():
            if row.ok_ and not row.made_ and finite(row.fit_):
                best_template = min(best_template, row.fit_)
    tokens = int(requests.prompt_tokens.sum() + requests.completion_tokens.sum())
    money = float(requests.cost.sum()) if len(requests) else 0.0
    n_made_ok = int((made & ok).sum())
    winner_hash = r.winner.get("source_hash")
    rows = [
        ("requests", f"{len(requests)} to the model" + (f", {int(tool.sum())} tool calls" if tool.any() else "")),
        ("rewrites accepted", f"{int((rewrites.status == 'ok').sum())} of {len(rewrites)} evaluated "
                              f"({int((requests.candidate_id >= 0).sum())} requests produced a candidate)"),
        ("candidates from the model's sources", f"{n_made_ok} correct of {int(made.sum())} (the rewrites, the GA "
                                                "tuning their declared parameters, migrants)"),
        ("against the template", (f"{beat} of {len(gains)} beat the best template point measured before them; "
                                  f"best gain {max(gains):.2f}x") if gains else "no template point was measured before them"),
        ("improvements of the run's best", f"{len(improvements)}" +
         (f" (candidates {', '.join(map(str, improvements[:8]))}{', ...' if len(improvements) > 8 else ''})"
          if improvements else "")),
        ("winner", "built from a rewrite" if winner_hash in sources else "the template's" if r.winner else "-"),
        ("tokens", f"{tokens}" + (f", {tokens / len(improvements):.0f} per improvement" if improvements else "")),
        ("money", (f"{fmt_num(money, '.4f')}" + (f", {fmt_num(money / len(improvements), '.4f')} per improvement"
                                                 if improvements else "")) if finite(money) else
         "unknown (no [[llm.models]] price configured)"),
    ]
    if finite(r.winner.get("time_median_s")) and winner_hash in sources:
        rows.append(("winner's time", fmt_time(r.winner.get("time_median_s"))))
    return ("What the model contributed", rows)
