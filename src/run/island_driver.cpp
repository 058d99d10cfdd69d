#include "run/island_impl.hpp"

namespace galapagos::run {

using nlohmann::json;

island_driver::impl::impl(setup& s, mailbox& migrants, mailbox& records, stop_signal& stop, double best_baseline_s,
                          std::string best_baseline_name)
    : s_(s),
      migrants_(migrants),
      records_(records),
      stop_(stop),
      baseline_s_(best_baseline_s),
      best_baseline_name_(std::move(best_baseline_name)),
      progress_(progress_display::for_rank(migrants.rank(), report::level())),
      island_(*s.space, s.config.ga, core::derive_seed(s.config.seed, static_cast<std::uint64_t>(migrants.rank()))),
      scheduled_(s.replay != nullptr && s.config.migration.arrival == "auto") {
  const int me = migrants.rank();
  const auto& tmpl = s.family.backend(s.config.backend).tmpl;
  const std::string text = util::read_file(tmpl.source.string());
  variants_.push_back({util::hash_text(text), text, nullptr});
  variant_of_hash_[variants_[0].hash] = 0;
  variant_of_program_[util::hash_text(propose::program_text(text))] = 0;
  template_for_model_ = propose::inline_local_includes(tmpl.source, s.family.dir).text;
  variant_of_hash_[util::hash_text(template_for_model_)] = 0;
  variant_of_program_[util::hash_text(propose::program_text(template_for_model_))] = 0;
  if (s.config.template_first && me == 0) {
    // The defaults a build of the template sees (its conditionals resolved by the compiler's
    // preprocessor with the family's flags); its text where the compiler cannot tell, or where the
    // build leaves a parameter undefined (one that only another parameter's branch reads).
    const std::string macros =
        s.evaluator ? s.evaluator->compiler().defined_macros(s.evaluator->build_request_for(eval::candidate_from(tmpl))) : "";
    if (!macros.empty()) template_point_ = propose::defined_point(macros, *s.space, true);
    if (!template_point_) template_point_ = propose::defined_point(template_for_model_, *s.space);
    if (!template_point_)
      report::detail("island 0: the template does not define a valid value for every parameter; its point is not tried first");
  }
  for (const auto& b : s.family.backend(s.config.backend).baselines)
    if (b.name == best_baseline_name_) fastest_baseline_ = &b;
  const std::string& kind = s.config.strategy_of(me);
  if (kind != "ga") {  // another strategy proposes the template's genomes; the island keeps the population
    auto settings = s.config.strategy;
    settings.kind = kind;
    if (kind == "exhaustive") {  // the exhaustive islands share the space out between them
      for (int i = 0, n = 0; i < migrants.size(); ++i)
        if (s.config.strategy_of(i) == "exhaustive") {
          if (i == me) settings.shard = n;
          settings.shards = ++n;
        }
    }
    strategy_ = core::make_strategy(*s.space, settings, core::derive_seed(s.config.seed, static_cast<std::uint64_t>(me), 41));
    strategy_->warm_start(s.warm_start.points);
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

std::vector<eval::profile_metric> island_driver::impl::profile(const core::individual& ind, std::string& why) {
  std::vector<eval::profile_metric> metrics;
  {
    eval::node_lock_guard hold(*s_.lock);
    metrics = s_.evaluator->profile(candidate_of({ind.variant, ind.g}), why);
  }
  for (const auto& pm : metrics)
    batch_.profiles.push_back({ind.id, migrants_.rank(), pm.kernel, pm.launch, pm.metric, pm.unit, pm.value});
  return metrics;
}

void island_driver::impl::profile_elites() {
  if (!s_.evaluator->can_profile()) return;
  for (const auto& ind : island_.best(s_.config.eval.profile_elites)) {
    if (!std::isfinite(ind.fitness) || profile_metrics_.contains(ind.id)) continue;  // profiled for a model already
    std::string why;
    auto metrics = profile(ind, why);
    if (!metrics.empty()) profile_metrics_[ind.id] = metrics;
    if (metrics.empty())
      report::progress("island %d: profiling candidate %lld: %s", migrants_.rank(), static_cast<long long>(ind.id), why.c_str());
    else
      report::progress("island %d: profiled candidate %lld (%zu metrics)", migrants_.rank(), static_cast<long long>(ind.id),
                       metrics.size());
  }
}

void island_driver::impl::drain_records() {
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

void island_driver::impl::absorb(const std::string& text) {
  const record_batch b = decode(text);
  for (const auto& [hash, source] : b.sources) known_sources_.emplace(hash, source);
  for (const auto& c : b.candidates)
    if (eval::stored_ok(c.status) && in_group(c.island) && std::isfinite(c.fitness) && better_row(c, best_row_)) best_row_ = c;
  write_batch(*file_, b);
  if (checkpoints_) {
    if (!b.state.empty())
      checkpoints_->note(b.state);
    else
      checkpoints_->touch();
  }
}

std::string island_driver::impl::variant_source(const std::string& hash) const {
  if (const auto it = variant_of_hash_.find(hash); it != variant_of_hash_.end())
    return it->second == 0 ? "" : variants_[static_cast<std::size_t>(it->second)].text;
  if (hash == variants_[0].hash) return "";
  const auto it = known_sources_.find(hash);
  return it == known_sources_.end() ? "" : it->second;
}

island_snapshot island_driver::impl::snapshot(double wall_s) {
  island_snapshot c;
  c.island = migrants_.rank();
  c.generation = island_.generation();
  c.evaluated = evaluated_;
  c.failed = failed_;
  c.next_id = next_id_;
  c.best_time_s = best_time_;
  c.best_speedup = best_speedup_;
  c.baseline_time_s = baseline_s_;
  c.baseline_min_s = baseline_min_s_;
  c.baseline_max_s = baseline_max_s_;
  c.wall_time_s = wall_s;
  c.migrants_through = migrants_through_;
  c.sources_sent = sources_sent_;
  c.rng_state = island_.random().state();
  c.population = population_json(island_, variant_hashes());
  if (strategy_) c.strategy_state = strategy_->state();
  if (llm_) {
    c.llm_state = llm_->models_state();
    c.llm_conversation = llm_conversation();
  }
  return c;
}

eval::candidate_source island_driver::impl::candidate_of(const core::point& p) const {
  const auto& tmpl = s_.family.backend(s_.config.backend).tmpl;
  auto c = eval::candidate_from(tmpl, island_.space(p.variant).values(p.g));
  if (p.variant != 0) c.text = variants_[static_cast<std::size_t>(p.variant)].text;  // built beside the template
  return c;
}

std::vector<core::point> island_driver::impl::rewrite_offspring(int room, bool fill) {
  std::vector<core::point> out;
  const auto& population = island_.population();
  const auto rewrites = std::count_if(population.begin(), population.end(), [](const auto& ind) { return ind.variant > 0; });
  if (room <= 0 || (rewrites == 0 && !fill) || variants_.size() < 2) return out;
  const int want =
      fill ? room
           : std::clamp(
                 static_cast<int>(std::lround(room * static_cast<double>(rewrites) / static_cast<double>(population.size()))), 1,
                 room);
  for (auto& p : island_.propose_points(4 * want))
    if (p.variant > 0 && static_cast<int>(out.size()) < want) {
      island_.mark_seen(p);
      out.push_back(std::move(p));
    }
  return out;
}

void island_driver::impl::mark_seen(const core::point& p) {
  island_.mark_seen(p);
  if (strategy_ && p.variant == 0) strategy_->mark_seen(p.g);
}

std::vector<std::string> island_driver::impl::variant_hashes() const {
  std::vector<std::string> h;
  for (const auto& v : variants_) h.push_back(v.hash);
  return h;
}

int island_driver::impl::variant_for(const std::string& text) {
  const std::string hash = util::hash_text(text);
  if (const auto it = variant_of_hash_.find(hash); it != variant_of_hash_.end()) return it->second;
  const std::string program = util::hash_text(propose::program_text(text));
  if (const auto it = variant_of_program_.find(program); it != variant_of_program_.end()) {
    variant_of_hash_[hash] = it->second;  // the same program as a source registered before
    return it->second;
  }
  const auto declared = propose::parse_declared_params(text, s_.space->parameters());
  variant v{hash, text, propose::variant_space(*s_.space, declared.params)};
  const int n = island_.add_variant(*v.space);
  variants_.push_back(std::move(v));
  variant_of_hash_[hash] = n;
  variant_of_program_[program] = n;
  batch_.sources.emplace_back(hash, text);
  return n;
}

std::pair<eval::measurement, std::int64_t> island_driver::impl::evaluate(const core::point& p,
                                                                         const std::vector<std::int64_t>& parents,
                                                                         const std::string& origin) {
  const int rank = migrants_.rank();
  eval::measurement m;
  if (const auto it = carried_.find(carried_key(p)); it != carried_.end()) {  // measured before a stop
    const store::candidate_row r = it->second.second;
    carried_.erase(it);
    take_result(p, r);
    m.status = eval::candidate_status_from(r.status).value_or(eval::candidate_status::protocol_error);  // checked on reading
    m.reason = r.reason;
    m.source_hash = r.source_hash;
    m.time_median_s = r.time_median_s;
    progress_.candidate(rank, static_cast<long long>(r.id), r.status, r.reason, r.time_median_s, r.params, r.sm_clock_mhz,
                        r.throttled_runs);
    return {std::move(m), r.id};
  }
  {
    scope_timer timed(spent_.evaluating_s);  // waiting for the node's lock included: the node is busy
    eval::node_lock_guard hold(*s_.lock);
    m = s_.measurer().evaluate(candidate_of(p));
  }
  const bool ok = m.status == eval::candidate_status::ok;
  store::candidate_row r;
  r.id = static_cast<std::int64_t>(rank) * 1000000 + next_id_++;
  r.island = rank;
  r.generation = island_.generation();
  r.origin = origin;
  r.params = island_.space(p.variant).to_json(p.g);
  json ids = json::array();  // "[ID, ...]" or "[]"
  for (const auto id : parents)
    if (id >= 0) ids.push_back(id);
  r.parents = ids.dump();
  record_measurement(m, r);
  r.compile_time_s = m.compile_time_s;
  r.eval_time_s = m.eval_time_s;
  r.baseline_time_s = baseline_s_;
  r.speedup = ok ? baseline_s_ / m.time_median_s : nan;
  r.device_time_s = m.device_time_s;
  r.fitness = ok ? core::fitness_of(s_.config.objective, m.time_median_s, m.energy_j) : nan;
  take_result(p, r);
  batch_.candidates.push_back(r);
  if (!sources_sent_) {
    batch_.sources.emplace_back(variants_[0].hash, variants_[0].text);
    sources_sent_ = true;
  }
  progress_.candidate(rank, static_cast<long long>(r.id), r.status, m.reason, m.time_median_s, r.params, r.sm_clock_mhz,
                      r.throttled_runs);
  drain_records();
  return {std::move(m), r.id};
}

void island_driver::impl::take_result(const core::point& p, const store::candidate_row& r) {
  const bool ok = eval::stored_ok(r.status);
  // What the strategies minimise ([search] objective); a row without a usable figure never wins.
  const double fitness = ok ? core::fitness_of(s_.config.objective, r.time_median_s, r.energy_j) : inf;
  if (ok && r.time_median_s > 0) measured_s_[r.id] = r.time_median_s;
  island_.record({p.g, fitness, r.id, p.variant});
  if (strategy_ && p.variant == 0) strategy_->tell({p.g, fitness, r.id});
  ++evaluated_;
  if (!ok) ++failed_;
  if (ok && r.time_median_s < best_time_) {
    best_time_ = r.time_median_s;
    best_speedup_ = r.speedup;
  }
  if (ok && std::isfinite(fitness) && (!best_own_ || fitness < best_own_->fitness)) {
    best_own_ = r;
    best_own_->fitness = fitness;
  }
}

void island_driver::impl::take_rest_of_carried() {
  if (carried_.empty()) return;
  report::progress(
      "island %d: %zu candidates measured before the stop were not proposed again; generation %d takes them as evaluated",
      migrants_.rank(), carried_.size(), island_.generation() + 1);
  for (const auto& [key, c] : carried_) take_result(c.first, c.second);
  carried_.clear();
}

void island_driver::impl::keep_unfinished(int carried_before, double wall_s) {
  island_snapshot s = snapshot_from_json(generation_start_);
  const int fresh = static_cast<int>(batch_.candidates.size());
  s.unfinished = carried_before + fresh;
  s.wall_time_s = wall_s;
  // The generation's re-timing of the baseline is kept with its rows (/baseline_timings): the
  // drift over the run counts it, as it counts every other row of the table.
  s.baseline_time_s = baseline_s_;
  s.baseline_min_s = baseline_min_s_;
  s.baseline_max_s = baseline_max_s_;
  // The model calls of the generation are kept (their /llm_calls rows), and so are their rewards.
  if (llm_) {
    s.llm_state = llm_->models_state();
    s.llm_conversation = llm_conversation();
  }
  batch_.state = to_json_text(s);
  flush_records();
  if (s.unfinished > 0)
    report::progress(
        "island %d: generation %d stopped after %d of its candidates; they are kept, and a resumed run completes the generation",
        migrants_.rank(), s.generation + 1, s.unfinished);
}

void island_driver::impl::report_generation(double wall_s) {
  const int rank = migrants_.rank();
  const int gen = island_.generation();
  int k = 0;
  for (const auto& ind : island_.population()) batch_.populations.push_back({rank, gen, k++, ind.id, ind.fitness});
  const double speedup = best_speedup_;
  const double busy_s = s_.evaluator->device_busy_s() - busy_at_start_s_;
  batch_.generations.push_back({rank, gen, evaluated_, failed_, best_time_, speedup, wall_s, busy_s});
  if (report::level() == verbosity::verbose)  // this generation's correct candidates (failures are shown as they fail)
    for (const auto& c : batch_.candidates)
      if (c.island == rank && c.generation == gen && eval::stored_ok(c.status))
        progress_.candidate(rank, static_cast<long long>(c.id), c.status, c.reason, c.time_median_s, c.params, c.sm_clock_mhz,
                            c.throttled_runs);
  progress_.generation({rank, gen, evaluated_, failed_, s_.config.budget, best_time_, speedup, best_baseline_name_, wall_s});
  if (static_cast<int>(island_.evaluated()) >= s_.config.budget) progress_.finish();  // what follows starts a line
}

void island_driver::impl::retime_baseline(double wall_s) {
  if (!fastest_baseline_) return;
  const int rank = migrants_.rank();
  eval::measurement m;
  {
    scope_timer timed(spent_.evaluating_s);
    eval::node_lock_guard hold(*s_.lock);
    m = s_.measurer().retime_baseline(eval::baseline_from(*fastest_baseline_), rank, island_.generation());
  }
  const bool ok = m.status == eval::candidate_status::ok && m.time_median_s > 0;
  batch_.baseline_timings.push_back({session_, rank, island_.generation(), best_baseline_name_, eval::status_name(m.status),
                                     m.time_median_s, m.time_min_s, m.time_spread_s, m.repetitions, wall_s});
  if (!ok) {
    report::progress("island %d: timing %s again failed (%s: %s); speedups keep its time of %s", rank,
                     best_baseline_name_.c_str(), eval::status_name(m.status), m.reason.c_str(),
                     format_seconds(baseline_s_).c_str());
    return;
  }
  baseline_s_ = m.time_median_s;
  baseline_min_s_ = std::min(baseline_min_s_, baseline_s_);
  baseline_max_s_ = std::max(baseline_max_s_, baseline_s_);
}

void island_driver::impl::flush_records() {
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

void island_driver::impl::report_orchestration(double search_s) {
  const double orchestration_s = std::max(0.0, search_s - spent_.evaluating_s - spent_.model_s);
  const double logic_s = std::max(0.0, orchestration_s - spent_.mpi_s - spent_.migration_s - spent_.hdf5_s);
  char model[64] = "";
  if (llm_) std::snprintf(model, sizeof model, "; waiting for the model %.3f s", spent_.model_s);
  report::line(
      "island %d: orchestration %.4f s of %.3f s (%.2f%%): MPI %.4f s, migration %.4f s, HDF5 %.4f s, "
      "search logic %.4f s; evaluating %.3f s%s",
      migrants_.rank(), orchestration_s, search_s, search_s > 0 ? 100 * orchestration_s / search_s : 0.0, spent_.mpi_s,
      spent_.migration_s, spent_.hdf5_s, logic_s, spent_.evaluating_s, model);
  batch_.orchestration.push_back({session_, migrants_.rank(), search_s, spent_.evaluating_s, spent_.model_s, orchestration_s,
                                  spent_.mpi_s, spent_.migration_s, spent_.hdf5_s, logic_s});
  flush_records();
}

island_driver::island_driver(setup& s, mailbox& migrants, mailbox& records, stop_signal& stop, double best_baseline_s,
                             std::string best_baseline_name)
    : impl_(std::make_unique<impl>(s, migrants, records, stop, best_baseline_s, std::move(best_baseline_name))) {}
island_driver::~island_driver() = default;
void island_driver::restore(const resume_plan& p) { impl_->restore(p); }
void island_driver::set_group(std::vector<int> members) { impl_->set_group(std::move(members)); }
void island_driver::set_checkpoints(checkpoint_writer* w) { impl_->set_checkpoints(w); }
bool island_driver::live_progress() const { return impl_->live_progress(); }
void island_driver::run(store::results_file* file) { impl_->run(file); }
std::pair<double, double> island_driver::baseline_range() const { return impl_->baseline_range(); }
void island_driver::leave() { impl_->leave(); }
void island_driver::drain_records() { impl_->drain_records(); }
void island_driver::absorb(const std::string& text) { impl_->absorb(text); }
bool island_driver::completed() const { return impl_->completed(); }
const std::optional<store::candidate_row>& island_driver::best_row() const { return impl_->best_row(); }
const std::optional<store::candidate_row>& island_driver::best_own() const { return impl_->best_own(); }
std::string island_driver::variant_source(const std::string& hash) const { return impl_->variant_source(hash); }

}  // namespace galapagos::run
