#include "run/island_impl.hpp"

namespace galapagos::run {

using nlohmann::json;

void island_driver::impl::vary_with_llm() {
  const int rank = migrants_.rank();
  const auto& pop = island_.population();
  if (pop.empty()) return;
  const auto best = island_.best(std::max(1, s_.config.llm.elites_in_prompt));
  const core::individual parent = llm_rng_.uniform() < 0.5 || pop.size() == 1
                                      ? best.front()
                                      : pop[static_cast<std::size_t>(llm_rng_.below(static_cast<int>(pop.size())))];
  const auto& parent_space = island_.space(parent.variant);
  propose::variation_request req;
  req.parent_source = source_for_model(parent.variant);
  req.parent_time_s = parent.fitness;
  req.generations_without_improvement = stagnant_generations_;
  if (prompt_base_.empty()) prompt_base_ = prompt_values();
  req.values = prompt_base_;
  double profile_s = 0;
  const std::string parent_profile = candidate_profile(parent.id, profile_s, false);
  spent_.evaluating_s += profile_s;
  req.values["parent_measurements"] = describe_individual(parent) + (parent_profile.empty() ? "" : "\n\n" + parent_profile);
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
    if (!space.is_valid(g))
      return {false, "not_evaluated", "the parameter values " + space.to_json(g) + " break the family's constraints"};
    if (island_.seen({v, g})) {
      const bool same_program =
          util::hash_text(text) != variants_[static_cast<std::size_t>(v)].hash && text != source_for_model(v);
      return {false, "already_evaluated",
              (same_program ? "this source is, comments and blanks aside, the same program as one evaluated before, and "
                              "that program with the parameters "
                            : "this source with the parameters ") +
                  space.to_json(g) + " was evaluated before"};
    }
    const auto [m, id] = evaluate({v, g}, {parent.id}, "llm");
    propose::candidate_outcome o{true, eval::to_string(m.status), "", m.time_median_s, id};
    if (m.status == eval::candidate_status::ok) {
      for (std::size_t i = s_.space->parameters().size(); i < params.size(); ++i)  // newly declared by the model
        if (std::none_of(parent_space.parameters().begin(), parent_space.parameters().end(),
                         [&](const core::parameter& q) { return q.name == params[i].name; }))
          for (int k = 0; k < static_cast<int>(params[i].values.size()); ++k) {
            core::point q{v, g};
            q.g[i] = k;
            if (k != g[i] && space.is_valid(q.g)) declared_to_try_.push_back(std::move(q));
          }
      char buf[256];
      std::snprintf(buf, sizeof buf, "time %s, %.0f%% of the roofline, %.2fx the parent (%s)",
                    format_seconds(m.time_median_s).c_str(), 100 * m.roofline_fraction(),
                    std::isfinite(parent.fitness) ? parent.fitness / m.time_median_s : 0.0,
                    format_seconds(parent.fitness).c_str());
      o.message = buf;
    } else {
      o.message = m.reason + (m.build_log.empty() ? "" : "\n" + m.build_log);
    }
    return o;
  };
  propose::variation_tools tools;
  tools.compile = [&](const std::string& text) { return compile_for_model(text, parent); };
  tools.profile = [&](std::int64_t id) -> propose::tool_result {
    double seconds = 0;
    const std::string text = candidate_profile(id < 0 ? parent.id : id, seconds, true);
    spent_.evaluating_s += seconds;
    if (text.empty())
      return {"unknown_candidate",
              "Candidate " + std::to_string(id) + " is not one this island has a correct measurement of (the parent is " +
                  std::to_string(parent.id) + ").",
              seconds};
    return {"profiled", text, seconds};
  };
  const double evaluating_before = spent_.evaluating_s;
  const auto v0 = std::chrono::steady_clock::now();
  const auto calls = llm_->vary(req, judge, tools);
  spent_.model_s += std::max(0.0, std::chrono::duration<double>(std::chrono::steady_clock::now() - v0).count() -
                                      (spent_.evaluating_s - evaluating_before));
  for (const auto& c : calls) {
    store::llm_call_row row;
    row.id = static_cast<std::int64_t>(rank) * 1000000 + llm_calls_++;
    row.island = rank;
    row.generation = island_.generation();
    row.variation = variation;
    row.turn = c.turn;
    row.tool = c.tool;
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
    for (const auto& t : c.reply.tool_calls)
      row.response += (row.response.empty() ? "" : "\n") + ("[tool call " + t.id + "] " + t.name + " " + t.arguments);
    batch_.llm_calls.push_back(std::move(row));
    report::progress("island %d: LLM %s turn %d%s: %s%s", rank, c.model.c_str(), c.turn,
                     c.tool.empty() ? "" : (" tool " + c.tool).c_str(), c.outcome.c_str(),
                     c.candidate_id >= 0 ? (" (candidate " + std::to_string(c.candidate_id) + ")").c_str() : "");
  }
  if (llm_->exhausted() && !llm_exhausted_reported_) {
    report::progress("island %d: the LLM budget is spent (%lld tokens, cost %.4g): genomes only from now on", rank,
                     static_cast<long long>(llm_->tokens_spent()), llm_->cost_spent());
    llm_exhausted_reported_ = true;
  }
}

std::string island_driver::impl::llm_conversation() const {
  json declared = json::array();
  for (const auto& q : declared_to_try_)
    declared.push_back({{"source_hash", variants_[static_cast<std::size_t>(q.variant)].hash},
                        {"params", island_.space(q.variant).to_json(q.g)}});
  return json{
      {"proposer", json::parse(llm_->conversation_state())}, {"parent_rng", llm_rng_.state()}, {"declared_to_try", declared}}
      .dump();
}

void island_driver::impl::restore_llm_conversation(const std::string& state,
                                                   const std::function<int(const std::string&)>& variant_of) {
  const json j = json::parse(state, nullptr, false);
  if (!j.is_object() || !j.contains("proposer") || !j["proposer"].is_object() || !j.contains("parent_rng") ||
      !j["parent_rng"].is_string())
    throw std::invalid_argument("not a JSON object with an object proposer and a text parent_rng");
  llm_->restore_conversation(j["proposer"].dump());
  llm_rng_.restore(j["parent_rng"].get<std::string>());
  declared_to_try_.clear();
  for (const auto& d : j.value("declared_to_try", json::array())) {  // absent in files of earlier galapagos
    if (!d.is_object() || !d.contains("source_hash") || !d["source_hash"].is_string() || !d.contains("params") ||
        !d["params"].is_string())
      throw std::invalid_argument("declared_to_try holds " + d.dump() + ", not a source hash with parameters");
    const int v = variant_of(d["source_hash"].get<std::string>());
    if (const auto g = genome_from_params(island_.space(v), d["params"].get<std::string>()))
      declared_to_try_.push_back({v, *g});
    else
      throw std::invalid_argument("declared_to_try holds " + d["params"].get<std::string>() +
                                  ", which its source's parameter space does not");
  }
}

std::string island_driver::impl::candidate_profile(std::int64_t id, double& seconds, bool allow_profiler) {
  seconds = 0;
  if (const auto it = profile_text_.find(id); it != profile_text_.end()) return it->second;
  propose::profile_facts f;
  f.candidate_id = id;
  f.backend = s_.config.backend;
  if (const auto it = measured_s_.find(id); it != measured_s_.end()) f.time_s = it->second;
  const core::individual* member = nullptr;
  for (const auto& ind : island_.population())
    if (ind.id == id) member = &ind;
  if (!(f.time_s > 0) && member && std::isfinite(member->fitness) && s_.config.objective == core::objective::time)
    f.time_s = member->fitness;  // measured in an earlier session
  if (!(f.time_s > 0)) return "";
  const auto& size = s_.evaluator->fitness_size();
  f.floor_s = s_.evaluator->floor_s(size);
  f.bytes = s_.family.bytes(size);
  f.flops = s_.family.flops(size);
  f.bandwidth_gbs = s_.evaluator->machine().bandwidth_gbs;
  f.peak_gflops = s_.evaluator->family_peak_gflops();
  if (allow_profiler && member && !profile_metrics_.contains(id) && s_.evaluator->can_profile()) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string why;
    profile_metrics_[id] = profile(*member, why);  // empty: the profiler failed, not asked again
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (const auto it = profile_metrics_.find(id); it != profile_metrics_.end())
    for (const auto& pm : it->second) f.metrics.push_back({pm.kernel, pm.metric, pm.unit, pm.value});
  std::string text = propose::describe_profile(f);
  // Cached once final: on a GPU that can profile, only after the profiler was asked.
  if (!s_.evaluator->can_profile() || profile_metrics_.contains(id)) profile_text_[id] = text;
  return text;
}

propose::tool_result island_driver::impl::compile_for_model(const std::string& text, const core::individual& parent) {
  const auto t0 = std::chrono::steady_clock::now();
  auto c = candidate_of({parent.variant, parent.g});
  c.text = text;
  for (const auto& p : propose::parse_declared_params(text, s_.space->parameters()).params)
    c.params.emplace(p.name,
                     p.values[static_cast<std::size_t>(propose::default_value_index(text, p))]);  // the parent's value first
  eval::build_result b;
  {
    scope_timer timed(spent_.evaluating_s);
    eval::node_lock_guard hold(*s_.lock);  // a compiler beside a timed run would disturb it
    b = s_.evaluator->compiler().build(s_.evaluator->build_request_for(c));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string log = b.log;
  if (log.size() > 4000) log = log.substr(0, 4000) + "\n[... cut]";
  if (b.ok)
    return {"compiled", "It compiles." + (log.empty() ? std::string() : " The compiler's words:\n\n```\n" + log + "\n```"),
            seconds};
  return {"compile_error", "It does not compile:\n\n```\n" + (log.empty() ? std::string("(no diagnostics)") : log) + "\n```",
          seconds};
}

std::map<std::string, std::string> island_driver::impl::prompt_values() const {
  const auto& f = s_.family;
  std::map<std::string, std::string> v;
  v["family"] = f.name;
  v["family_description"] = f.description;
  std::string entry = "int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream);\n";
  for (std::size_t i = 0; i < f.args.size(); ++i) {
    const auto& a = f.args[i];
    entry += "// args[" + std::to_string(i) + "]: " + a.name + ", " + families::dtype_name(a.type) + ", " +
             (a.direction == families::intent::in    ? "in"
              : a.direction == families::intent::out ? "out"
                                                     : "inout") +
             "\n";
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
                eval::cpu_isa_summary().c_str(), s_.probe.cores, s_.probe.llc_bytes / 1024,
                s_.config.backend == "cpu" ? "the CPU" : "the device", c.bandwidth_gbs, c.peak_gflops, c.peak_gflops_f32);
  v["hardware"] = buf;
  const auto ext = f.backend(s_.config.backend).tmpl.source.extension().string();
  v["language"] = ext == ".cu" ? "cuda" : ext == ".hip" ? "cpp" : ext == ".c" ? "c" : "cpp";
  return v;
}

std::string island_driver::impl::inspirations(const core::individual& parent) {
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
      std::string text = source_for_model(ind.variant);
      if (text.size() > 8000) text = text.substr(0, 8000) + "\n[... cut]";
      out += "\n```\n" + text + "\n```\n\n";
    }
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  return out;
}

std::string island_driver::impl::describe_individual(const core::individual& ind) const {
  std::string out = "candidate " + std::to_string(ind.id) + (ind.variant == 0 ? " (the template)" : " (a rewrite)") + ": " +
                    (std::isfinite(ind.fitness) ? "time " + format_seconds(ind.fitness) : std::string("failed"));
  if (std::isfinite(ind.fitness) && std::isfinite(baseline_s_)) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2f", baseline_s_ / ind.fitness);
    out += std::string(", ") + ratio + "x over " + best_baseline_name_;
  }
  return out + ", parameters " + island_.space(ind.variant).to_json(ind.g);
}

}  // namespace galapagos::run
