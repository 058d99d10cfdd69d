"""The report's ledger sections (docs/report.md): what the search cost against what the winner
saves (/ledger), the winner's and the baselines' timing percentiles with the GPU clock beside
them (/winner), and every `galapagos recheck` of the winner (/rechecks), one row per machine and
time. report.py adds ledger_sections(path) to the winner's sections."""
import math

import h5py


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def _num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _seconds(s):
    if s is None:
        return "-"
    for factor, unit in ((1e9, "ns"), (1e6, "us"), (1e3, "ms")):
        if abs(s) * factor < 1e3:
            return f"{s * factor:.4g} {unit}"
    return f"{s:.4g} s"


def _figure(a, key, fmt):
    """A /ledger figure, or 'unavailable: <why>' from its _note."""
    v = _num(a.get(key))
    if v is None:
        return "unavailable: " + _text(a.get(key + "_note", "not recorded"))
    return fmt(v)


def ledger_rows(a):
    rows = [("wall time", f"{_seconds(_num(a.get('wall_time_s')))} over {int(a.get('sessions', 1))} session(s), "
                          f"{int(a.get('islands', 1))} island(s)"),
            ("evaluating", f"{_seconds(_num(a.get('evaluating_s')))} over {int(a.get('evaluations', 0))} evaluations "
                           f"(compiling {_seconds(_num(a.get('compiling_s')))})"),
            (f"{_text(a.get('device', 'device'))}-hours", f"{_num(a.get('device_hours')) or 0:.5f}"),
            ("core-hours", f"{_num(a.get('core_hours')) or 0:.5f}"),
            ("GPU energy", _figure(a, "gpu_energy_j", lambda v: f"{v:.1f} J")),
            ("CPU energy (RAPL)", _figure(a, "cpu_energy_j", lambda v: f"{v:.1f} J")),
            ("model tokens", f"{int(a.get('prompt_tokens', 0))} prompt + {int(a.get('completion_tokens', 0))} completion "
                             f"in {int(a.get('llm_calls', 0))} calls"),
            ("money", _figure(a, "money", lambda v: f"{v:.4f}")),
            ("accepted", _figure(a, "accepted_share", lambda v: f"{100 * v:.0f}% of candidates "
                                                               f"({int(a.get('accepted', 0))} of {int(a.get('evaluations', 0))})")),
            ("improvements of the best", f"{int(a.get('improvements', 0))}: "
             + _figure(a, "evaluations_per_improvement", lambda v: f"{v:.1f} evaluations")
             + ", " + _figure(a, "device_hours_per_improvement", lambda v: f"{v:.5f} device-hours") + " each"),
            (f"saving per call vs {_text(a.get('fastest_baseline', ''))}",
             _figure(a, "saving_per_call_s", _seconds) + "; " + _figure(a, "saving_per_call_j", lambda v: f"{v:.3g} J")),
            ("break-even (calls)", _figure(a, "break_even_calls", lambda v: f"{v:.0f} calls (time)") + "; "
             + _figure(a, "break_even_calls_energy", lambda v: f"{v:.0f} calls (energy)"))]
    return rows


def timing_rows(w):
    """p50/p99 and the GPU clock beside every final figure of /winner."""
    def one(median, p50, p99, clock, throttled):
        med, p50, p99, clock = _num(w.get(median)), _num(w.get(p50)), _num(w.get(p99)), _num(w.get(clock))
        text = f"median {_seconds(med)}, p50 {_seconds(p50)}, p99 " + (_seconds(p99) if p99 is not None else "- (under 20 runs)")
        if clock is not None:
            text += f"; SM clock {clock:.0f} MHz, {int(w.get(throttled, 0))} runs throttled"
        return text
    rows = [("winner", one("time_median_s", "time_p50_s", "time_p99_s", "sm_clock_mhz", "throttled_runs"))]
    for key in sorted(k for k in w if k.startswith("baseline_") and k.endswith("_median_s")):
        b = key[:-len("median_s")]
        rows.append((f"baseline {b[len('baseline_'):-1]}", one(key, b + "p50_s", b + "p99_s", b + "sm_clock_mhz", b + "throttled_runs")))
    return rows


def recheck_rows(t):
    rows = []
    for r in t:
        g = {n: (_text(r[n]) if t.dtype[n].kind in "OSU" else r[n]) for n in t.dtype.names}
        sp = _num(g["speedup"])
        machine = " / ".join(x for x in (g["host"], g["cpu_model"], g["gpu"], g["driver"]) if x)
        rows.append((f"{g['utc']} on {machine}",
                     f"{g['verdict'].replace('_', ' ')}: " + (f"{sp:.2f}x over {g['fastest_baseline']}" if sp is not None
                                                              else f"{g['status']} {g['reason']}")
                     + f" (recorded {_num(g['recorded_speedup']) or float('nan'):.2f}x); compiler {g['compiler']}"
                     + (f"; changed: {g['changes']}" if g["changes"] not in ("", "{}") else "")))
    return rows


def ledger_sections(path):
    """[(title, [(key, value), ...])]: the ledger, timing statistics, rechecks (each when present)."""
    out = []
    with h5py.File(path, "r") as f:
        if "ledger" in f:
            out.append(("Ledger: what the search cost, what the winner saves", ledger_rows(dict(f["ledger"].attrs))))
        if "winner" in f:
            out.append(("Timing statistics of the final comparison", timing_rows(dict(f["winner"].attrs))))
        if "rechecks" in f and len(f["rechecks"]):
            out.append(("Rechecks of the winner (galapagos recheck)", recheck_rows(f["rechecks"][:])))
    return out
