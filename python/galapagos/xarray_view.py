"""A loaded run as an xarray.Dataset, for users who analyse with xarray (optional dependency)."""


def to_xarray(results):
    """Every non-empty table of `results` (what galapagos.load returns) as one xarray.Dataset:
    each column a variable `<table>.<column>` along the dimension `<table>` (its rows), with its
    unit in the variable's `units` attribute; the file's root attributes (and /winner's, prefixed
    `winner.`) as the Dataset's attributes. The param_<NAME> columns of /candidates are included;
    `parents` (lists) is left out. Raises ImportError with what to install when xarray is absent."""
    try:
        import xarray as xr
    except ImportError as e:
        raise ImportError("galapagos.to_xarray needs the xarray package (Debian: apt install python3-xarray; "
                          f"pip: pip install xarray): {e}") from None
    variables = {}
    for table in ("candidates", "generations", "baselines", "baseline_timings", "llm_calls", "populations",
                  "migrations", "machine", "profiles"):
        df = getattr(results, table)
        if df is None or df.empty:
            continue
        units = results.units.get(table, {})
        for column in df.columns:
            if column == "parents":
                continue
            values = df[column].to_numpy()
            variables[f"{table}.{column}"] = xr.Variable((table,), values, attrs={"units": units[column]}
                                                         if units.get(column) else {})
    attrs = {k: v for k, v in results.attrs.items() if isinstance(v, (str, int, float, bool))}
    attrs.update({f"winner.{k}": v for k, v in results.winner.items() if isinstance(v, (str, int, float, bool))})
    attrs = {k: (int(v) if isinstance(v, bool) else v) for k, v in attrs.items()}  # netCDF has no bool
    return xr.Dataset(variables, attrs=attrs)
