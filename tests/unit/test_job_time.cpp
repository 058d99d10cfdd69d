// The time a Slurm job has left: squeue's %L text, and $SLURM_JOB_END_TIME.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <ctime>
#include <string>

#include "archipelago/job_time.hpp"

using galapagos::archipelago::parse_slurm_time_left;
using galapagos::archipelago::slurm_seconds_left;

TEST(JobTime, SqueueFormats) {
  EXPECT_EQ(parse_slurm_time_left("4:05"), 245.0);
  EXPECT_EQ(parse_slurm_time_left("1:00:00"), 3600.0);
  EXPECT_EQ(parse_slurm_time_left("2-03:04:05"), ((2 * 24 + 3) * 60 + 4) * 60 + 5.0);
  EXPECT_EQ(parse_slurm_time_left("0:00"), 0.0);
}

TEST(JobTime, NoLimitOrNonsense) {
  for (const char* text : {"UNLIMITED", "NOT_SET", "INVALID", "", "12", "1:2:3:4", "1-2:03", "-1:00", "1:", ":30", "a:30", "1-"})
    EXPECT_FALSE(parse_slurm_time_left(text).has_value()) << text;
}

TEST(JobTime, EndTimeFromTheEnvironment) {
  const long end = static_cast<long>(std::time(nullptr)) + 600;
  setenv("SLURM_JOB_END_TIME", std::to_string(end).c_str(), 1);
  const auto left = slurm_seconds_left();
  ASSERT_TRUE(left.has_value());
  EXPECT_NEAR(*left, 600, 5);
  setenv("SLURM_JOB_END_TIME", "soon", 1);
  unsetenv("SLURM_JOB_ID");
  EXPECT_FALSE(slurm_seconds_left().has_value());  // not a time, and no job to ask squeue about
  unsetenv("SLURM_JOB_END_TIME");
}
