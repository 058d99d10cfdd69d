#!/usr/bin/python3
"""summarize_results.py RESULTS.h5: a short Markdown summary of one galapagos run (for
docs/results/): the run, the machine's measured ceilings, the baselines, the winner's final
interleaved comparison, and the status counts."""
import collections
import sys

import h5py


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


with h5py.File(sys.argv[1], "r") as f:
    a = {k: text(v) for k, v in f.attrs.items() if k != "config_toml"}
    print(f"# {a.get('family')} on {a.get('backend')}: {a.get('fitness_size')}\n")
    print(f"galapagos {a.get('galapagos_version')} ({a.get('git_revision')}), {a.get('created_utc')}, "
          f"{a.get('islands')} island(s), seed {a.get('seed')}, config `{a.get('config_file')}`\n")
    for m in f["machine"][:]:
        print(f"- island {m['island']}: {text(m['cpu_model'])}, {m['cores']} cores; measured bandwidth "
              f"{m['bandwidth_gbs']:.1f} GB/s, peak {m['peak_gflops']:.1f} GFLOP/s (f64), {m['peak_gflops_f32']:.1f} (f32)")
    print("\n| baseline | status | median | roofline |\n|---|---|---|---|")
    for b in f["baselines"][:]:
        print(f"| {text(b['name'])} | {text(b['status'])} | {b['time_median_s'] * 1e3:.4f} ms | {b['roofline_fraction']:.0%} |")
    cands = f["candidates"][:]
    counts = collections.Counter(text(c["status"]) for c in cands)
    print(f"\n{len(cands)} candidates: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if "winner" in f:
        # Integers (candidate_id, repetitions) stay integers; older files hold candidate_id as text.
        w = {k: (text(v) if isinstance(v, (bytes, str)) else v.item()) for k, v in f["winner"].attrs.items()}
        print(f"\nWinner (candidate {w['candidate_id']}): `{w['params']}`  ")
        print(f"final check {w['status']}; {w['method']}:  ")
        print(f"median {w['time_median_s'] * 1e3:.4f} ms (min {w['time_min_s'] * 1e3:.4f}, IQR {w['time_spread_s'] * 1e3:.4f}, "
              f"{int(w['repetitions'])} runs), speedup {w['speedup']:.2f}x over {w['fastest_baseline']}, "
              f"roofline fraction {w['roofline_fraction']:.0%}")
        for k, v in sorted(w.items()):
            if k.startswith("baseline_") and k.endswith("_median_s"):
                print(f"- {k[len('baseline_'):-len('_median_s')]}: {v * 1e3:.4f} ms in the same rounds")
        if "baseline_drift" in w:
            print(f"- the fastest baseline's re-timings during the search moved by {w['baseline_drift']:.2f}x; "
                  f"search-time speedup {w.get('search_speedup', float('nan')):.2f}x")
        if "energy_j" in w and w["energy_j"] == w["energy_j"]:
            print(f"- winner energy {w['energy_j'] * 1e3:.1f} mJ per call at {w['power_w']:.0f} W, SM clock "
                  f"{w['sm_clock_mhz']:.0f} MHz, {int(w['throttled_runs'])} timed runs throttled")
    if "generations" in f and "device_busy_s" in f["generations"].dtype.names:
        last = {}
        for g in f["generations"][:]:
            last[g["island"]] = g
        for island, g in sorted(last.items()):
            if f.attrs.get("backend", b"cpu") not in (b"cpu", "cpu") and g["wall_time_s"] > 0:
                print(f"- island {island}: the device was held for measuring {g['device_busy_s'] / g['wall_time_s']:.0%} "
                      f"of {g['wall_time_s']:.1f} s of search")
    if "profiles" in f and len(f["profiles"]):
        print("\n| candidate | kernel | metric | value |\n|---|---|---|---|")
        asked = ("gpu__time_duration.sum", "dram__bytes.sum.per_second", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                 "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                 "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                 "sm__warps_active.avg.pct_of_peak_sustained_active", "launch__registers_per_thread",
                 "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum")
        for p in f["profiles"][:]:
            if text(p["metric"]) not in asked:
                continue  # files written before the metrics were filtered hold the device's attributes too
            print(f"| {p['candidate_id']} | `{text(p['kernel'])[:40]}` | {text(p['metric'])} | {p['value']:.4g} {text(p['unit'])} |")
