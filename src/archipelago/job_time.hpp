// The time a batch job has left, so that a search stops cleanly before the scheduler ends it.
#pragma once

#include <optional>
#include <string>

namespace galapagos::archipelago {

// Seconds until the Slurm job this process belongs to reaches its time limit: from
// $SLURM_JOB_END_TIME (a Unix time, set by Slurm 23.02 and later), else from
// `squeue -h -j $SLURM_JOB_ID -o %L` where squeue is on PATH. None outside Slurm, for a job
// without a limit, or when neither answers.
std::optional<double> slurm_seconds_left();
// Seconds in squeue's %L text: "[days-][hours:]minutes:seconds"; none for UNLIMITED, NOT_SET,
// INVALID or anything else.
std::optional<double> parse_slurm_time_left(const std::string& text);

}  // namespace galapagos::archipelago
