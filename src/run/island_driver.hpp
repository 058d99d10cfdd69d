// One island of a run, without MPI: the generation loop (proposals from the GA or the island's
// strategy, LLM variations, migrants taken in), each candidate measured (or replayed) and
// recorded, elites sent on, checkpoint states and records sent to island 0, which writes the
// results file. Other islands are reached through run::mailbox: archipelago::message_channel
// under MPI, local_mailbox.hpp in one process.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run/checkpoint.hpp"
#include "run/mailbox.hpp"
#include "run/setup.hpp"
#include "store/results_file.hpp"

namespace galapagos::run {

class island_driver {
 public:
  // `migrants` carries elites between islands, `records` the result records to island 0 (two
  // mailboxes, so that neither's messages are taken for the other's). best_baseline_s: the
  // fastest baseline's time at start-up; the island times it again at the start of every
  // generation, and its candidates' speedups are over that. What it prints goes through the console
  // (util/report.hpp), at the level the command configured.
  island_driver(setup& s, mailbox& migrants, mailbox& records, stop_signal& stop, double best_baseline_s,
                std::string best_baseline_name);
  ~island_driver();
  island_driver(const island_driver&) = delete;
  island_driver& operator=(const island_driver&) = delete;

  // Puts the island where the checkpoint of a resumed run left it.
  void restore(const resume_plan& p);
  // The islands of this one's family and backend (island 0 picks its group's winner among them).
  void set_group(std::vector<int> members);
  // Island 0: the checkpoints it writes as records arrive.
  void set_checkpoints(checkpoint_writer* w);
  // Whether island 0 redraws a live progress line (then checkpoints are not announced one by one).
  bool live_progress() const;
  // Runs the island to its budget. On island 0 `file` receives every island's records.
  void run(store::results_file* file);
  // Tells the islands this one sends to that it reached its end ("done") or stopped.
  void leave();
  // Island 0: writes records that arrived from other islands, then checkpoints what they complete.
  void drain_records();
  // Island 0: writes one record batch (as sent by an island).
  void absorb(const std::string& text);
  // Whether the island searched to its end (budget spent or space exhausted), not stopped.
  bool completed() const;
  // Island 0: the best correct candidate of its group in the whole run.
  const std::optional<store::candidate_row>& best_row() const;
  // The best correct candidate this island evaluated in this session.
  const std::optional<store::candidate_row>& best_own() const;
  // The fastest and slowest correct re-timings of the fastest baseline over the run (+inf, 0: none).
  std::pair<double, double> baseline_range() const;
  // The text of a source variant this island made or received, or whose rows it wrote (island
  // 0); empty for the family's template and for sources it never saw.
  std::string variant_source(const std::string& hash) const;

 private:
  class impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace galapagos::run
