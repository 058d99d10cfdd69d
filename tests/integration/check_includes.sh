#!/usr/bin/env bash
# check_includes.sh SOURCE_DIR: leaves never reach up (STYLE.md, docs/architecture.md). src/core
# includes only the standard library and itself; families, eval, store and backends never include
# the search, MPI or the archipelago; the run (src/run) and the config (src/config) never include
# MPI or the archipelago; nothing but src/store includes HDF5; simulate reads a config through
# config/search_tables alone, which needs only core and util.
set -u
cd "$1"
bad=0
report() { echo "FAIL: $1"; bad=1; }
while IFS= read -r line; do report "src/core reaches out: $line"; done < <(
  grep -rn '#include' src/core | grep -v -E '#include <[a-z_/]+(\.h)?>|#include "core/' )
while IFS= read -r line; do report "a leaf includes the search or MPI: $line"; done < <(
  grep -rn -E '#include [<"](mpi\.h|archipelago/|propose/)' src/families src/eval src/store src/backends src/util kernels )
while IFS= read -r line; do report "the run or the config includes MPI or the archipelago: $line"; done < <(
  grep -rn -E '#include [<"](mpi\.h|archipelago/)' src/run src/config )
while IFS= read -r line; do report "HDF5 outside src/store: $line"; done < <(
  grep -rln -E '#include [<"](hdf5\.h|H5[A-Za-z]*\.h)|\bH5[A-Z][a-z]*[A-Za-z_0-9]*\(' src apps | grep -v '^src/store/' )
while IFS= read -r line; do report "storage is reached from evaluation or families: $line"; done < <(
  grep -rn -E '#include [<"](store/|hdf5\.h)' src/families src/eval src/backends src/core )
while IFS= read -r line; do report "simulate reaches past the search tables into the run's config: $line"; done < <(
  grep -rn -E '#include "(config/|run/|eval/|propose/)' src/simulate | grep -v '"config/search_tables.hpp"' )
while IFS= read -r line; do report "the search tables reach beyond core and util: $line"; done < <(
  grep -n '#include "' src/config/search_tables.hpp src/config/search_tables.cpp | grep -v -E '"(core|util)/|"config/search_tables.hpp"' )
while IFS= read -r line; do report "the worker's module reaches into galapagos: $line"; done < <(
  grep -rn '#include "' src/worker | grep -v '#include "worker/' )
if [[ $bad -eq 0 ]]; then echo "include directions ok"; fi
exit $bad
