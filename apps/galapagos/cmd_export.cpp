// galapagos export FILE [--id N | --best] [--out DIR]: a review package for one candidate of a
// run. Before anything is written the candidate is verified again against the reference on
// held-out problems (sizes derived from the family's acceptance sizes with a fresh seed, none of
// them used by the search) with fresh secret input seeds; one that fails is exported FLAGGED and
// the command exits 1. Exit 0: exported and verified; 2: usage or a file that cannot be used.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "commands.hpp"
#include "eval/evaluator.hpp"
#include "eval/probe.hpp"
#include "export_package.hpp"
#include "export_patch.hpp"
#include "options.hpp"
#include "output_folder.hpp"
#include "propose/llm/local_includes.hpp"
#include "results_context.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/install_layout.hpp"
#include "util/json.hpp"
#include "util/report.hpp"

using galapagos::util::json_number;

namespace po = boost::program_options;
using nlohmann::json;

namespace galapagos::cli {

namespace {

// The config's [export], with the command line's choices over it.
patch_target patch_target_of(const po::variables_map& vm, const config::run_config& cfg, const std::filesystem::path& tmpl) {
  config::export_target t = cfg.export_to;
  std::filesystem::path base = cfg.file.parent_path();
  if (vm.count("user-file")) {
    t.user_file_as_written = vm["user-file"].as<std::string>();
    base = std::filesystem::current_path();
  }
  if (vm.count("lines")) {
    config::parse_line_range(vm["lines"].as<std::string>(), t.first_line, t.last_line);
    t.begin_marker = t.end_marker = "";
  }
  if (vm.count("begin-marker")) {
    t.begin_marker = vm["begin-marker"].as<std::string>(), t.end_marker = vm["end-marker"].as<std::string>();
    t.first_line = t.last_line = 0;
  }
  return resolve_patch_target(t, base, tmpl);
}

// The patch's description: what the candidate is and the evidence for it, from evidence.json.
std::string patch_description(const json& ev, bool is_winner) {
  std::ostringstream d;
  d << "galapagos: " << (is_winner ? "the winner" : "candidate") << " " << ev["candidate_id"].get<std::int64_t>() << " of "
    << ev["results_file"].get<std::string>() << " (" << ev["family"].get<std::string>() << " on "
    << ev["backend"].get<std::string>() << ")\n\n";
  d << "parameters: " << ev["params"].dump() << "\n";
  const auto& search = ev["search"];
  d << "timing: " << search["method"].get<std::string>() << "\n";
  for (const auto& [name, s] : search["speedup_over"].items())
    if (s["speedup"].is_number()) d << "  speedup over " << name << ": " << s["speedup"].get<double>() << "x\n";
  const auto& held = ev["held_out"];
  d << "held-out check: " << held["status"].get<std::string>() << " on " << held["problems"].size() << " problems x "
    << held["seeds_per_problem"].get<int>() << " seeds (max relative error " << held["rel_error"].dump() << ", tolerance "
    << search["tolerance"].dump() << ")\n";
  d << "verdict: " << ev["verdict"].get<std::string>() << "; evidence: EVIDENCE.md and evidence.json beside this patch\n";
  d << "apply: patch -p0 < winner.patch (in the folder the file names below are relative to)\n";
  return d.str();
}

}  // namespace

int export_command(const std::vector<std::string>& args) {
  po::options_description opts("galapagos export FILE");
  opts.add_options()("help,h", "this help")("id", po::value<long long>(), "the candidate to export (/candidates id)")(
      "best", "the run's winner (default)")("out", po::value<std::string>(), "package folder (default: FILE-export-<id>)")(
      "seeds", po::value<int>()->default_value(3), "fresh input sets per held-out size")(
      "user-file", po::value<std::string>(),
      "the user's source file winner.patch patches (default: [export] user_file, else the template)")(
      "lines", po::value<std::string>(), "region of it the winner replaces: lines FIRST-LAST")(
      "begin-marker", po::value<std::string>(), "region: after the line holding this text")(
      "end-marker", po::value<std::string>(), "region: up to the line holding this text");
  po::variables_map vm;
  const int code = parse_command_line("export", args, opts, "file", vm, [](const po::variables_map& given) {
    if (!given.count("file")) throw po::error("a results FILE is required (the HDF5 file of a run)");
    if (given.count("id") && given.count("best")) throw po::error("--id and --best exclude each other");
    if (given["seeds"].as<int>() < 1) throw po::error("--seeds must be >= 1");
    if (given.count("begin-marker") != given.count("end-marker")) throw po::error("--begin-marker and --end-marker go together");
    if (given.count("lines") && given.count("begin-marker")) throw po::error("give either --lines or the markers, not both");
    int a = 0, b = 0;
    if (given.count("lines") && (!config::parse_line_range(given["lines"].as<std::string>(), a, b) || a == 0))
      throw po::error("--lines must be FIRST-LAST (1-based, FIRST <= LAST)");
  });
  if (code >= 0) return code;
  const std::string file = vm["file"].as<std::string>();
  const std::string out_option = vm.count("out") ? "--out" : "--out (the default output folder is taken)";

  json ev;  // evidence.json
  std::filesystem::path out, work;
  bool passed = false;
  std::string source_name, verdict_line;
  try {
    const auto f = open_results(file);
    run_context run = read_run(f);
    const auto ok = successful(run);
    candidate_record c;
    // An integer (schema 1: a text, or a number in the oldest files).
    const std::optional<std::int64_t> winner_id = f.integer_attribute("/winner", "candidate_id");
    if (vm.count("id")) {
      const long long id = vm["id"].as<long long>();
      const auto it = std::find_if(run.candidates.begin(), run.candidates.end(), [&](const auto& x) { return x.id == id; });
      if (it == run.candidates.end()) throw error(file, "no candidate " + std::to_string(id) + " in /candidates");
      if (!eval::stored_ok(it->status))
        throw error(file, "candidate " + std::to_string(id) + " did not pass its checks (" + it->status +
                              (it->reason.empty() ? "" : ": " + it->reason.substr(0, 120)) + "): nothing to export");
      c = *it;
    } else {
      c = ok.front();
      if (winner_id)
        for (const auto& x : ok)
          if (x.id == *winner_id) c = x;
    }
    const bool is_winner = winner_id && *winner_id == c.id;
    // Where the package goes, checked before the candidate is verified again: galapagos replaces
    // only a folder it made itself (output_folder.hpp).
    out =
        vm.count("out")
            ? folder_path(vm["out"].as<std::string>())
            : std::filesystem::path(std::filesystem::path(file).replace_extension().string() + "-export-" + std::to_string(c.id));
    check_output_folder(out, out_option);
    // In a job that mixes kinds of islands, the candidate belongs to its island's family and backend.
    if (const auto kinds = f.string_attribute("/", "island_kinds")) {
      const auto k = json::parse(*kinds);
      if (k.is_array() && c.island < static_cast<int>(k.size())) {
        const std::string kind = k[static_cast<std::size_t>(c.island)].get<std::string>();
        const auto slash = kind.find('/');
        if (slash != std::string::npos && (kind.substr(0, slash) != run.family.name || kind.substr(slash + 1) != run.backend))
          run = read_run(f, kind.substr(0, slash), kind.substr(slash + 1));
      }
    }
    const auto& fam = run.family;
    const auto& b = fam.backend(run.backend);
    const json params = json::parse(c.params.empty() ? "{}" : c.params);
    const auto stored = stored_source(file, c.source_hash);
    const std::string searched = stored ? *stored : util::read_file(b.tmpl.source.string());
    const std::string exported = with_parameters(searched, params, c.id, std::filesystem::path(file).filename().string());
    source_name = b.tmpl.source.filename().string();

    // Held-out problems and fresh secret seeds: the search saw none of them.
    std::random_device rd;
    const std::uint64_t fresh = (std::uint64_t{rd()} << 32) ^ rd();
    families::family held = fam;
    held.accept_sizes = held_out_problems(fam, fresh);
    eval::eval_settings settings = run.config.eval;
    settings.checks.seeds = vm["seeds"].as<int>();
    settings.compile_jobs = 0;
    report::line("export: candidate %lld of %s (%s on %s): verifying again on %zu held-out problems x %d fresh seeds",
                 static_cast<long long>(c.id), file.c_str(), fam.name.c_str(), run.backend.c_str(), held.accept_sizes.size(),
                 settings.checks.seeds);
    const auto probe = eval::probe_machine();
    eval::evaluator evaluator(held, run.backend, settings, probe.limits(), (std::uint64_t{rd()} << 32) ^ rd());
    eval::candidate_source cs = eval::candidate_from(b.tmpl);
    cs.text = exported;
    const eval::measurement m = evaluator.evaluate(cs);
    passed = m.status == eval::candidate_status::ok;

    // The exact build command, on the exported file.
    const std::filesystem::path cache = evaluator.compiler().cache_dir();
    std::istringstream words(m.build_command);
    std::string word, build_line;
    bool next_is_output = false;
    while (words >> word) {
      std::string w = shell_quote(word);
      if (next_is_output)
        w = "\"$here/" + b.tmpl.source.stem().string() + ".so\"";
      else if (word.rfind(cache.string(), 0) == 0 && std::filesystem::path(word).extension() == b.tmpl.source.extension())
        w = "\"$here/" + source_name + "\"";
      next_is_output = word == "-o";
      build_line += (build_line.empty() ? "" : " ") + w;
    }
    std::string defines;
    for (const auto& [k, v] : params.items()) defines += " -DGLP_" + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());

    // Evidence: what the search measured, and the check made now.
    std::vector<std::string> baseline_names;
    if (f.has("/baselines")) baseline_names = f.strings("/baselines", "name");
    const auto baseline_medians = f.has("/baselines") ? f.numbers("/baselines", "time_median_s") : std::vector<double>{};
    double t_median = c.time_median_s, t_min = c.time_min_s, t_spread = c.time_spread_s, rel = c.rel_error;
    double reps = c.repetitions;
    std::string method = "the search's own timing (the candidate is not the run's winner)";
    json speedups = json::object();
    json outcome = nullptr;  // the run's winner: whether it beat the fastest baseline (/winner beat_baseline)
    if (is_winner) {
      if (const auto beat = f.number_attribute("/winner", "beat_baseline"); beat && (*beat == 0 || *beat == 1))
        outcome = {{"beat_baseline", *beat == 1},
                   {"fastest_baseline", f.string_attribute("/winner", "fastest_baseline").value_or("")}};
      t_median = f.number_attribute("/winner", "time_median_s").value_or(t_median);
      t_min = f.number_attribute("/winner", "time_min_s").value_or(t_min);
      t_spread = f.number_attribute("/winner", "time_spread_s").value_or(t_spread);
      rel = f.number_attribute("/winner", "rel_error").value_or(rel);
      reps = f.number_attribute("/winner", "repetitions").value_or(reps);
      method = f.string_attribute("/winner", "method").value_or("final interleaved comparison");
      const std::string final_status = f.string_attribute("/winner", "status").value_or("ok");
      if (!eval::stored_ok(final_status))
        method += "; the final check FAILED: " + final_status + " " + f.string_attribute("/winner", "reason").value_or("");
    }
    for (std::size_t i = 0; i < baseline_names.size(); ++i) {
      const std::string& name = baseline_names[i];
      double base = baseline_medians[i];
      if (is_winner) base = f.number_attribute("/winner", "baseline_" + name + "_median_s").value_or(base);
      speedups[name] = {{"baseline_median_s", json_number(base)}, {"speedup", json_number(base / t_median)}};
    }
    // The template by its place among the shipped files (kernels/...) or in its family folder's
    // parent, never by an absolute path: the package names no folder of this machine's install.
    const auto shipped_kernels = std::filesystem::weakly_canonical(util::kernels_dir());
    const auto family_parent = std::filesystem::weakly_canonical(fam.dir).parent_path();
    const auto place_of = [&](const std::filesystem::path& p) {
      return path_inside(p, shipped_kernels.parent_path()).value_or(p.lexically_relative(family_parent).generic_string());
    };
    const auto tmpl = std::filesystem::weakly_canonical(b.tmpl.source);
    const std::string rel_path = place_of(tmpl);
    // A rewrite that edited a kernel header inlined into it (docs/llm.md) is reviewed as the
    // change of each file: the template with its #include lines back, and each header it changed.
    const auto split = propose::split_inlined(exported, tmpl, fam.dir);
    std::vector<changed_file> headers_changed;
    if (split)
      for (const auto& h : split->headers)
        if (h.text != util::read_file(h.file.string())) headers_changed.push_back({h.file, h.text});
    const bool per_file = split && !split->headers.empty();
    const auto accept = describe_accept_sizes(fam);
    std::vector<std::string> held_desc;
    for (const auto& p : held.accept_sizes) held_desc.push_back(describe(fam, p));
    ev = {{"candidate_id", c.id},
          {"island", c.island},
          {"generation", c.generation},
          {"origin", c.origin},
          {"params", params},
          {"source_hash", c.source_hash},
          {"source_from", stored ? "/sources/" + c.source_hash : rel_path},
          {"family", fam.name},
          {"backend", run.backend},
          {"results_file", std::filesystem::absolute(file).string()},
          {"galapagos_version", build_info::version},
          {"run_galapagos_version", run.version},
          {"is_winner", is_winner},
          {"search",
           {{"accept_sizes", accept},
            {"seeds_per_size", run.config.eval.checks.seeds},
            {"fitness", run.fitness},
            {"time_median_s", json_number(t_median)},
            {"time_min_s", json_number(t_min)},
            {"time_spread_s", json_number(t_spread)},
            {"repetitions", json_number(reps)},
            {"rel_error", json_number(rel)},
            {"tolerance", fam.tolerance},
            {"method", method},
            {"speedup_over", speedups},
            {"outcome", outcome}}},
          {"held_out",
           {{"problems", held_desc},
            {"seeds_per_problem", settings.checks.seeds},
            {"status", eval::to_string(m.status)},
            {"reason", m.reason},
            {"rel_error", json_number(m.rel_error)},
            {"verified_runs", m.verified_runs},
            {"repetitions", passed ? m.repetitions : 0},
            {"time_median_s", json_number(passed ? m.time_median_s : NAN)},
            {"time_spread_s", json_number(passed ? m.time_spread_s : NAN)},
            {"fitness", evaluator.fitness_description()}}},
          {"build_command", m.build_command},
          {"search_defines", defines},
          {"verdict", passed ? "verified" : "flagged"}};
    verdict_line =
        passed ? "verified on every held-out problem"
               : "FLAGGED: the candidate fails on problems the search never used: " + eval::to_string(m.status) + ": " + m.reason;

    // The package: written beside its place and renamed into it, so it is never half there.
    work = make_work_folder(out, ".export-");
    write_file(work / source_name, exported);
    std::string diff =
        unified_diff(util::read_file(tmpl.string()), per_file ? split->text : exported, "a/" + rel_path, "b/" + rel_path, work);
    for (const auto& h : headers_changed)
      diff += unified_diff(util::read_file(h.file.string()), h.text, "a/" + place_of(h.file), "b/" + place_of(h.file), work);
    write_file(work / (source_name + ".diff"), diff);
    write_file(work / "config.toml", run.config.text);
    write_file(work / "build.sh",
               "#!/bin/sh\n# Builds the exported source into a shared object exactly as galapagos built it for its last\n"
               "# check (the parameters are #defines in the source; the search passed them as" +
                   defines +
                   ").\n"
                   "set -e\nhere=$(cd \"$(dirname \"$0\")\" && pwd)\n" +
                   build_line + "\n",
               true);
    char self[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const std::string galapagos = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : "galapagos";
    // A family galapagos ships is found by galapagos itself; a family of the user's is named.
    const std::string kernel_path = family_parent == shipped_kernels
                                        ? ""
                                        : "GALAPAGOS_KERNEL_PATH=" + shell_quote(family_parent.string()) +
                                              "${GALAPAGOS_KERNEL_PATH:+:$GALAPAGOS_KERNEL_PATH} ";
    write_file(work / "reproduce.sh",
               "#!/bin/sh\n# Judges the exported source as the search judged candidates: built, checked against the reference\n"
               "# at the family's acceptance sizes, timed at the run's fitness size beside the baselines.\n"
               "# Exit 0 accepted, 1 rejected. $GALAPAGOS overrides the galapagos binary.\n"
               "here=$(cd \"$(dirname \"$0\")\" && pwd)\n" +
                   kernel_path + "exec \"${GALAPAGOS:-" + galapagos + "}\" eval --family " + shell_quote(fam.name) +
                   " --backend " + shell_quote(run.backend) + " \"$here/" + source_name +
                   "\" --config \"$here/config.toml\" \"$@\"\n",
               true);
    write_file(work / "evidence.json", ev.dump(2) + "\n");

    write_file(work / (passed ? "EVIDENCE.md" : "FLAGGED.md"), evidence_markdown(ev, source_name, rel_path));
    patch_target target = patch_target_of(vm, run.config, b.tmpl.source);
    std::string patched = exported;
    std::vector<changed_file> also;
    if (per_file) {
      // Patching the template: from the family's folder, where its headers are too. A user's own
      // file keeps the rewrite's whole text unless every header lies under its folder.
      if (std::filesystem::weakly_canonical(target.file) == tmpl) {
        target.base = std::filesystem::weakly_canonical(fam.dir);
        target.label = tmpl.lexically_relative(target.base).generic_string();
      }
      const bool under_base = std::all_of(headers_changed.begin(), headers_changed.end(),
                                          [&](const changed_file& h) { return path_inside(h.file, target.base).has_value(); });
      if (under_base) patched = split->text, also = headers_changed;
    }
    write_file(work / "winner.patch", winner_patch(target, patched, patch_description(ev, is_winner), work, also));
    publish_output_folder(
        work, out, std::string("galapagos export ") + build_info::version + " from " + std::filesystem::absolute(file).string(),
        out_option);
    work.clear();
  } catch (const std::exception& e) {
    if (!work.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(work, ignored);
    }
    report::problem("galapagos export: %s", e.what());
    return 2;
  }
  if (!passed) {
    report::problem("galapagos export: %s", verdict_line.c_str());
    report::line("exported FLAGGED to %s (read FLAGGED.md)", out.c_str());
    return 1;
  }
  report::line("export: %s\nexported to %s: %s, %s.diff, winner.patch, build.sh, reproduce.sh, EVIDENCE.md", verdict_line.c_str(),
               out.c_str(), source_name.c_str(), source_name.c_str());
  return 0;
}

}  // namespace galapagos::cli
