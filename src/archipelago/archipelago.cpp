#include "archipelago/archipelago.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "archipelago/channels.hpp"
#include "archipelago/groups.hpp"
#include "archipelago/job_time.hpp"
#include "archipelago/stop_request.hpp"
#include "config/run_config.hpp"
#include "core/island.hpp"
#include "core/topology.hpp"
#include "eval/evaluator.hpp"
#include "eval/family_process.hpp"
#include "eval/node_lock.hpp"
#include "eval/probe.hpp"
#include "families/family.hpp"
#include "propose/llm/proposer.hpp"
#include "propose/llm/variant.hpp"
#include "run/checkpoint.hpp"
#include "run/final_comparison.hpp"
#include "run/island_driver.hpp"
#include "run/ledger.hpp"
#include "run/progress.hpp"
#include "run/records.hpp"
#include "run/setup.hpp"
#include "store/publish.hpp"
#include "store/results_file.hpp"
#include "store/results_target.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/report.hpp"
#include "util/utc.hpp"

namespace galapagos::archipelago {

namespace {

using config::parse_run_config;
using nlohmann::json;
using run::baseline_result;
using run::checkpoint_format_version;
using run::checkpoint_writer;
using run::final_comparison;
using run::format_seconds;
using run::read_resume_plan;
using run::resume_plan;
using run::resume_plan_from_json;
using run::search_start;
using run::setup;
using run::to_json_text;
using run::write_winner;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

int search(MPI_Comm comm, const search_start& st);

// The measured half of every island's probe (s.probe is described already). A resumed island on
// a node of the kind its run started on keeps the ceilings the file holds for it (run::kept_probe):
// the whole run is judged against one set, and a short job slice is not spent measuring them
// again. The others measure, once per node and kind of process (ranks of one node that may use
// the same cores share one measurement, taken under the node lock). Collective over `comm`;
// true when this island kept its recorded ceilings.
bool take_ceilings(MPI_Comm comm, setup& s, const std::vector<store::machine_row>& recorded) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto kept = run::kept_probe(recorded, rank, s.probe);
  if (kept) s.probe = *kept;
  MPI_Comm node = MPI_COMM_NULL, same = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_split(node, kept ? MPI_UNDEFINED : s.probe.cores, rank, &same);
  MPI_Comm_free(&node);
  if (same == MPI_COMM_NULL) return true;
  int local = 0;
  MPI_Comm_rank(same, &local);
  double ceilings[3] = {0, 0, 0};
  if (local == 0) {
    eval::node_lock_guard hold(*s.lock);
    eval::measure_ceilings(s.probe);
    ceilings[0] = s.probe.bandwidth_gbs;
    ceilings[1] = s.probe.peak_gflops;
    ceilings[2] = s.probe.peak_gflops_f32;
  }
  // The others sleep meanwhile: a rank spinning in MPI_Bcast would take a core from the probe
  // (seen: half the bandwidth and the dgemm rate of a quiet 2-core node).
  MPI_Request r;
  MPI_Ibcast(ceilings, 3, MPI_DOUBLE, 0, same, &r);
  wait_politely(r);
  MPI_Comm_free(&same);
  s.probe.bandwidth_gbs = ceilings[0];
  s.probe.peak_gflops = ceilings[1];
  s.probe.peak_gflops_f32 = ceilings[2];
  return false;
}

}  // namespace

int run_search(MPI_Comm comm, const std::filesystem::path& config, const run_overrides& o) {
  install_stop_handlers();
  return search(comm, search_start{config, o, std::nullopt, nullptr});
}

int resume_search(MPI_Comm comm, const std::filesystem::path& results, const run_overrides& o) {
  install_stop_handlers();
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Rank 0 reads the checkpoint (only reads: the file is not touched before the run is set up
  // again) and every rank gets the plan, or the one line that says why there is none.
  std::string text, problem;
  int finished = 0;
  std::shared_ptr<store::results_lock> lock;  // one writer per results file, from before the read
  if (rank == 0) {
    try {
      if (std::filesystem::exists(results)) lock = std::make_shared<store::results_lock>(results, "resume");
      const resume_plan p = read_resume_plan(results.string(), o.budget.has_value());
      finished = p.finished && !o.budget ? 1 : 0;
      if (o.budget && *o.budget < p.settings.budget)
        throw error(results.string(), "--budget " + std::to_string(*o.budget) + " is less than the run's budget of " +
                                          std::to_string(p.settings.budget) + " evaluations per island");
      if (!finished) {  // what is wrong with the file comes before what is wrong with the job
        parse_run_config(p.config_text, p.config_file, results.string() + " (its stored config)");
        for (const auto& [kind, c] : p.kind_configs) {  // a mixed job's: each kind's, run by its islands
          const auto parsed =
              parse_run_config(c.config_text, c.config_file, results.string() + " (its stored config of " + kind + ")");
          if (parsed.family + "/" + parsed.backend != kind)
            throw error(results.string(),
                        "its stored config of " + kind + " searches " + parsed.family + " on " + parsed.backend);
          if (o.budget && *o.budget < c.budget)
            throw error(results.string(), "--budget " + std::to_string(*o.budget) + " is less than the budget of " +
                                              std::to_string(c.budget) + " evaluations per island of " + kind);
        }
        if (!p.settings.replay.empty() && !std::filesystem::exists(p.settings.replay))
          throw error(p.settings.replay, "no such file (the replay recording of " + results.string() + ")");
      }
      if (!finished && p.islands != size)
        throw error(results.string(), "the run has " + std::to_string(p.islands) + " islands: resume it with " +
                                          std::to_string(p.islands) + " MPI ranks (this job has " + std::to_string(size) + ")");
      text = to_json_text(p);
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  auto broadcast = [&](std::string& v) {
    int n = static_cast<int>(v.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm);
    v.resize(static_cast<std::size_t>(n));
    MPI_Bcast(v.data(), n, MPI_CHAR, 0, comm);
  };
  broadcast(problem);
  MPI_Bcast(&finished, 1, MPI_INT, 0, comm);
  if (!problem.empty()) {
    if (rank == 0) report::problem("galapagos: %s", problem.c_str());
    return 2;
  }
  if (finished) {
    if (rank == 0)
      report::line("%s: the run is finished; nothing to resume (resume --budget N continues it with N evaluations per island)",
                   results.c_str());
    return 0;
  }
  broadcast(text);
  return search(comm, search_start{results, o, resume_plan_from_json(text), std::move(lock)});
}

namespace {

int search(MPI_Comm comm, const search_start& st) {
  const auto session_t0 = std::chrono::steady_clock::now();
  run::session_meter meter;  // rank 0: this session's wall time and CPU energy (the ledger)
  const run_overrides& o = st.overrides;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  // Setup: every rank reads and checks the same inputs; all agree before anything is written.
  std::unique_ptr<setup> s;
  std::string problem;
  // Collective: false when any rank failed; the error is printed once. Waits asleep: the
  // leader may still be timing the baselines on the cores a spinning rank would take.
  auto all_fine = [&]() {
    int failed = problem.empty() ? 0 : 1, any_failed = 0, rank0_failed = failed;
    MPI_Request r;
    MPI_Iallreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm, &r);
    wait_politely(r);
    MPI_Ibcast(&rank0_failed, 1, MPI_INT, 0, comm, &r);
    wait_politely(r);
    if (failed && rank == 0) report::problem("galapagos: %s", problem.c_str());
    if (failed && rank != 0 && !rank0_failed) report::problem("galapagos (rank %d): %s", rank, problem.c_str());
    return any_failed == 0;
  };
  std::shared_ptr<store::results_lock> lock = st.lock;
  // Where the start-up goes (seconds since the session began, per phase), reported with the search line.
  auto since_start = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - session_t0).count(); };
  double probe_s = 0, template_s = 0, baselines_s = 0;
  try {
    s = prepare(st, rank, size);
    // Rank 0 writes the results file: a path that cannot be one, a file galapagos must not
    // replace, or another process writing it ends the run here, before anything is measured or
    // written. The config's own [run] out (results/<config>.h5) gets its folder made.
    if (rank == 0 && !st.plan) {
      const auto& out = s->config.out;
      std::error_code ec;
      if (!o.out && out.has_parent_path() && !std::filesystem::exists(out.parent_path(), ec) &&
          !std::filesystem::create_directories(out.parent_path(), ec) && ec)
        throw error(out.string(), "cannot create its folder " + out.parent_path().string() + " (" + ec.message() + ")");
      store::check_results_path(out, o.out ? "--out" : "[run] out");
      lock = std::make_shared<store::results_lock>(out, "run");
      store::check_new_results_file(out, o.replace, s->settings.replay);
    }
    probe_s = since_start();
    s->probe = s->replay ? recorded_probe(*s->replay, rank) : eval::describe_machine();
  } catch (const std::exception& e) {
    problem = e.what();
  }
  if (!all_fine()) return 2;
  const char* probe_origin = "recorded";
  if (!s->replay)
    probe_origin = take_ceilings(comm, *s, st.plan ? st.plan->machines : std::vector<store::machine_row>{}) ? "kept" : "measured";
  probe_s = since_start() - probe_s;
  try {
    std::random_device rd;  // the check inputs' seed is secret: not derived from the config
    const std::uint64_t secret = (std::uint64_t{rd()} << 32) ^ rd();
    eval::set_reference_time_limit(s->config.eval.timeout_s, s->config.reference_timeout_s);
    s->evaluator = std::make_unique<eval::evaluator>(s->family, s->config.backend, s->config.eval, s->probe.limits(), secret);
    // An energy objective needs the board's energy counter (NVML, ROCm SMI): without it every candidate's
    // fitness would be unknown.
    if (core::needs_energy(s->config.objective) && !s->replay && s->evaluator->device_name().empty())
      throw error(s->config.file.string(),
                  std::string("key 'search.objective': '") + core::to_string(s->config.objective) +
                      "' needs the GPU's energy counter, and neither NVML nor ROCm SMI reports one on this node: "
                      "use objective = \"time\"");
    template_s = since_start();
    if (!s->replay) check_template_builds(*s);
    template_s = since_start() - template_s;
  } catch (const std::exception& e) {
    problem = e.what();
  }
  if (!all_fine()) return 2;
  // Islands of one family and backend form a group (groups.hpp): migrants, ceilings, baselines
  // and the winner stay within it.
  const island_groups groups(comm, s->config.family + "/" + s->config.backend);
  try {
    const auto configs = allgather_strings(groups.comm(), util::hash_text(s->config.text));
    if (std::any_of(configs.begin(), configs.end(), [&](const std::string& h) { return h != configs.front(); }))
      throw error(s->config.file.string(),
                  "the islands of " + s->config.family + " on " + s->config.backend + " in this job must all run one config");
    const auto& members = groups.members();
    std::vector<std::vector<int>> local;
    try {
      local = core::migration_targets({s->config.migration.topology, s->config.migration.degree},
                                      static_cast<int>(members.size()), s->config.seed);
    } catch (const std::invalid_argument& e) {
      throw error(s->config.file.string(), std::string("[migration] topology '") + s->config.migration.topology + "' with " +
                                               std::to_string(members.size()) + " islands: " + e.what());
    }
    s->migration_targets.assign(static_cast<std::size_t>(size), {});
    for (std::size_t i = 0; i < members.size(); ++i)
      for (int j : local[i])
        s->migration_targets[static_cast<std::size_t>(members[i])].push_back(members[static_cast<std::size_t>(j)]);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  if (!all_fine()) return 2;
  // A mixed job keeps each kind's config and settings in the file (kind_configs), so that
  // `galapagos resume` can start every island with its own.
  std::string kind_configs;
  if (groups.mixed()) {
    const auto each = allgather_strings(comm, json{{"config_toml", s->config.text},
                                                   {"config_file", std::filesystem::absolute(s->config.file).string()},
                                                   {"budget", s->settings.budget},
                                                   {"seed", std::to_string(s->settings.seed)}}
                                                  .dump());
    json by_kind = json::object();
    for (std::size_t r = 0; r < each.size(); ++r) by_kind[groups.kind_of()[r]] = json::parse(each[r]);
    kind_configs = by_kind.dump();
  }
  // A shared node's throughput swings between probes: every island judges and reports against
  // the best ceilings any island of its group measured (they run on nodes of one kind).
  {
    const auto& mine = s->evaluator->machine();
    double local[3] = {mine.bandwidth_gbs, mine.peak_gflops, mine.peak_gflops_f32}, best[3];
    MPI_Allreduce(local, best, 3, MPI_DOUBLE, MPI_MAX, groups.comm());
    s->evaluator->raise_ceilings(best[0], best[1], best[2], "another island's probe");
  }
  std::vector<baseline_result> baselines;
  baselines_s = since_start();
  try {
    if (rank == groups.leader()) {
      auto& specs = s->family.backends.at(s->config.backend).baselines;
      for (auto b = specs.begin(); b != specs.end();) {
        eval::node_lock_guard hold(*s->lock);
        const auto m = s->measurer().evaluate(eval::baseline_from(*b));
        if (m.status == eval::candidate_status::ok) {
          baselines.push_back({b->name, m});
          ++b;
        } else if (eval::unavailable_here(*b, m)) {
          // Its vendor library is not on this node: the final comparison and the file leave it out.
          report::line("baseline %s: unavailable on this node (%s: %s)", b->name.c_str(), eval::to_string(m.status).c_str(),
                       m.reason.substr(0, m.reason.find('\n')).c_str());
          b = specs.erase(b);
        } else {
          throw error(b->source.string(), "baseline '" + b->name + "' failed (" + eval::to_string(m.status) + "): " + m.reason);
        }
      }
    }
  } catch (const std::exception& e) {
    problem = e.what();
  }
  if (!all_fine()) return 2;
  baselines_s = since_start() - baselines_s;

  // The fastest baseline is what every speedup is measured against.
  double best_baseline[1] = {inf};
  std::string best_name;
  for (const auto& b : baselines)
    if (b.m.time_median_s < best_baseline[0]) {
      best_baseline[0] = b.m.time_median_s;
      best_name = b.name;
    }
  MPI_Bcast(best_baseline, 1, MPI_DOUBLE, 0, groups.comm());
  int name_len = static_cast<int>(best_name.size());
  MPI_Bcast(&name_len, 1, MPI_INT, 0, groups.comm());
  best_name.resize(static_cast<std::size_t>(name_len));
  MPI_Bcast(best_name.data(), name_len, MPI_CHAR, 0, groups.comm());

  // Every group's baselines go into the file: the leaders of the other groups send theirs to rank 0.
  std::vector<store::baseline_row> baseline_rows;
  std::vector<std::pair<std::string, std::string>> baseline_sources;  // hash, text
  if (rank == groups.leader()) {
    const auto& specs = s->family.backend(s->config.backend).baselines;
    for (const auto& b : baselines) {
      const auto spec = std::find_if(specs.begin(), specs.end(), [&](const auto& x) { return x.name == b.name; });
      baseline_sources.emplace_back(b.m.source_hash, util::read_file(spec->source.string()));
      store::baseline_row row;
      row.name = b.name;
      row.island = rank;
      run::record_measurement(b.m, row);
      baseline_rows.push_back(row);
    }
  }
  const auto other_leaders = [&] {
    auto l = groups.leaders();
    l.erase(l.begin());  // rank 0 leads the first group
    return l;
  }();
  if (rank != 0 && rank == groups.leader()) {
    send_text(comm, 0, json{{"rows", baseline_rows}, {"sources", baseline_sources}}.dump());
  } else if (rank == 0) {
    for (int leader : other_leaders) {
      const json j = json::parse(receive_text(comm, leader));
      for (const auto& row : j.at("rows")) baseline_rows.push_back(row.get<store::baseline_row>());
      for (const auto& src : j.at("sources"))
        baseline_sources.emplace_back(src.at(0).get<std::string>(), src.at(1).get<std::string>());
    }
  }

  // Hardware probes of every island, for the file.
  // Each island's own measurement (the device's on GPUs) goes into the file.
  const auto& ceil = s->evaluator->measured();
  std::vector<double> probe_numbers = {ceil.bandwidth_gbs, ceil.peak_gflops, static_cast<double>(s->probe.cores),
                                       static_cast<double>(s->probe.llc_bytes), ceil.peak_gflops_f32};
  constexpr int probe_fields = 5;
  std::vector<double> all_probes(probe_fields * static_cast<std::size_t>(size));
  MPI_Gather(probe_numbers.data(), probe_fields, MPI_DOUBLE, all_probes.data(), probe_fields, MPI_DOUBLE, 0, comm);

  // The islands, put back where the checkpoint left them when resuming (a checkpoint that does
  // not fit this family's space is refused here, before anything is written).
  message_channel migrants(comm), records(comm);
  stop_request stop(comm, s->config.grace_s);
  // The clock's stopping rules: this session's time limit, and the Slurm job's end (rank 0 asks
  // the scheduler; every rank counts from the same answer), each leaving the grace period for the
  // generation in flight, and the job's end a minute more for the checkpoint and MPI's exit (at
  // most half the job's time left, so that a short job still searches; its signal stops it too).
  const double grace_s = s->config.grace_s;
  if (s->config.stop.time_limit_s > 0)
    stop.stop_at(session_t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(std::max(0.0, s->config.stop.time_limit_s - grace_s))),
                 run::stop_reason::time_limit);
  double job_left_s = nan;
  if (rank == 0) job_left_s = slurm_seconds_left().value_or(nan);
  MPI_Bcast(&job_left_s, 1, MPI_DOUBLE, 0, comm);
  if (std::isfinite(job_left_s))
    stop.stop_at(std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(std::max(0.0, job_left_s - std::min(grace_s + 60, job_left_s / 2)))),
                 run::stop_reason::job_end);
  run::island_driver runner(*s, migrants, records, stop, best_baseline[0], best_name);
  runner.set_group(groups.members());
  try {
    if (st.plan) runner.restore(*st.plan);
  } catch (const std::exception& e) {
    problem = e.what();
    // A checkpoint text that does not parse (JSON, random state) is a damaged file: say which.
    if (problem.rfind(st.plan->path + ":", 0) != 0)
      problem = st.plan->path + ": damaged checkpoint of island " + std::to_string(rank) + " (" + problem +
                "): the run cannot be resumed from this file";
  }
  if (!all_fine()) return 2;

  // Rank 0 writes a working copy beside the results file and publishes it at every checkpoint
  // (store/publish.hpp): the results file itself is only ever replaced whole.
  // The whole job's migration graph, for the file (each island knows its own group's).
  std::vector<std::vector<int>> all_targets;
  for (const auto& t : allgather_strings(comm, json(s->migration_targets[static_cast<std::size_t>(rank)]).dump()))
    all_targets.push_back(json::parse(t).get<std::vector<int>>());
  // Each island's search strategy as its driver picks it: its rank in its group, cycled over the
  // group's [strategy] kinds.
  int group_rank = 0;
  MPI_Comm_rank(groups.comm(), &group_rank);
  const auto strategies = allgather_strings(comm, s->config.strategy_of(group_rank));
  std::unique_ptr<store::results_file> file;
  std::unique_ptr<checkpoint_writer> checkpoints;
  std::string session_group;  // rank 0: /sessions/<this session>
  const auto& cfg = s->config;
  const auto working = store::working_path(cfg.out);
  if (rank == 0 && st.plan) {
    store::copy_file(cfg.out, working);
    file = std::make_unique<store::results_file>(store::results_file::open(working.string()));
    if (st.plan->finished) file->set_attributes("/", {{"finished", false}});   // extended: it finishes again
    file->set_attributes("/", {{"strategy_kinds", json(strategies).dump()}});  // files from before the attribute
  } else if (rank == 0) {
    file = std::make_unique<store::results_file>(
        store::results_file::create(working.string(), {{"galapagos_version", build_info::version},
                                                       {"config_toml", cfg.text},
                                                       {"config_file", std::filesystem::absolute(cfg.file).string()},
                                                       {"finished", false},
                                                       {"created_utc", util::utc_now()},
                                                       {"git_revision", build_info::git_revision},
                                                       {"family", cfg.family},
                                                       {"backend", cfg.backend},
                                                       {"fitness_size", s->evaluator->fitness_description()},
                                                       {"tolerance", s->family.tolerance},
                                                       {"compiler", s->evaluator->compiler().compiler_identity()},
                                                       {"hdf5_flavor", build_info::hdf5_flavor},
                                                       {"islands", size},
                                                       {"seed", static_cast<std::int64_t>(cfg.seed)},
                                                       {"objective", core::to_string(cfg.objective)},
                                                       {"fitness_unit", core::fitness_unit(cfg.objective)},
                                                       {"migration_targets", json(all_targets).dump()},
                                                       {"island_kinds", json(groups.kind_of()).dump()},
                                                       {"strategy_kinds", json(strategies).dump()}}));
    std::vector<store::machine_row> machines;
    for (int r = 0; r < size; ++r) {
      const double* p = &all_probes[probe_fields * static_cast<std::size_t>(r)];
      machines.push_back({r, r == 0 ? s->probe.host : "", s->probe.cpu_model, static_cast<std::int32_t>(p[2]),
                          static_cast<std::int64_t>(p[3]), p[0], p[1], p[4]});
    }
    file->append(machines);
  }
  if (rank == 0) {
    if (groups.mixed()) file->set_attributes("/", {{"kind_configs", kind_configs}});
    const std::vector<store::baseline_row>& rows = baseline_rows;
    for (const auto& [hash, text] : baseline_sources) file->add_source(hash, text);
    for (const auto& b : rows)
      report::line("baseline %s%s: %s (roofline %.0f%%)",
                   groups.mixed() ? (groups.kind_of()[static_cast<std::size_t>(b.island)] + " ").c_str() : "", b.name.c_str(),
                   format_seconds(b.time_median_s).c_str(), 100 * b.roofline_fraction);
    file->append(rows);
    // The session (this start of the run) and the checkpoint's own settings.
    const int session = st.plan ? st.plan->session : 0;
    session_group = "/sessions/" + std::to_string(session);
    const std::string& group = session_group;
    std::string generations = "[";
    for (int r = 0; st.plan && r < size; ++r) {
      const auto& snap = st.plan->per_island[static_cast<std::size_t>(r)].snapshot;
      generations += (r ? "," : "") + std::to_string(snap ? snap->generation : 0);
    }
    file->set_attributes(group, {{"kind", st.plan ? (st.plan->finished ? "extend" : "resume") : "run"},
                                 {"started_utc", util::utc_now()},
                                 {"host", s->probe.host},
                                 {"galapagos_version", build_info::version},
                                 {"git_revision", build_info::git_revision},
                                 {"replay", s->settings.replay},
                                 {"resumed_from_generations", generations + "]"},
                                 {"fastest_baseline", best_name},
                                 {"objective", core::to_string(cfg.objective)},
                                 {"machine_probe", probe_origin}});
    file->set_attribute(group, "baselines_first_row", st.plan ? st.plan->baseline_rows : 0);
    file->set_attribute(group, "baselines_rows", static_cast<std::int64_t>(rows.size()));
    file->set_attribute(group, "fastest_baseline_s", best_baseline[0]);
    file->set_attribute(group, "ranks", size);
    // The stopping rules of this session (0: none), and what the Slurm job had left at its start.
    file->set_attribute(group, "budget", cfg.budget);
    file->set_attribute(group, "time_limit_s", cfg.stop.time_limit_s);
    file->set_attribute(group, "target_roofline", cfg.stop.target_roofline);
    file->set_attribute(group, "stagnant_generations", cfg.stop.stagnant_generations);
    file->set_attribute(group, "job_time_left_s", job_left_s);
    file->set_attributes("/checkpoint", {{"seed", static_cast<std::int64_t>(s->settings.seed)}, {"replay", s->settings.replay}});
    file->set_attribute("/checkpoint", "format_version", checkpoint_format_version);
    file->set_attribute("/checkpoint", "islands", size);
    file->set_attribute("/checkpoint", "budget", s->settings.budget);
    file->set_attribute("/checkpoint", "replay_delay_s", s->settings.replay_delay_s);
    file->set_attribute("/checkpoint", "time_limit_s", cfg.stop.time_limit_s);
    file->set_attribute("/checkpoint", "target_roofline", cfg.stop.target_roofline);
    file->set_attribute("/checkpoint", "stagnant_generations", cfg.stop.stagnant_generations);
    file->set_attribute("/checkpoint", "sessions", session + 1);
    checkpoints = std::make_unique<checkpoint_writer>(*file, cfg.out, size, runner.live_progress());
    if (st.plan) {
      checkpoints->set_history(st.plan->checkpoints, st.plan->checkpoint_time_s);
      for (const auto& isl : st.plan->per_island)
        if (isl.snapshot) checkpoints->note(*isl.snapshot);
      report::line("resuming %s: session %d, islands at generations %s, baselines measured again%s", cfg.out.c_str(), session,
                   (generations + "]").c_str(), s->replay ? " (replayed)" : "");
    }
    checkpoints->write(run::checkpoint_writer::announce::verbose);
    const double startup_s = since_start();
    file->set_attribute(group, "startup_s", startup_s);
    report::line("start-up: %.1f s (machine probe %s %.1f s, template build check %.1f s, baselines %.1f s)", startup_s,
                 probe_origin, probe_s, template_s, baselines_s);
    report::line("search: %d islands, budget %d evaluations each, fitness size %s, floor %s", size, cfg.budget,
                 s->evaluator->fitness_description().c_str(),
                 format_seconds(s->evaluator->floor_s(s->evaluator->fitness_size())).c_str());
  }

  runner.set_checkpoints(checkpoints.get());
  runner.run(file.get());
  runner.leave();
  // Every island has left its loop: searched to its end, or stopped at a safe point. Until all
  // have, a late signal is still passed on, and rank 0 keeps writing what arrives.
  stop.wait_for_all([&] { runner.drain_records(); });
  // A rule of the run's ends the search (the winner is compared as at the end of the budget); a
  // stop from outside (a signal, the job's end) checkpoints it for resume.
  const run::stop_reason why = stop.agree();
  int all_completed = runner.completed() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_completed, 1, MPI_INT, MPI_MIN, comm);
  const bool finished = why == run::stop_reason::none ? all_completed != 0 : run::ends_search(why);
  if (rank == 0) {
    file->set_attribute(session_group, "stop_reason", why == run::stop_reason::none ? "budget" : run::to_string(why));
    file->set_attribute(session_group, "ended_utc", util::utc_now());
    if (why != run::stop_reason::none)
      report::line("search ended early: %s",
                   why == run::stop_reason::target_roofline ? "the target fraction of the roofline was reached"
                   : why == run::stop_reason::stagnation    ? "no better candidate for the set number of generations"
                   : why == run::stop_reason::time_limit    ? "the time limit was reached"
                   : why == run::stop_reason::job_end       ? "the Slurm job is about to end"
                                                            : "a stop signal");
  }
  // Migrants still in flight are dropped: a resumed run delivers them again from /migrations.
  migrants.finish();
  for (auto& [src, text] : records.finish())
    if (rank == 0) runner.absorb(text);

  // How far the measurements moved during the search, over each group's islands (the winner's
  // noise warning): every island takes part, whichever picks the winner.
  run::search_noise noise;
  if (finished) {
    const auto [fastest_s, slowest_s] = runner.baseline_range();
    const auto& probed = s->evaluator->measured();
    auto low = [](double v) { return v > 0 ? v : inf; };  // an island with no probe of its own
    double lows[6] = {fastest_s,          -slowest_s, low(probed.bandwidth_gbs), -probed.bandwidth_gbs, low(probed.peak_gflops),
                      -probed.peak_gflops};
    MPI_Allreduce(MPI_IN_PLACE, lows, 6, MPI_DOUBLE, MPI_MIN, groups.comm());
    noise = {best_name, lows[0], -lows[1], lows[2], -lows[3], lows[4], -lows[5]};
  }

  int code = 0;
  // The other groups of a mixed job: their leaders pick and compare their winners and send them
  // to rank 0 for the file.
  if (finished && groups.leader() != 0) {
    const auto bests = allgather_strings(
        groups.comm(),
        runner.best_own()
            ? json{{"row", *runner.best_own()}, {"source", runner.variant_source(runner.best_own()->source_hash)}}.dump()
            : "");
    if (rank == groups.leader()) {
      std::optional<store::candidate_row> best;
      std::string best_source;
      for (const auto& text : bests) {
        if (text.empty()) continue;
        const json j = json::parse(text);
        const auto c = j.at("row").get<store::candidate_row>();
        if (run::better_row(c, best)) {
          best = c;
          best_source = j.at("source").get<std::string>();
        }
      }
      json w = nullptr;
      if (best)
        w = final_comparison(*s, *best, best_source, groups.kind_of()[static_cast<std::size_t>(rank)] + " ", noise, code);
      else
        report::line("%s: no correct candidate was found", groups.kind_of()[static_cast<std::size_t>(rank)].c_str());
      send_text(comm, 0, w.dump());
    }
  }
  auto report_checkpoints = [&] {
    const double session_s = since_start();
    report::line("checkpoints: %d written, %.1f ms each on average (%.2f%% of this session's %.1f s)", checkpoints->count(),
                 checkpoints->count() ? 1e3 * checkpoints->total_s() / checkpoints->count() : 0.0,
                 session_s > 0 ? 100 * checkpoints->session_s() / session_s : 0.0, session_s);
  };
  if (rank == 0 && !finished) {
    meter.close(*file, session_group, since_start());
    checkpoints->write(run::checkpoint_writer::announce::shown);
    file->close();
    std::filesystem::remove(working);  // the same as the results file now
    report_checkpoints();
    report::line("stopped: every island is checkpointed; continue with: galapagos resume %s", cfg.out.c_str());
  } else if (rank == 0) {
    checkpoints->write(run::checkpoint_writer::announce::verbose);
    const auto& best = runner.best_row();
    json winner = nullptr;
    if (!best) {
      report::line("no correct candidate was found: see %s", cfg.out.c_str());
    } else {
      winner = final_comparison(*s, *best, runner.variant_source(best->source_hash),
                                groups.mixed() ? groups.kind_of()[0] + " " : "", noise, code);
      write_winner(*file, "/winner", winner);
    }
    for (int leader : other_leaders) {  // the other groups' winners, compared by their leaders
      const json w = json::parse(receive_text(comm, leader));
      if (w.is_null()) continue;
      std::string name = groups.kind_of()[static_cast<std::size_t>(leader)];
      std::replace(name.begin(), name.end(), '/', '-');
      write_winner(*file, "/winners/" + name, w);
      code = std::max(code, w.at("code").get<int>());
    }
    meter.close(*file, session_group, since_start());
    run::write_ledger(*file, cfg, st.plan ? st.plan->session : 0, meter, winner);
    file->flush();
    file->set_attributes("/", {{"finished", true}});
    checkpoints->finish();
    std::error_code ignored;
    std::filesystem::remove(store::temporary_path(cfg.out), ignored);
    report_checkpoints();
    report::line("results: %s", std::filesystem::absolute(cfg.out).c_str());
    if (best) report::line("next: galapagos export %s --best", cfg.out.c_str());
    file.reset();
  }
  MPI_Request done;
  int worst = code;  // any group's winner that failed its final check
  MPI_Iallreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm, &done);
  wait_politely(done);
  return worst;
}

}  // namespace

}  // namespace galapagos::archipelago
