#include "run/island_impl.hpp"

namespace galapagos::run {

using nlohmann::json;

void island_driver::impl::run(store::results_file* file) {
  file_ = file;
  const auto t0 = std::chrono::steady_clock::now() -
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(wall_offset_s_));
  busy_at_start_s_ = s_.evaluator->device_busy_s();
  const int rank = migrants_.rank();
  const auto& cfg = s_.config;
  auto wall_now = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  while (static_cast<int>(island_.evaluated()) < cfg.budget) {
    // The island as the generation finds it (the last generation's checkpoint state, taken once
    // here before the first): what a stop request in the middle of it checkpoints.
    if (generation_start_.empty()) generation_start_ = to_json_text(snapshot(wall_now()));
    const int carried_before = static_cast<int>(carried_.size());
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
    const int want =
        std::min(room - static_cast<int>(todo.size()), island_.generation() == 0 ? cfg.ga.population : cfg.ga.offspring);
    // The LLM's share of this generation's new candidates: none in the first (it needs a parent),
    // and none after two generations in a row that were the model's alone and got nothing from
    // it, so that a model that keeps answering without a usable rewrite never stalls the search.
    const double share = cfg.llm.share_of(migrants_.rank());
    const int by_llm = llm_ && !llm_->exhausted() && stalled_generations_ < 2 && island_.generation() > 0 && want > 0 && share > 0
                           ? std::max(1, static_cast<int>(std::lround(want * share)))
                           : 0;
    int genetic = std::max(want - by_llm, 0);
    const int genetic_asked = genetic;
    // Island 0 starts where the template's author left it: its own defaults, first.
    if (template_point_ && island_.generation() == 0 && genetic > 0) {
      const core::point p{0, *template_point_};
      if (!island_.seen(p)) {
        mark_seen(p);
        todo.push_back({p, -2, {}, "template"});
        --genetic;
      }
    }
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
        todo.push_back({p, -2, island_.parents_of(p)});
        --genetic;
      }
      for (auto& g : strategy_->propose(genetic)) {
        const core::point p{0, std::move(g)};
        if (island_.seen(p)) continue;  // the island knows it (a migrant, a point a rewrite shares)
        island_.mark_seen(p);
        todo.push_back({p, -2});
        --genetic;
      }
      for (auto& p : rewrite_offspring(genetic, true)) todo.push_back({p, -2, island_.parents_of(p)});
    } else {
      for (auto& p : island_.propose_points(genetic)) todo.push_back({p, -2, island_.parents_of(p)});
    }
    if (todo.empty() && by_llm == 0) {  // the space is exhausted
      take_rest_of_carried();
      break;
    }
    bool abandoned = false;  // a stop request left no time for the rest of this generation
    auto out_of_time = [&] { return halted_ || (stop_.poll() && stop_.out_of_time(longest_eval_s_)); };
    // The baseline is timed with the candidates' method just before them, so that what their
    // speedups divide by moves with the node; and before their builds start on the spare cores,
    // as at start-up and in the final comparison: a baseline timed beside a storm of compilers
    // would be slow, and every speedup over it flattered.
    if (!out_of_time()) retime_baseline(wall_now());
    std::vector<eval::candidate_source> upcoming;  // built on spare cores while the device measures
    for (const auto& t : todo) upcoming.push_back(candidate_of(t.p));
    s_.measurer().compile_ahead(upcoming);
    for (const auto& t : todo) {
      if (out_of_time()) {
        abandoned = true;
        break;
      }
      // Carried rows the generation does not propose again fill the budget first.
      if (!carried_.empty() && !carried_.contains(carried_key(t.p)) &&
          evaluated_ + static_cast<int>(carried_.size()) >= cfg.budget)
        continue;
      const auto e0 = std::chrono::steady_clock::now();
      evaluate(t.p, t.parent >= 0 ? std::vector<std::int64_t>{t.parent} : t.bred_from,
               t.origin        ? t.origin
               : t.parent >= 0 ? "migrant"
                               : (island_.generation() == 0 ? "random" : "offspring"));
      longest_eval_s_ = std::max(longest_eval_s_, std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count());
    }
    const int evaluated_before_llm = evaluated_;
    for (int k = 0;
         k < by_llm && !abandoned && static_cast<int>(island_.evaluated() + carried_.size()) < cfg.budget && !llm_->exhausted();
         ++k) {
      if (out_of_time()) {
        abandoned = true;
        break;
      }
      if (stop_.requested()) break;  // a stopping island starts no conversation: it would only be cancelled
      vary_with_llm();
    }
    if (abandoned) {  // checkpointed at the generation's start, with the rows it has so far
      keep_unfinished(carried_before, wall_now());
      stopped_ = true;
      break;
    }
    const bool model_added_nothing = evaluated_ == evaluated_before_llm;
    stalled_generations_ = genetic_asked == 0 && model_added_nothing ? stalled_generations_ + 1 : 0;
    take_rest_of_carried();
    // The space is exhausted (the genetic search was asked for points and had none) and the model adds nothing.
    if (todo.empty() && model_added_nothing && genetic_asked > 0) break;
    island_.advance();
    if (strategy_) strategy_->advance();
    if (best_time_ < best_at_last_generation_) {
      stagnant_generations_ = 0;
      stagnant_in_session_ = 0;
    } else {
      ++stagnant_generations_;
      ++stagnant_in_session_;
    }
    best_at_last_generation_ = best_time_;
    const double wall_s = wall_now();
    report_generation(wall_s);
    if (migration_due(island_.generation())) {
      scope_timer timed(spent_.migration_s);
      emigrate();
    }
    batch_.state = to_json_text(snapshot(wall_s));
    generation_start_ = batch_.state;
    flush_records();
    if (static_cast<int>(island_.evaluated()) < cfg.budget)
      if (const stop_reason why = rule_reached(); why != stop_reason::none) stop_.request(why);
    if (stop_.poll() && static_cast<int>(island_.evaluated()) < cfg.budget) {
      stopped_ = true;
      break;
    }
  }
  (void)rank;
  report_orchestration(wall_now() - wall_offset_s_);
  if (stopped_ || stop_.requested()) return;
  if (s_.config.backend != "cpu") {
    const double wall_s = wall_now();
    const double busy_s = s_.evaluator->device_busy_s() - busy_at_start_s_;
    report::progress("island %d: the device was held for measuring %.0f%% of the search's %.1f s", rank,
                     wall_s > 0 ? 100 * busy_s / wall_s : 0.0, wall_s);
  }
  profile_elites();
  flush_records();
}

stop_reason island_driver::impl::rule_reached() const {
  const auto& rules = s_.config.stop;
  if (rules.target_roofline > 0 && best_time_ < inf) {
    const double floor_s = s_.evaluator->floor_s(s_.evaluator->fitness_size());
    if (floor_s > 0 && floor_s / best_time_ >= rules.target_roofline) {
      report::progress("island %d: best at %.0f%% of the roofline, the target is %.0f%%: the search ends", migrants_.rank(),
                       100 * floor_s / best_time_, 100 * rules.target_roofline);
      return stop_reason::target_roofline;
    }
  }
  if (rules.stagnant_generations > 0 && stagnant_in_session_ >= rules.stagnant_generations) {
    report::progress("island %d: no better candidate for %d generations: the search ends", migrants_.rank(),
                     stagnant_in_session_);
    return stop_reason::stagnation;
  }
  return stop_reason::none;
}

void island_driver::impl::restore(const resume_plan& p) {
  const int rank = migrants_.rank();
  const auto& me = p.per_island.at(static_cast<std::size_t>(rank));
  session_ = p.session;
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
      throw error(p.path, "island " + std::to_string(rank) + " evaluated " + me.seen[k] +
                              ", which the family's parameter space no longer holds");
    seen.push_back({v, *g});
    if (strategy_ && v == 0) strategy_->mark_seen(*g);
  }
  for (const auto& r : me.carried) {
    const int v = variant_of(r.source_hash);
    const auto g = genome_from_params(island_.space(v), r.params);
    if (!g)
      throw error(p.path, "island " + std::to_string(rank) + " evaluated " + r.params +
                              ", which the family's parameter space no longer holds");
    const core::point at{v, *g};
    carried_[carried_key(at)] = {at, r};
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
    if (llm_ && !c.llm_state.empty()) {
      try {
        llm_->restore_models(c.llm_state);
      } catch (const std::invalid_argument& e) {
        throw error(p.path, "island " + std::to_string(rank) + "'s LLM bandit state: " + e.what());
      }
    }
    if (llm_ && !c.llm_conversation.empty()) {
      try {
        restore_llm_conversation(c.llm_conversation, variant_of);
      } catch (const std::invalid_argument& e) {
        throw error(p.path, "island " + std::to_string(rank) + "'s LLM conversation state: " + e.what());
      }
    }
    evaluated_ = c.evaluated;
    failed_ = c.failed;
    next_id_ = c.next_id;
    for (const auto& r : me.carried)  // the carried rows keep their numbers
      next_id_ = std::max(next_id_, r.id - static_cast<std::int64_t>(rank) * 1000000 + 1);
    best_time_ = c.best_time_s;
    // A checkpoint written before baselines were re-timed: speedups over the start-up's time.
    best_speedup_ = std::isfinite(c.best_speedup) ? c.best_speedup : (std::isfinite(best_time_) ? baseline_s_ / best_time_ : nan);
    if (std::isfinite(c.baseline_time_s)) baseline_s_ = c.baseline_time_s;
    baseline_min_s_ = c.baseline_min_s;
    baseline_max_s_ = c.baseline_max_s;
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
  // A rewrite's migrant comes back with its source (its row's source_hash, the text in /sources).
  for (const auto& m : me.migrants)
    if (std::find(sources_.begin(), sources_.end(), m.from) != sources_.end() && m.generation > migrants_through_) {
      const int v = m.source_hash.empty() ? 0 : variant_of(m.source_hash);
      if (const auto g = genome_from_params(island_.space(v), m.params)) inbox_[m.generation][m.from].push_back({{v, *g}, m.id});
    }
  // The bests so far: this island's own (its group's winner is picked from them), and on rank 0
  // its group's, as absorb() keeps it.
  best_own_ = me.best;
  for (std::size_t i = 0; rank == 0 && i < p.per_island.size(); ++i)
    if (const auto& b = p.per_island[i].best; b && in_group(static_cast<int>(i)) && better_row(*b, best_row_)) best_row_ = b;
  for (const auto& [hash, text] : p.sources) known_sources_.emplace(hash, text);
  if (llm_) llm_->restore_spent(me.llm_tokens, me.llm_cost);
  llm_calls_ = me.llm_calls;
  variations_ = me.llm_variations;
}

void island_driver::impl::leave() {
  if (!migrating()) return;
  for (int dest : targets_) migrants_.send(dest, json{{"kind", stopped_ ? "stopped" : "done"}}.dump());
}

void island_driver::impl::collect_migrants() {
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

std::vector<todo_item> island_driver::impl::take_immigrants() {
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

void island_driver::impl::emigrate() {
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
        batch_.migrations.push_back({island_.generation(), rank, dest, ind.id, island_.space(ind.variant).to_json(ind.g),
                                     ind.fitness, ind.variant != 0 ? variants_[static_cast<std::size_t>(ind.variant)].hash : ""});
    if (!j["individuals"].empty() || scheduled_) migrants_.send(dest, j.dump());
  }
}

}  // namespace galapagos::run
