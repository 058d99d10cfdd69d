// Builds of candidates: the request for the builder, and the queue of builds made ahead on spare
// cores while the device measures.
#include <algorithm>

#include "eval/evaluator_impl.hpp"
#include "util/build_info.hpp"
#include "util/hash.hpp"

namespace galapagos::eval {

using namespace detail;

namespace detail {

std::string request_key(const build_request& r) {
  util::content_hash k;
  k.add(r.compiler).add(r.source.string()).add(r.source_text);
  for (const auto* list : {&r.shared_flags, &r.flags, &r.defines, &r.include_dirs, &r.libs})
    for (const auto& x : *list) k.add(x);
  return k.hex();
}

}  // namespace detail

evaluator::compile_queue::compile_queue(const builder& bld, int jobs) : b(bld) {
  for (int i = 0; i < jobs; ++i) threads.emplace_back([this] { work(); });
}

evaluator::compile_queue::~compile_queue() {
  {
    std::lock_guard<std::mutex> hold(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (auto& t : threads) t.join();
}

void evaluator::compile_queue::work() {
  for (;;) {
    std::shared_ptr<entry> e;
    {
      std::unique_lock<std::mutex> hold(mutex);
      wake.wait(hold, [&] { return stopping || !waiting.empty(); });
      if (stopping) return;
      e = entries.at(waiting.front());
      waiting.pop_front();
      e->started = true;
    }
    try {
      e->done.set_value(b.build(e->request));
    } catch (...) {
      e->done.set_exception(std::current_exception());
    }
  }
}

void evaluator::compile_queue::add(const std::string& key, build_request r) {
  std::lock_guard<std::mutex> hold(mutex);
  if (entries.count(key)) return;
  auto e = std::make_shared<entry>();
  e->request = std::move(r);
  e->result = e->done.get_future().share();
  entries[key] = e;
  waiting.push_back(key);
  wake.notify_one();
}

std::optional<build_result> evaluator::compile_queue::take(const std::string& key) {
  std::shared_ptr<entry> e;
  {
    std::lock_guard<std::mutex> hold(mutex);
    const auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    e = it->second;
    entries.erase(it);
    if (!e->started) {
      waiting.erase(std::find(waiting.begin(), waiting.end(), key));
      return std::nullopt;
    }
  }
  return e->result.get();
}

build_request evaluator::build_request_for(const candidate_source& c) const {
  build_request r;
  r.compiler = toolchain_.compiler;
  r.shared_flags = toolchain_.shared_flags;
  r.source = c.source;
  r.source_text = c.text;
  // Families name the Kokkos found at configure time as @KOKKOS_INCLUDE_DIR@ / @KOKKOS_LIB_DIR@.
  auto expand = [](std::string s) {
    for (const auto& [token, value] :
         {std::pair<std::string, std::string>{"@KOKKOS_INCLUDE_DIR@", build_info::kokkos_include_dir},
          {"@KOKKOS_LIB_DIR@", build_info::kokkos_lib_dir}})
      for (auto pos = s.find(token); pos != std::string::npos; pos = s.find(token)) s.replace(pos, token.size(), value);
    return s;
  };
  for (const auto& f : c.flags) r.flags.push_back(expand(f));
  for (const auto& l : c.libs) r.libs.push_back(expand(l));
  r.include_dirs = {abi_include_dir(family_).string()};
  for (const auto& [k, v] : c.params) r.defines.push_back("GLP_" + k + "=" + v);
  return r;
}

build_result evaluator::build(const candidate_source& c) {
  build_request r = build_request_for(c);
  if (ahead_)
    if (auto done = ahead_->take(request_key(r))) return *done;
  return builder_.build(r);
}

void evaluator::compile_ahead(const std::vector<candidate_source>& cs) {
  if (!ahead_) return;
  for (const auto& c : cs) {
    build_request r = build_request_for(c);
    const std::string key = request_key(r);
    ahead_->add(key, std::move(r));
  }
}

}  // namespace galapagos::eval
