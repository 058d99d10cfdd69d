"""galapagos.run(): the `galapagos run` command from Python, returning the loaded results."""
import os
import shutil
import subprocess

from .results import load


class GalapagosError(RuntimeError):
    """`galapagos run` failed: the message holds its exit status and its last error line."""

    def __init__(self, message, returncode=None, stderr=""):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


def _executable(executable):
    if executable:
        return os.fspath(executable)
    if os.environ.get("GALAPAGOS"):
        return os.environ["GALAPAGOS"]
    found = shutil.which("galapagos")
    if not found:
        raise GalapagosError("galapagos.run: no galapagos program on PATH (pass executable=, or set $GALAPAGOS to "
                             "the program, e.g. PREFIX/bin/galapagos)")
    return found


def run(config, out=None, budget=None, extra_args=(), executable=None, check=True, quiet=True):
    """Runs `galapagos run CONFIG` (one island; put mpirun in front yourself for more) and returns
    galapagos.load(out). out: the results file (default: the config's [run] `out`, relative to
    the current folder as galapagos reads it); budget: --budget N;
    extra_args: more options, e.g. ("--seed", "3", "--force"); executable: the galapagos program
    (default: $GALAPAGOS, else galapagos on PATH). A run that fails raises GalapagosError with
    its exit status and last error line (check=False returns None instead). quiet: --quiet."""
    argv = [_executable(executable), "run", os.fspath(config)] + (["--quiet"] if quiet else [])
    if out is not None:
        argv += ["--out", os.fspath(out)]
    if budget is not None:
        argv += ["--budget", str(int(budget))]
    argv += [str(a) for a in extra_args]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        if not check:
            return None
        last = next((ln for ln in reversed(p.stderr.splitlines()) if ln.strip()), "")
        raise GalapagosError(f"galapagos run {config}: exit {p.returncode}" + (f": {last}" if last else ""),
                             p.returncode, p.stderr)
    return load(out if out is not None else _configured_out(config))


def _configured_out(config):
    """The config's [run] out (galapagos' default when it has none)."""
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        raise GalapagosError(f"galapagos.run: {config}: pass out= (reading the config's [run] out needs Python 3.11's "
                             "tomllib)") from None
    with open(config, "rb") as f:
        return tomllib.load(f).get("run", {}).get("out", "results/galapagos.h5")
