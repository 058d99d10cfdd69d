"""galapagos' Python side: read a run's results file, draw its report, compare runs, start a run.

    import galapagos
    r = galapagos.load("run.h5")             # pandas DataFrames, decoded strings, typed attributes
    r.candidates, r.generations, r.attrs, r.winner, r.units, r.best()
    ds = galapagos.to_xarray(r)              # xarray.Dataset of every table (where xarray is installed)
    r = galapagos.run("configs/stencil3d7-cpu-ci.toml", out="run.h5", budget=32)

From the shell: `python3 -m galapagos.results FILE` (a summary), `python3 -m galapagos.report FILE`
(what `galapagos report` runs), `python3 -m galapagos.compare A.h5 B.h5 ... [--plot FILE.png]`.
docs/analysis.md has worked examples; the package needs numpy, pandas and h5py (matplotlib for
the report and plots), all Debian packages (python3-numpy, python3-pandas, python3-h5py)."""
import importlib

# Where each name lives, imported on first use (PEP 562): `python3 -m galapagos.report` must not
# find its module imported already by this file, and `import galapagos` stays cheap.
_HOME = {"load": "results", "Results": "results", "ResultsError": "results", "content_hash": "results",
         "reader_version": "results", "run": "command", "GalapagosError": "command", "to_xarray": "xarray_view"}

__all__ = list(_HOME)
__version__ = "0.1.0"


def __getattr__(name):
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_HOME))
