#!/usr/bin/env python3
"""Writes Kernel Tuner cache files (JSON, cache schema 1.0.0) for three published Kernel Tuner
parameter spaces, with SYNTHETIC times from a documented analytic model plus noise.

    tools/synthetic_kt_cache.py OUTDIR [--seed S]

The parameter spaces and restrictions are those of Kernel Tuner's example kernels:
  gemm         CLBlast's xgemm as tuned in Kernel Tuner's gemm example (MWG, NWG, KWG, MDIMC,
               NDIMC, MDIMA, NDIMB, KWI, VWM, VWN, STRM, STRN, SA, SB, PRECISION), m = n = k = 4096
  convolution  the 2-D convolution example as benchmarked in the strategy comparisons (15x15
               filter, 4096x4096 image; block_size_x/y, tile_size_x/y, use_padding, read_only)
  pnpoly       the point-in-polygon example (20 M points, 600 vertices; block_size_x, tile_size,
               between_method, use_precomputed_slopes, use_method)

Nothing here was measured: the times are a roofline-style model of a generic GPU (80 SMs,
2048 threads and 64 Ki registers per SM, 48 KiB shared memory per block, 15 TFLOP/s float32,
800 GB/s) with occupancy, vector width, register tiling, bank conflicts and coalescing terms,
multiplied by a fixed per-configuration factor (log-normal, sigma 0.05: what the model does not
capture, such as instruction scheduling) and by measurement noise (log-normal, sigma 0.015).
Configurations whose resources exceed the model GPU are recorded as Kernel Tuner records them
("RuntimeFailedConfig", "CompilationFailedConfig"). Compile times are drawn between 0.8 and
2.5 s. Deterministic for a seed. docs/strategies.md describes the models term by term.
"""
import argparse
import itertools
import json
import math
import os
import random

SMS, THREADS_PER_SM, REGS_PER_SM, SHARED_PER_BLOCK = 80, 2048, 65536, 48 * 1024
PEAK_FLOPS, BANDWIDTH = 15e12, 800e9


def occupancy(threads, regs_per_thread, shared_bytes):
    """Share of the SM's thread slots a kernel can fill (0 when a block does not fit)."""
    if threads > 1024 or shared_bytes > SHARED_PER_BLOCK or regs_per_thread > 255:
        return 0.0
    warps = math.ceil(threads / 32)
    blocks = min(32, THREADS_PER_SM // (warps * 32), REGS_PER_SM // max(1, regs_per_thread * warps * 32))
    if shared_bytes > 0:
        blocks = min(blocks, (96 * 1024) // shared_bytes)
    return blocks * warps * 32 / THREADS_PER_SM


def latency_hiding(occ):
    """Throughput share reached at an occupancy: saturates above ~50%."""
    return min(1.0, 0.25 + 1.5 * occ) if occ > 0 else 0.0


# ---------------------------------------------------------------------------------------------
def gemm_space():
    p = {
        "MWG": [16, 32, 64, 128], "NWG": [16, 32, 64, 128], "KWG": [32],
        "MDIMC": [8, 16, 32], "NDIMC": [8, 16, 32], "MDIMA": [8, 16, 32], "NDIMB": [8, 16, 32],
        "KWI": [2], "VWM": [1, 2, 4, 8], "VWN": [1, 2, 4, 8], "STRM": [0], "STRN": [0],
        "SA": [0, 1], "SB": [0, 1], "PRECISION": [32],
    }

    def valid(c):
        return (c["KWG"] % c["KWI"] == 0 and c["MWG"] % (c["MDIMC"] * c["VWM"]) == 0
                and c["NWG"] % (c["NDIMC"] * c["VWN"]) == 0 and c["MWG"] % (c["MDIMA"] * c["VWM"]) == 0
                and c["NWG"] % (c["NDIMB"] * c["VWN"]) == 0
                and c["KWG"] % ((c["MDIMC"] * c["NDIMC"]) // c["MDIMA"]) == 0
                and c["KWG"] % ((c["MDIMC"] * c["NDIMC"]) // c["NDIMB"]) == 0)

    def model(c):
        n = 4096
        threads = c["MDIMC"] * c["NDIMC"]
        mwi, nwi = c["MWG"] // c["MDIMC"], c["NWG"] // c["NDIMC"]     # register tile per thread
        regs = 24 + mwi * nwi + (mwi + nwi) * 2
        shared = 4 * c["KWG"] * (c["MWG"] * c["SA"] + c["NWG"] * c["SB"])
        occ = occupancy(threads, regs, shared)
        if occ == 0:
            return None, "RuntimeFailedConfig"
        # FMAs per loaded value grow with the register tile; vector loads raise load throughput.
        reuse = (mwi * nwi) / (mwi + nwi)
        compute_eff = 1.0 - math.exp(-reuse / 1.6)
        load_eff = min(1.0, 0.45 + 0.18 * math.log2(c["VWM"]) + 0.12 * math.log2(c["VWN"]))
        # Caching tiles in shared memory pays off when many threads reuse them.
        staged = (1.0 + 0.35 * c["SA"] * min(1.0, c["NDIMC"] / 16)) * (1.0 + 0.35 * c["SB"] * min(1.0, c["MDIMC"] / 16))
        eff = compute_eff * load_eff ** 0.5 * latency_hiding(occ) * staged / 1.8
        blocks = (n // c["MWG"]) * (n // c["NWG"])
        waves = math.ceil(blocks / (SMS * max(1, round(occ * THREADS_PER_SM / threads))))
        tail = blocks / (waves * SMS * max(1, round(occ * THREADS_PER_SM / threads)))
        flops = 2.0 * n ** 3
        return flops / (PEAK_FLOPS * min(eff, 0.95) * (0.7 + 0.3 * tail)), None

    return "gemm", [4096, 4096], p, valid, model


# ---------------------------------------------------------------------------------------------
def convolution_space():
    p = {
        "filter_width": [15], "filter_height": [15],
        "block_size_x": [1, 2, 4, 8, 16, 32, 48, 64, 80, 96, 112, 128],
        "block_size_y": [1, 2, 4, 8, 16, 32],
        "tile_size_x": [1, 2, 3, 4, 5, 6, 7, 8], "tile_size_y": [1, 2, 3, 4, 5, 6, 7, 8],
        "use_padding": [0, 1], "read_only": [0, 1],
    }

    def valid(c):  # the example's restrictions, and Kernel Tuner's 1024 threads per block
        threads = c["block_size_x"] * c["block_size_y"]
        return threads >= 64 and c["tile_size_x"] * c["tile_size_y"] < 30 and threads <= 1024

    def model(c):
        w = h = 4096
        fw, fh = c["filter_width"], c["filter_height"]
        bx, by, tx, ty = c["block_size_x"], c["block_size_y"], c["tile_size_x"], c["tile_size_y"]
        tile_w, tile_h = bx * tx + fw - 1, by * ty + fh - 1
        shared = 4 * (tile_w + c["use_padding"] * (1 if bx % 32 == 0 else 0)) * tile_h
        regs = 20 + 2 * tx * ty + 6
        if shared > SHARED_PER_BLOCK:
            return None, "RuntimeFailedConfig"
        occ = occupancy(bx * by, regs, shared)
        if occ == 0:
            return None, "RuntimeFailedConfig"
        # Partial warps waste lanes; more outputs per thread amortise shared-memory reads.
        lanes = (bx * by) / (math.ceil(bx * by / 32) * 32) * (min(bx, 32) / 32) ** 0.35
        ilp = 1.0 - 0.55 * math.exp(-(tx * ty) / 3.0)
        conflicts = 1.0
        if bx % 32 == 0 and tx > 1:  # strided shared-memory rows: bank conflicts unless padded
            conflicts = 1.0 if c["use_padding"] else 1.0 + 0.08 * min(tx, 4)
        elif c["use_padding"]:
            conflicts = 1.02
        ro = 0.97 if c["read_only"] else 1.0
        halo = (tile_w * tile_h) / (bx * tx * by * ty)   # loads per output
        flops = 2.0 * w * h * fw * fh
        compute = flops / (PEAK_FLOPS * 0.8 * lanes * ilp * latency_hiding(occ)) * conflicts * ro
        memory = 4.0 * w * h * (halo * 0.15 + 1.0) / BANDWIDTH
        return max(compute, memory) + 0.1 * min(compute, memory), None

    return "convolution", [4096, 4096], p, valid, model


# ---------------------------------------------------------------------------------------------
def pnpoly_space():
    p = {
        "block_size_x": [32 * i for i in range(1, 32)],
        "tile_size": [1] + [2 * i for i in range(1, 11)],
        "between_method": [0, 1, 2, 3],
        "use_precomputed_slopes": [0, 1],
        "use_method": [0, 1],
    }

    def valid(c):
        return True

    def model(c):
        points, vertices = 2e7, 600
        regs = 18 + 3 * c["tile_size"] + 4 * c["use_precomputed_slopes"]
        occ = occupancy(c["block_size_x"], regs, 0)
        if occ == 0:
            return None, "RuntimeFailedConfig"
        per_edge = [1.0, 0.92, 1.06, 0.95][c["between_method"]] * (0.82 if c["use_method"] else 1.0)
        if c["use_precomputed_slopes"]:
            per_edge *= 0.78
        ilp = 1.0 - 0.5 * math.exp(-c["tile_size"] / 2.5)
        blocks = math.ceil(points / (c["block_size_x"] * c["tile_size"]))
        per_sm = max(1, round(occ * THREADS_PER_SM / c["block_size_x"]))
        waves = math.ceil(blocks / (SMS * per_sm))
        tail = blocks / (waves * SMS * per_sm)
        ops = points * vertices * 12.0 * per_edge
        kernel = ops / (PEAK_FLOPS * 0.35 * ilp * latency_hiding(occ) * (0.85 + 0.15 * tail))
        host = 0.0004 * c["use_precomputed_slopes"]  # slopes computed on the host first
        transfer = points * 12 / 12e9                 # mapped host memory, mostly overlapped
        return max(kernel, transfer) + 0.1 * min(kernel, transfer) + host, None

    return "pnpoly", [20000000, 1], p, valid, model


# ---------------------------------------------------------------------------------------------
def write_cache(outdir, space, seed):
    name, problem_size, params, valid, model = space
    rnd = random.Random(f"{seed}-{name}")
    keys = list(params)
    cache = {}
    for values in itertools.product(*(params[k] for k in keys)):
        c = dict(zip(keys, values))
        if not valid(c):
            continue  # restricted: Kernel Tuner never compiles it, so the cache does not hold it
        t_s, failure = model(c)
        compile_ms = rnd.uniform(800.0, 2500.0)
        entry = dict(c)
        if failure:
            entry.update({"time": failure, "compile_time": compile_ms, "verification_time": 0,
                          "benchmark_time": 0})
        else:
            unmodelled = math.exp(rnd.gauss(0.0, 0.05))
            t_ms = t_s * 1e3 * unmodelled
            times = [t_ms * math.exp(rnd.gauss(0.0, 0.015)) for _ in range(7)]
            entry.update({"time": sum(times) / len(times), "times": times, "compile_time": compile_ms,
                          "verification_time": 0, "benchmark_time": sum(times) + 5.0})
        entry.update({"strategy_time": 0, "framework_time": 1.0, "timestamp": "2026-11-30 00:00:00+00:00"})
        cache[",".join(str(v) for v in values)] = entry
    doc = {
        "schema_version": "1.0.0",
        "device_name": "synthetic GPU model (galapagos tools/synthetic_kt_cache.py; times are not measured)",
        "kernel_name": name,
        "problem_size": problem_size,
        "tune_params_keys": keys,
        "tune_params": params,
        "objective": "time",
        "cache": cache,
    }
    path = os.path.join(outdir, f"kt-{name}-synthetic.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    failed = sum(1 for e in cache.values() if isinstance(e["time"], str))
    print(f"{path}: {len(cache)} points ({failed} failed)")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for space in (gemm_space(), convolution_space(), pnpoly_space()):
        write_cache(a.outdir, space, a.seed)


if __name__ == "__main__":
    main()
