#include "run/island_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "run/checkpoint.hpp"
#include "run/progress.hpp"
#include "run/records.hpp"
#include "run/replay.hpp"
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
#include "store/publish.hpp"
#include "store/results_file.hpp"
#include "store/results_target.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/utc.hpp"

namespace galapagos::run {

namespace {

using nlohmann::json;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Adds the seconds of its scope to a total: the orchestration's own accounting.
class scope_timer {
 public:
  explicit scope_timer(double& total) : total_(total), t0_(std::chrono::steady_clock::now()) {}
  ~scope_timer() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  scope_timer(const scope_timer&) = delete;
  scope_timer& operator=(const scope_timer&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point t0_;
};

// A point of the island's space and the candidate it came from (-1: none; -2: bred here).
struct todo_item {
  core::point p;
  std::int64_t parent = -1;
};

}  // namespace

class island_driver::impl {
 public:
  impl(setup& s, mailbox& migrants, mailbox& records, stop_signal& stop, double best_baseline_s,
                std::string best_baseline_name, bool quiet, bool verbose = false)
      : s_(s), migrants_(migrants), records_(records), stop_(stop), best_baseline_s_(best_baseline_s),
        best_baseline_name_(std::move(best_baseline_name)), quiet_(quiet),
        progress_(progress_display::for_rank(migrants.rank(), quiet ? verbosity::quiet : verbose ? verbosity::verbose : verbosity::normal)),
        island_(*s.space, s.config.ga, core::derive_seed(s.config.seed, static_cast<std::uint64_t>(migrants.rank()))),
        scheduled_(s.replay != nullptr && s.config.migration.arrival == "auto") {
    const int me = migrants.rank();
    const auto& tmpl = s.family.backend(s.config.backend).tmpl;
    const std::string text = util::read_file(tmpl.source.string());
    variants_.push_back({util::hash_text(text), text, nullptr});
    variant_of_hash_[variants_[0].hash] = 0;
    const auto& kinds = s.config.strategy_kinds;
    const std::string kind = kinds[static_cast<std::size_t>(me) % kinds.size()];
    if (kind != "ga") {  // another strategy proposes the template's genomes; the island keeps the population
      auto settings = s.config.strategy;
      settings.kind = kind;
      if (kind == "exhaustive") {  // the exhaustive islands share the space out between them
        for (int i = 0, n = 0; i < migrants.size(); ++i)
          if (kinds[static_cast<std::size_t>(i) % kinds.size()] == "exhaustive") {
            if (i == me) settings.shard = n;
            settings.shards = ++n;
          }
      }
      strategy_ = core::make_strategy(*s.space, settings, core::derive_seed(s.config.seed, static_cast<std::uint64_t>(me), 41));
    }
    llm_ = std::move(s.llm);
    if (llm_) llm_->set_cancel([this] { return stop_.poll(); });  // a stop request does not wait for a slow model
    if (s.config.migration.count > 0) {
      targets_ = s.migration_targets.at(static_cast<std::size_t>(me));
      for (int i = 0; i < static_cast<int>(s.migration_targets.size()); ++i)
        for (int t : s.migration_targets[static_cast<std::size_t>(i)])
          if (t == me) sources_.push_back(i);
    }
  }

  // Runs the island to its budget. On rank 0 `file` receives every island's records.
  void run(store::results_file* file) {
    file_ = file;
    const auto t0 = std::chrono::steady_clock::now() - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(wall_offset_s_));
    busy_at_start_s_ = s_.evaluator->device_busy_s();
    const int rank = migrants_.rank();
    const auto& cfg = s_.config;
    while (static_cast<int>(island_.evaluated()) < cfg.budget) {
      const int room = cfg.budget - static_cast<int>(island_.evaluated());
      std::vector<todo_item> todo;
      std::vector<todo_item> arrived;
      {
        scope_timer timed(spent_.migration_s);
        arrived = take_immigrants();
      }
      for (auto& a : arrived)
        if (static_cast<int>(todo.size()) < room && !island_.seen(a.p)) {
          mark_seen(a.p);
          todo.push_back(a);
        }
      const int want = std::min(room - static_cast<int>(todo.size()), island_.generation() == 0 ? cfg.ga.population : cfg.ga.offspring);
      // The LLM's share of this generation's new candidates (none in the first: it needs a parent).
      const double share = cfg.llm.share_of(migrants_.rank());
      const int by_llm = llm_ && !llm_->exhausted() && island_.generation() > 0 && want > 0 && share > 0
                             ? std::max(1, static_cast<int>(std::lround(want * share))) : 0;
      int genetic = std::max(want - by_llm, 0);
      // An accepted rewrite's new parameters are tried at each of their values first.
      for (; genetic > 0 && !declared_to_try_.empty(); declared_to_try_.erase(declared_to_try_.begin()))
        if (!island_.seen(declared_to_try_.front())) {
          mark_seen(declared_to_try_.front());
          todo.push_back({declared_to_try_.front(), -2});
          --genetic;
        }
      if (strategy_) {
        // The strategy proposes the template's genomes; the island's GA breeds the rewrites'
        // points, in proportion to the rewrites' share of the population, and wherever the
        // strategy falls short (the template's space is spent).
        for (auto& p : rewrite_offspring(genetic, false)) {
          todo.push_back({std::move(p), -2});
          --genetic;
        }
        for (auto& g : strategy_->propose(genetic)) {
          const core::point p{0, std::move(g)};
          if (island_.seen(p)) continue;  // the island knows it (a migrant, a point a rewrite shares)
          island_.mark_seen(p);
          todo.push_back({p, -2});
          --genetic;
        }
        for (auto& p : rewrite_offspring(genetic, true)) todo.push_back({std::move(p), -2});
      } else {
        for (auto& p : island_.propose_points(genetic)) todo.push_back({std::move(p), -2});
      }
      if (todo.empty() && by_llm == 0) break;  // the space is exhausted
      std::vector<eval::candidate_source> upcoming;  // built on spare cores while the device measures
      for (const auto& t : todo) upcoming.push_back(candidate_of(t.p));
      if (!s_.replay) s_.evaluator->compile_ahead(upcoming);
      bool abandoned = false;  // a stop request left no time for the rest of this generation
      auto out_of_time = [&] { return halted_ || (stop_.poll() && stop_.out_of_time(longest_eval_s_)); };
      for (const auto& t : todo) {
        if (out_of_time()) {
          abandoned = true;
          break;
        }
        const auto e0 = std::chrono::steady_clock::now();
        evaluate(t.p, t.parent, t.parent >= 0 ? "migrant" : (island_.generation() == 0 ? "random" : "offspring"));
        longest_eval_s_ = std::max(longest_eval_s_, std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count());
      }
      const int evaluated_before_llm = evaluated_;
      for (int k = 0; k < by_llm && !abandoned && static_cast<int>(island_.evaluated()) < cfg.budget && !llm_->exhausted(); ++k) {
        if (out_of_time()) {
          abandoned = true;
          break;
        }
        if (stop_.requested()) break;  // a stopping island starts no conversation: it would only be cancelled
        vary_with_llm();
      }
      if (todo.empty() && evaluated_ == evaluated_before_llm) break;  // the space is exhausted and the model adds nothing
      if (abandoned) {  // the last checkpoint of this island stands; its rows of this generation go
        if (!halted_)
          std::printf("island %d: generation %d dropped: the grace period ends before it could complete\n", rank,
                      island_.generation() + 1);
        batch_.clear();
        stopped_ = true;
        break;
      }
      island_.advance();
      if (strategy_) strategy_->advance();
      if (best_time_ < best_at_last_generation_) stagnant_generations_ = 0;
      else ++stagnant_generations_;
      best_at_last_generation_ = best_time_;
      const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      report_generation(wall_s);
      if (migration_due(island_.generation())) {
        scope_timer timed(spent_.migration_s);
        emigrate();
      }
      batch_.state = to_json_text(snapshot(wall_s));
      flush_records();
      if (stop_.poll() && static_cast<int>(island_.evaluated()) < cfg.budget) {
        stopped_ = true;
        break;
      }
    }
    (void)rank;
    report_orchestration(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - wall_offset_s_);
    if (stopped_ || stop_.requested()) return;
    if (s_.config.backend != "cpu" && !quiet_) {
      const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double busy_s = s_.evaluator->device_busy_s() - busy_at_start_s_;
      std::printf("island %d: the device was held for measuring %.0f%% of the search's %.1f s\n", rank,
                  wall_s > 0 ? 100 * busy_s / wall_s : 0.0, wall_s);
    }
    profile_elites();
    flush_records();
  }

  // The island's elites under the profiler (GPU backends with Nsight Compute): metrics for the
  // report and the proposers, never for the fitness.
  void profile_elites() {
    if (!s_.evaluator->can_profile()) return;
    for (const auto& ind : island_.best(s_.config.eval.profile_elites)) {
      if (!std::isfinite(ind.fitness)) continue;
      std::string why;
      std::vector<eval::profile_metric> metrics;
      {
        eval::node_lock_guard hold(*s_.lock);
        metrics = s_.evaluator->profile(candidate_of({ind.variant, ind.g}), why);
      }
      for (const auto& pm : metrics)
        batch_.profiles.push_back({ind.id, migrants_.rank(), pm.kernel, pm.launch, pm.metric, pm.unit, pm.value});
      if (!quiet_) {
        if (metrics.empty()) std::printf("island %d: profiling candidate %lld: %s\n", migrants_.rank(), static_cast<long long>(ind.id), why.c_str());
        else std::printf("island %d: profiled candidate %lld (%zu metrics)\n", migrants_.rank(), static_cast<long long>(ind.id), metrics.size());
        std::fflush(stdout);
      }
    }
  }

  // Rank 0: writes records that arrived from other islands, then checkpoints what they complete.
  void drain_records() {
    if (!file_) return;
    std::vector<std::pair<int, std::string>> arrived;
    {
      scope_timer timed(spent_.mpi_s);
      arrived = records_.poll();
    }
    scope_timer timed(spent_.hdf5_s);
    for (auto& [src, text] : arrived) absorb(text);
    if (checkpoints_ && checkpoints_->dirty()) checkpoints_->write();
  }
  void absorb(const std::string& text) {
    const record_batch b = decode(text);
    for (const auto& [hash, source] : b.sources) known_sources_.emplace(hash, source);
    for (const auto& c : b.candidates)  // ties go to the lower id, so a replayed run picks the same winner
      if (c.status == "ok" && in_group(c.island) && (!best_row_ || c.time_median_s < best_row_->time_median_s ||
                               (c.time_median_s == best_row_->time_median_s && c.id < best_row_->id)))
        best_row_ = c;
    write_batch(*file_, b);
    if (checkpoints_) {
      if (!b.state.empty()) checkpoints_->note(b.state);
      else checkpoints_->touch();
    }
  }
  const std::optional<store::candidate_row>& best_row() const { return best_row_; }
  // The text of a source variant this island made or received, or whose rows it wrote (rank 0);
  // empty for the family's template and for sources it never saw.
  std::string variant_source(const std::string& hash) const {
    if (const auto it = variant_of_hash_.find(hash); it != variant_of_hash_.end())
      return it->second == 0 ? "" : variants_[static_cast<std::size_t>(it->second)].text;
    if (hash == variants_[0].hash) return "";
    const auto it = known_sources_.find(hash);
    return it == known_sources_.end() ? "" : it->second;
  }
  // The best correct candidate this island evaluated in this session.
  const std::optional<store::candidate_row>& best_own() const { return best_own_; }
  // The islands of this one's family and backend (rank 0 picks its group's winner among them).
  void set_group(std::vector<int> members) { group_ = std::move(members); }
  bool in_group(int island) const { return group_.empty() || std::find(group_.begin(), group_.end(), island) != group_.end(); }
  void set_checkpoints(checkpoint_writer* w) { checkpoints_ = w; }
  // Whether the island searched to its end (budget spent or space exhausted), not stopped.
  bool completed() const { return !stopped_; }
  // Whether rank 0 redraws a live progress line (then checkpoints are not announced one by one).
  bool live_progress() const { return progress_.live(); }

  // Puts the island where the checkpoint of a resumed run left it. `best` is the best correct
  // candidate of the whole run so far (rank 0 picks the winner from it).
  void restore(const resume_plan& p) {
    const int rank = migrants_.rank();
    const auto& me = p.per_island.at(static_cast<std::size_t>(rank));
    // A source the run evaluated: an LLM-made rewrite, registered again from its stored text, or
    // the family's template.
    auto variant_of = [&](const std::string& hash) {
      const auto it = p.sources.find(hash);
      return it == p.sources.end() ? 0 : variant_for(it->second);
    };
    std::vector<core::point> seen;
    for (std::size_t k = 0; k < me.seen.size(); ++k) {
      const int v = variant_of(me.seen_sources.at(k));
      const auto g = genome_from_params(island_.space(v), me.seen[k]);
      if (!g)
        throw error(p.path, "island " + std::to_string(rank) + " evaluated " + me.seen[k] + ", which the family's parameter space no longer holds");
      seen.push_back({v, *g});
      if (strategy_ && v == 0) strategy_->mark_seen(*g);
    }
    if (me.snapshot) {
      const auto& c = *me.snapshot;
      island_.restore(c.generation, population_from_json(island_, c.population, variant_of, p.path), c.rng_state, seen);
      if (strategy_) {
        try {
          if (!c.strategy_state.empty()) strategy_->restore(c.strategy_state);
        } catch (const std::invalid_argument& e) {
          throw error(p.path, "island " + std::to_string(rank) + "'s strategy state: " + e.what());
        }
      }
      evaluated_ = c.evaluated;
      failed_ = c.failed;
      next_id_ = c.next_id;
      best_time_ = c.best_time_s;
      wall_offset_s_ = c.wall_time_s;
      migrants_through_ = c.migrants_through;
      sources_sent_ = c.sources_sent;
    }
    // Migrants sent to this island that it had not taken in at the checkpoint arrive again.
    for (int from : sources_) {
      const auto& sender = p.per_island.at(static_cast<std::size_t>(from)).snapshot;
      if (scheduled_)  // every due generation the sender completed has a message, maybe empty
        for (int g = migrants_through_ + 1; g <= (sender ? sender->generation : 0); ++g)
          if (migration_due(g)) inbox_[g][from];
    }
    for (const auto& m : me.migrants)
      if (std::find(sources_.begin(), sources_.end(), m.from) != sources_.end() && m.generation > migrants_through_)
        if (const auto g = genome_from_params(*s_.space, m.params)) inbox_[m.generation][m.from].push_back({{0, *g}, m.id});
    if (rank == 0 && p.best) best_row_ = p.best;
    for (const auto& [hash, text] : p.sources) known_sources_.emplace(hash, text);
    if (llm_) llm_->restore_spent(me.llm_tokens, me.llm_cost);
    llm_calls_ = me.llm_calls;
    variations_ = me.llm_variations;
  }

  // Tells the islands this one sends to that no more migrants will come from it: it searched to
  // its end ("done") or stopped ("stopped": in replay mode they then stop before a generation
  // whose migrants they would otherwise miss).
  void leave() {
    if (!migrating()) return;
    for (int dest : targets_) migrants_.send(dest, json{{"kind", stopped_ ? "stopped" : "done"}}.dump());
  }

 private:
  // Whether migrants flow at all: the topology gives this island neighbours ([migration]).
  bool migrating() const { return !targets_.empty() || !sources_.empty(); }
  // Whether the islands, having just completed `generation`, exchange their elites.
  bool migration_due(int generation) const {
    return migrating() && generation > 0 && generation % s_.config.migration.interval == 0;
  }

  // Migrant messages that have arrived, by the sender's generation.
  void collect_migrants() {
    for (auto& [src, text] : migrants_.poll()) {
      const json j = json::parse(text);
      const std::string kind = j.value("kind", "migrants");
      if (kind == "done" || kind == "stopped") {
        finished_sources_.insert(src);
        if (kind == "stopped") stopped_sources_.insert(src);
        continue;
      }
      const int gen = j.at("generation");
      if (gen <= migrants_through_) continue;  // taken in before the checkpoint this run resumed from
      auto& box = inbox_[gen][src];
      for (const auto& ind : j.at("individuals")) {
        const int variant = ind.contains("source") ? variant_for(ind.at("source").get<std::string>()) : 0;
        box.push_back({{variant, ind.at("genome").get<core::genome>()}, ind.at("id").get<std::int64_t>()});
      }
    }
  }

  // The migrants this generation takes in. Asynchronous (measuring): whatever has arrived, never
  // waiting, so a slow island stalls nobody. Scheduled (replay): exactly those every sending
  // island sent after the same generation, waiting for them, so that a replayed run is the same
  // however its islands' timing falls.
  std::vector<todo_item> take_immigrants() {
    std::vector<todo_item> out;
    collect_migrants();
    if (!scheduled_) {
      for (auto& [gen, by_source] : inbox_) {
        for (auto& [from, box] : by_source)
          for (auto& m : box) out.push_back(std::move(m));
        migrants_through_ = std::max(migrants_through_, gen);
      }
      inbox_.clear();
      return out;
    }
    const int g = island_.generation();
    if (!migration_due(g) || g <= migrants_through_) return out;
    auto missing = [&] {  // senders whose message for generation g has not come, and who may still send it
      std::vector<int> m;
      for (int from : sources_)
        if (!(inbox_.contains(g) && inbox_[g].contains(from)) && !finished_sources_.contains(from)) m.push_back(from);
      return m;
    };
    while (!missing().empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      collect_migrants();
      if (stop_.poll() && stop_.out_of_time(0)) break;
    }
    bool complete = missing().empty();
    for (int from : sources_)  // a sender that stopped owes this generation its migrants
      if (stopped_sources_.contains(from) && !(inbox_.contains(g) && inbox_[g].contains(from))) complete = false;
    if (!complete) {
      halted_ = true;  // resumed later, this generation gets its migrants
      return out;
    }
    if (inbox_.contains(g))  // in sender order: the same on every replay
      for (auto& [from, box] : inbox_[g])
        for (auto& m : box) out.push_back(std::move(m));
    inbox_.erase(inbox_.begin(), inbox_.upper_bound(g));
    migrants_through_ = g;
    return out;
  }

  // Sends the island's elites to every island the topology names. Non-blocking: the message is
  // posted and the island goes on.
  void emigrate() {
    const int rank = migrants_.rank();
    json j{{"kind", "migrants"}, {"from", rank}, {"generation", island_.generation()}, {"individuals", json::array()}};
    const auto elites = island_.best(s_.config.migration.count);
    for (const auto& ind : elites) {
      if (!std::isfinite(ind.fitness)) continue;
      json m{{"genome", ind.g}, {"id", ind.id}, {"fitness", ind.fitness}};
      if (ind.variant != 0) m["source"] = variants_[static_cast<std::size_t>(ind.variant)].text;  // the receiver may not know it
      j["individuals"].push_back(std::move(m));
    }
    for (int dest : targets_) {
      for (const auto& ind : elites)
        if (std::isfinite(ind.fitness))
          batch_.migrations.push_back({island_.generation(), rank, dest, ind.id, island_.space(ind.variant).to_json(ind.g), ind.fitness});
      if (!j["individuals"].empty() || scheduled_) migrants_.send(dest, j.dump());
    }
  }

  // The island between two generations, as a checkpoint holds it.
  island_snapshot snapshot(double wall_s) {
    island_snapshot c;
    c.island = migrants_.rank();
    c.generation = island_.generation();
    c.evaluated = evaluated_;
    c.failed = failed_;
    c.next_id = next_id_;
    c.best_time_s = best_time_;
    c.wall_time_s = wall_s;
    c.migrants_through = migrants_through_;
    c.sources_sent = sources_sent_;
    c.rng_state = island_.random().state();
    c.population = population_json(island_, variant_hashes());
    if (strategy_) c.strategy_state = strategy_->state();
    return c;
  }

  eval::candidate_source candidate_of(const core::point& p) const {
    const auto& tmpl = s_.family.backend(s_.config.backend).tmpl;
    auto c = eval::candidate_from(tmpl, island_.space(p.variant).values(p.g));
    if (p.variant != 0) c.text = variants_[static_cast<std::size_t>(p.variant)].text;  // built beside the template
    return c;
  }

  // GA offspring of rewrites (variant > 0) for an island whose strategy proposes the template's
  // genomes: `room` of them when `fill`, else as many as the rewrites' share of the population
  // (at least one while a rewrite is in it). Fewer when the GA finds no more.
  std::vector<core::point> rewrite_offspring(int room, bool fill) {
    std::vector<core::point> out;
    const auto& population = island_.population();
    const auto rewrites = std::count_if(population.begin(), population.end(), [](const auto& ind) { return ind.variant > 0; });
    if (room <= 0 || (rewrites == 0 && !fill) || variants_.size() < 2) return out;
    const int want = fill ? room : std::clamp(static_cast<int>(std::lround(room * static_cast<double>(rewrites) / static_cast<double>(population.size()))), 1, room);
    for (auto& p : island_.propose_points(4 * want))
      if (p.variant > 0 && static_cast<int>(out.size()) < want) {
        island_.mark_seen(p);
        out.push_back(std::move(p));
      }
    return out;
  }

  // Marks a point seen by the island (and, for the template, by its strategy).
  void mark_seen(const core::point& p) {
    island_.mark_seen(p);
    if (strategy_ && p.variant == 0) strategy_->mark_seen(p.g);
  }

  std::vector<std::string> variant_hashes() const {
    std::vector<std::string> h;
    for (const auto& v : variants_) h.push_back(v.hash);
    return h;
  }

  // The island's number of a source variant, registering it (and its declared parameters) when new.
  int variant_for(const std::string& text) {
    const std::string hash = util::hash_text(text);
    if (const auto it = variant_of_hash_.find(hash); it != variant_of_hash_.end()) return it->second;
    const auto declared = propose::parse_declared_params(text, s_.space->parameters());
    variant v{hash, text, propose::variant_space(*s_.space, declared.params)};
    const int n = island_.add_variant(*v.space);
    variants_.push_back(std::move(v));
    variant_of_hash_[hash] = n;
    batch_.sources.emplace_back(hash, text);
    return n;
  }

  // Evaluates one point; returns its measurement and candidate id.
  std::pair<eval::measurement, std::int64_t> evaluate(const core::point& p, std::int64_t parent, const std::string& origin) {
    const int rank = migrants_.rank();
    eval::measurement m;
    {
      scope_timer timed(spent_.evaluating_s);  // waiting for the node's lock included: the node is busy
      eval::node_lock_guard hold(*s_.lock);
      m = measure(s_, candidate_of(p));
    }
    const std::int64_t id = static_cast<std::int64_t>(rank) * 1000000 + next_id_++;
    const bool ok = m.status == "ok";
    island_.record({p.g, ok ? m.time_median_s : inf, id, p.variant});
    if (strategy_ && p.variant == 0) strategy_->tell({p.g, ok ? m.time_median_s : inf, id});
    ++evaluated_;
    if (!ok) ++failed_;
    if (ok) best_time_ = std::min(best_time_, m.time_median_s);
    store::candidate_row r;
    r.id = id;
    r.island = rank;
    r.generation = island_.generation();
    r.origin = origin;
    r.status = m.status;
    r.reason = m.reason;
    r.params = island_.space(p.variant).to_json(p.g);
    r.parents = parent >= 0 ? "[" + std::to_string(parent) + "]" : "[]";
    r.source_hash = m.source_hash;
    r.compile_time_s = m.compile_time_s;
    r.setup_time_s = m.setup_time_s;
    r.eval_time_s = m.eval_time_s;
    r.time_median_s = m.time_median_s;
    r.time_min_s = m.time_min_s;
    r.time_spread_s = m.time_spread_s;
    r.repetitions = m.repetitions;
    r.rel_error = m.rel_error;
    r.speedup = ok ? best_baseline_s_ / m.time_median_s : nan;
    r.roofline_fraction = m.roofline_fraction();
    r.device_time_s = m.device_time_s;
    r.energy_j = m.energy_j;
    r.power_w = m.power_w;
    r.sm_clock_mhz = m.sm_clock_mhz;
    r.throttled_runs = m.throttled_runs;
    if (ok && (!best_own_ || r.time_median_s < best_own_->time_median_s)) best_own_ = r;
    batch_.candidates.push_back(r);
    if (!sources_sent_) {
      batch_.sources.emplace_back(variants_[0].hash, variants_[0].text);
      sources_sent_ = true;
    }
    progress_.candidate(rank, static_cast<long long>(id), m.status, m.reason, m.time_median_s, r.params);
    drain_records();
    return {std::move(m), id};
  }

  // One variation by the LLM proposer: a parent (the island's best, or another member of its
  // population), the model's turns, each candidate judged like any other, every call recorded.
  void vary_with_llm() {
    const int rank = migrants_.rank();
    const auto& pop = island_.population();
    if (pop.empty()) return;
    const auto best = island_.best(std::max(1, s_.config.llm.elites_in_prompt));
    const core::individual parent = llm_rng_.uniform() < 0.5 || pop.size() == 1 ? best.front() : pop[static_cast<std::size_t>(llm_rng_.below(static_cast<int>(pop.size())))];
    const auto& parent_space = island_.space(parent.variant);
    propose::variation_request req;
    req.parent_source = variants_[static_cast<std::size_t>(parent.variant)].text;
    req.parent_time_s = parent.fitness;
    req.generations_without_improvement = stagnant_generations_;
    if (prompt_base_.empty()) prompt_base_ = prompt_values();
    req.values = prompt_base_;
    req.values["parent_measurements"] = describe_individual(parent);
    std::string elites;
    for (const auto& e : best) elites += "- " + describe_individual(e) + "\n";
    req.values["elites"] = elites.empty() ? "(none yet)" : elites;
    req.values["inspirations"] = inspirations(parent);
    const int variation = variations_++;
    auto judge = [&](const std::string& text) -> propose::candidate_outcome {
      if (static_cast<int>(island_.evaluated()) >= s_.config.budget)
        return {false, "not_evaluated", "the island's evaluation budget is spent"};
      const int v = variant_for(text);
      const auto& space = island_.space(v);
      const auto& params = space.parameters();
      core::genome g(params.size(), 0);
      for (std::size_t i = 0; i < params.size(); ++i) {  // the parent's value where it has one, else the source's default
        const int inherited = island_.shared_value(v, i, parent);
        g[i] = inherited >= 0 ? inherited : propose::default_value_index(text, params[i]);
      }
      if (!space.is_valid(g)) return {false, "not_evaluated", "the parameter values " + space.to_json(g) + " break the family's constraints"};
      if (island_.seen({v, g})) return {false, "already_evaluated", "this source with the parameters " + space.to_json(g) + " was evaluated before"};
      const auto [m, id] = evaluate({v, g}, parent.id, "llm");
      propose::candidate_outcome o{true, m.status, "", m.time_median_s, id};
      if (m.status == "ok") {
        for (std::size_t i = s_.space->parameters().size(); i < params.size(); ++i)  // newly declared by the model
          if (std::none_of(parent_space.parameters().begin(), parent_space.parameters().end(),
                                                    [&](const core::parameter& q) { return q.name == params[i].name; }))
            for (int k = 0; k < static_cast<int>(params[i].values.size()); ++k) {
              core::point q{v, g};
              q.g[i] = k;
              if (k != g[i] && space.is_valid(q.g)) declared_to_try_.push_back(std::move(q));
            }
        char buf[256];
        std::snprintf(buf, sizeof buf, "time %s, %.0f%% of the roofline, %.2fx the parent (%s)", format_seconds(m.time_median_s).c_str(),
                      100 * m.roofline_fraction(), std::isfinite(parent.fitness) ? parent.fitness / m.time_median_s : 0.0,
                      format_seconds(parent.fitness).c_str());
        o.message = buf;
      } else {
        o.message = m.reason + (m.build_log.empty() ? "" : "\n" + m.build_log);
      }
      return o;
    };
    const double evaluating_before = spent_.evaluating_s;
    const auto v0 = std::chrono::steady_clock::now();
    const auto calls = llm_->vary(req, judge);
    spent_.model_s += std::max(0.0, std::chrono::duration<double>(std::chrono::steady_clock::now() - v0).count() -
                                        (spent_.evaluating_s - evaluating_before));
    for (const auto& c : calls) {
      store::llm_call_row row;
      row.id = static_cast<std::int64_t>(rank) * 1000000 + llm_calls_++;
      row.island = rank;
      row.generation = island_.generation();
      row.variation = variation;
      row.turn = c.turn;
      row.model = c.model;
      row.status = c.reply.status;
      row.reason = c.reply.reason;
      row.http_status = static_cast<std::int32_t>(c.reply.http_status);
      row.attempts = c.reply.attempts;
      row.prompt_tokens = c.reply.prompt_tokens;
      row.completion_tokens = c.reply.completion_tokens;
      row.cost = c.reply.cost;
      row.latency_s = c.reply.latency_s;
      row.edits_applied = c.edits_applied;
      row.edits_failed = c.edits_failed;
      row.outcome = c.outcome;
      row.candidate_id = c.candidate_id;
      row.prompt = c.prompt;
      row.response = c.reply.text;
      batch_.llm_calls.push_back(std::move(row));
      if (!quiet_)
        std::printf("island %d: LLM %s turn %d: %s%s\n", rank, c.model.c_str(), c.turn, c.outcome.c_str(),
                    c.candidate_id >= 0 ? (" (candidate " + std::to_string(c.candidate_id) + ")").c_str() : "");
    }
    if (llm_->exhausted() && !llm_exhausted_reported_ && !quiet_) {
      std::printf("island %d: the LLM budget is spent (%lld tokens, cost %.4g): genomes only from now on\n", rank,
                  static_cast<long long>(llm_->tokens_spent()), llm_->cost_spent());
      llm_exhausted_reported_ = true;
    }
    std::fflush(stdout);
  }

  // What every variation prompt says about the family and the hardware.
  std::map<std::string, std::string> prompt_values() const {
    const auto& f = s_.family;
    std::map<std::string, std::string> v;
    v["family"] = f.name;
    v["family_description"] = f.description;
    std::string entry = "int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream);\n";
    for (std::size_t i = 0; i < f.args.size(); ++i) {
      const auto& a = f.args[i];
      entry += "// args[" + std::to_string(i) + "]: " + a.name + ", " + families::dtype_name(a.type) + ", " +
               (a.direction == families::intent::in ? "in" : a.direction == families::intent::out ? "out" : "inout") + "\n";
    }
    for (std::size_t i = 0; i < f.symbols.size(); ++i) entry += "// sizes[" + std::to_string(i) + "]: " + f.symbols[i] + "\n";
    v["entry_point"] = entry;
    const auto& c = s_.evaluator->machine();
    const std::string gpu = s_.evaluator->device_name();
    char buf[768];
    std::snprintf(buf, sizeof buf,
                  "Backend %s%s%s. CPU %s (%s), %d cores, last-level cache %zu KiB. Measured on %s: memory bandwidth %.1f GB/s, "
                  "float64 peak %.0f GFLOP/s, float32 peak %.0f GFLOP/s.",
                  s_.config.backend.c_str(), gpu.empty() ? "" : ", GPU ", gpu.c_str(), s_.probe.cpu_model.c_str(),
                  eval::cpu_isa_summary().c_str(), s_.probe.cores, s_.probe.llc_bytes / 1024, s_.config.backend == "cpu" ? "the CPU" : "the device",
                  c.bandwidth_gbs, c.peak_gflops, c.peak_gflops_f32);
    v["hardware"] = buf;
    const auto ext = f.backend(s_.config.backend).tmpl.source.extension().string();
    v["language"] = ext == ".cu" ? "cuda" : ext == ".hip" ? "cpp" : ext == ".c" ? "c" : "cpp";
    return v;
  }

  // Diverse inspirations: correct members of the population built from another source than the
  // parent's, the first with its source.
  std::string inspirations(const core::individual& parent) {
    std::vector<const core::individual*> others;
    for (const auto& ind : island_.population())
      if (ind.variant != parent.variant && std::isfinite(ind.fitness)) others.push_back(&ind);
    if (others.empty()) return "(none: every correct candidate of this island is built from the parent's source)";
    std::string out;
    for (int k = 0; k < 2 && !others.empty(); ++k) {
      const auto pick = static_cast<std::size_t>(llm_rng_.below(static_cast<int>(others.size())));
      const auto& ind = *others[pick];
      out += "- " + describe_individual(ind) + "\n";
      if (k == 0) {
        std::string text = variants_[static_cast<std::size_t>(ind.variant)].text;
        if (text.size() > 8000) text = text.substr(0, 8000) + "\n[... cut]";
        out += "\n```\n" + text + "\n```\n\n";
      }
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    return out;
  }

  std::string describe_individual(const core::individual& ind) const {
    std::string out = "candidate " + std::to_string(ind.id) + (ind.variant == 0 ? " (the template)" : " (a rewrite)") + ": " +
                      (std::isfinite(ind.fitness) ? "time " + format_seconds(ind.fitness) : std::string("failed"));
    if (std::isfinite(ind.fitness) && std::isfinite(best_baseline_s_))
    {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.2f", best_baseline_s_ / ind.fitness);
      out += std::string(", ") + ratio + "x over " + best_baseline_name_;
    }
    return out + ", parameters " + island_.space(ind.variant).to_json(ind.g);
  }

  void report_generation(double wall_s) {
    const int rank = migrants_.rank();
    const int gen = island_.generation();
    int k = 0;
    for (const auto& ind : island_.population()) batch_.populations.push_back({rank, gen, k++, ind.id, ind.fitness});
    const double speedup = std::isfinite(best_time_) ? best_baseline_s_ / best_time_ : nan;
    const double busy_s = s_.evaluator->device_busy_s() - busy_at_start_s_;
    batch_.generations.push_back({rank, gen, evaluated_, failed_, best_time_, speedup, wall_s, busy_s});
    if (progress_.level() == verbosity::verbose)  // this generation's correct candidates (failures are shown as they fail)
      for (const auto& c : batch_.candidates)
        if (c.island == rank && c.generation == gen && c.status == "ok")
          progress_.candidate(rank, static_cast<long long>(c.id), c.status, c.reason, c.time_median_s, c.params);
    progress_.generation({rank, gen, evaluated_, failed_, s_.config.budget, best_time_, speedup, best_baseline_name_, wall_s});
    if (static_cast<int>(island_.evaluated()) >= s_.config.budget) progress_.finish();  // what follows starts a line
  }

  void flush_records() {
    if (batch_.empty()) return;
    if (file_) {
      scope_timer timed(spent_.hdf5_s);
      absorb(encode(batch_));
    } else {
      scope_timer timed(spent_.mpi_s);
      records_.send(0, encode(batch_));
    }
    batch_.clear();
  }

  // Where this session's search time went: evaluating (compiling, checking, timing, or serving
  // a recording) and waiting for a language model, against the orchestration around them
  // (bench/orchestration.py reads this line).
  void report_orchestration(double search_s) {
    const double orchestration_s = std::max(0.0, search_s - spent_.evaluating_s - spent_.model_s);
    char model[64] = "";
    if (llm_) std::snprintf(model, sizeof model, "; waiting for the model %.3f s", spent_.model_s);
    std::printf("island %d: orchestration %.4f s of %.3f s (%.2f%%): MPI %.4f s, migration %.4f s, HDF5 %.4f s, "
                "search logic %.4f s; evaluating %.3f s%s\n",
                migrants_.rank(), orchestration_s, search_s, search_s > 0 ? 100 * orchestration_s / search_s : 0.0,
                spent_.mpi_s, spent_.migration_s, spent_.hdf5_s,
                std::max(0.0, orchestration_s - spent_.mpi_s - spent_.migration_s - spent_.hdf5_s), spent_.evaluating_s,
                model);
    std::fflush(stdout);
  }

  setup& s_;
  mailbox& migrants_;
  mailbox& records_;
  stop_signal& stop_;
  double best_baseline_s_;
  std::string best_baseline_name_;
  bool quiet_;
  progress_display progress_;  // the generation lines, or rank 0's live line on a terminal
  core::island island_;
  store::results_file* file_ = nullptr;
  record_batch batch_;
  std::int64_t next_id_ = 0;
  int evaluated_ = 0, failed_ = 0;
  double best_time_ = inf;
  bool sources_sent_ = false;
  double busy_at_start_s_ = 0;
  checkpoint_writer* checkpoints_ = nullptr;  // rank 0
  bool scheduled_;                 // replay: migrants arrive by generation, not by timing
  std::vector<int> targets_, sources_;  // islands this one sends to / receives from
  // sender generation -> sending island -> migrants
  std::map<int, std::map<int, std::vector<todo_item>>> inbox_;
  struct variant {
    std::string hash, text;
    std::unique_ptr<core::search_space> space;  // null for the template (s_.space)
  };
  std::vector<variant> variants_;  // index: the island's variant number; 0 = the template
  std::map<std::string, int> variant_of_hash_;
  std::unique_ptr<propose::llm_proposer> llm_;
  core::rng llm_rng_{core::derive_seed(s_.config.seed, static_cast<std::uint64_t>(migrants_.rank()), 31)};
  int variations_ = 0;
  std::int64_t llm_calls_ = 0;
  bool llm_exhausted_reported_ = false;
  int stagnant_generations_ = 0;
  std::vector<core::point> declared_to_try_;  // values of parameters a model declared, not tried yet
  std::unique_ptr<core::strategy> strategy_;  // null: the island's GA proposes the template's genomes
  std::map<std::string, std::string> prompt_base_;  // what every variation prompt says of family and hardware
  double best_at_last_generation_ = inf;
  int migrants_through_ = 0;       // sender generation of the last migrants taken in
  std::set<int> finished_sources_, stopped_sources_;  // senders that said "done" / "stopped"
  bool halted_ = false;            // scheduled migrants cannot come before a stop: leave the loop
  bool stopped_ = false;           // the loop ended on a stop request, not at its end
  double wall_offset_s_ = 0;       // search time of earlier sessions
  double longest_eval_s_ = 0;
  struct {
    double evaluating_s = 0, mpi_s = 0, migration_s = 0, hdf5_s = 0;
    double model_s = 0;  // in LLM calls (the evaluations of their candidates count as evaluating)
  } spent_;  // this session's time, by what it went to
  std::optional<store::candidate_row> best_row_;
  std::optional<store::candidate_row> best_own_;
  std::map<std::string, std::string> known_sources_;  // rank 0: hash -> text of every source written
  std::vector<int> group_;
};

island_driver::island_driver(setup& s, mailbox& migrants, mailbox& records, stop_signal& stop, double best_baseline_s,
                             std::string best_baseline_name, bool quiet, bool verbose)
    : impl_(std::make_unique<impl>(s, migrants, records, stop, best_baseline_s, std::move(best_baseline_name), quiet, verbose)) {}
island_driver::~island_driver() = default;
void island_driver::restore(const resume_plan& p) { impl_->restore(p); }
void island_driver::set_group(std::vector<int> members) { impl_->set_group(std::move(members)); }
void island_driver::set_checkpoints(checkpoint_writer* w) { impl_->set_checkpoints(w); }
bool island_driver::live_progress() const { return impl_->live_progress(); }
void island_driver::run(store::results_file* file) { impl_->run(file); }
void island_driver::leave() { impl_->leave(); }
void island_driver::drain_records() { impl_->drain_records(); }
void island_driver::absorb(const std::string& text) { impl_->absorb(text); }
bool island_driver::completed() const { return impl_->completed(); }
const std::optional<store::candidate_row>& island_driver::best_row() const { return impl_->best_row(); }
const std::optional<store::candidate_row>& island_driver::best_own() const { return impl_->best_own(); }
std::string island_driver::variant_source(const std::string& hash) const { return impl_->variant_source(hash); }

}  // namespace galapagos::run
