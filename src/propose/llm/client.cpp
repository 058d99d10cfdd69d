#include "propose/llm/client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "util/error.hpp"

namespace galapagos::propose {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct response {
  long status = 0;
  std::string body;
  double retry_after_s = -1;  // from a Retry-After header in seconds; -1: none
  CURLcode code = CURLE_OK;
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* out) {
  std::string line(data, size * n);
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower.rfind("retry-after:", 0) == 0) {
    char* end = nullptr;
    const double v = std::strtod(line.c_str() + 12, &end);
    if (end != line.c_str() + 12 && v >= 0) static_cast<response*>(out)->retry_after_s = v;  // an HTTP date is ignored
  }
  return size * n;
}

int on_progress(void* cancelled, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* f = static_cast<const std::function<bool()>*>(cancelled);
  return *f && (*f)() ? 1 : 0;  // non-zero aborts the transfer
}

response post(const llm_endpoint& e, const std::string& key, const std::string& body, const std::function<bool()>& cancelled) {
  response r;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    r.code = CURLE_FAILED_INIT;
    return r;
  }
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!key.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + key).c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> hold(headers, curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, e.url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(e.timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, const_cast<std::function<bool()>*>(&cancelled));
  r.code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

std::string one_line(std::string s, std::size_t max = 300) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s.size() > max ? s.substr(0, max) + "..." : s;
}

json message_json(const chat_message& m) {
  json j{{"role", m.role}, {"content", m.content}};
  if (!m.tool_calls.empty()) {
    if (m.content.empty()) j["content"] = nullptr;
    j["tool_calls"] = json::array();
    for (const auto& c : m.tool_calls)
      j["tool_calls"].push_back(
          {{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
  }
  if (m.role == "tool") j["tool_call_id"] = m.tool_call_id;
  return j;
}

// The well-formed function calls of an answer's message; one without a name is left out (the
// model is told of no such call, so it is asked nothing it did not ask).
std::vector<tool_call> tool_calls_of(const json& msg) {
  std::vector<tool_call> out;
  if (!msg.contains("tool_calls") || !msg["tool_calls"].is_array()) return out;
  int k = 0;
  for (const auto& c : msg["tool_calls"]) {
    ++k;
    if (!c.is_object() || !c.contains("function") || !c["function"].is_object()) continue;
    const json& f = c["function"];
    if (!f.contains("name") || !f["name"].is_string()) continue;
    tool_call t;
    t.id = c.contains("id") && c["id"].is_string() ? c["id"].get<std::string>() : "call_" + std::to_string(k);
    t.name = f["name"].get<std::string>();
    if (f.contains("arguments"))
      t.arguments = f["arguments"].is_string() ? f["arguments"].get<std::string>() : f["arguments"].dump();
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

llm_client::llm_client(llm_endpoint endpoint, llm_budget budget, std::uint64_t jitter_seed)
    : endpoint_(std::move(endpoint)), budget_(budget), jitter_(jitter_seed) {
  global_init();
  if (!endpoint_.api_key_env.empty()) {
    const char* k = std::getenv(endpoint_.api_key_env.c_str());
    if (!k || !*k)
      throw error(endpoint_.api_key_env, "the environment variable that should hold the API key is not set (or empty)");
    key_ = k;
  }
}

std::string llm_client::masked(std::string text) const {
  if (key_.empty()) return text;
  for (auto pos = text.find(key_); pos != std::string::npos; pos = text.find(key_, pos + 3))
    text.replace(pos, key_.size(), "***");
  return text;
}

bool llm_client::exhausted() const {
  return (budget_.max_tokens > 0 && tokens_spent_ >= budget_.max_tokens) ||
         (budget_.max_cost > 0 && cost_spent_ >= budget_.max_cost);
}

llm_reply llm_client::chat(const std::vector<chat_message>& messages) { return chat(messages, "", ""); }

llm_reply llm_client::chat(const std::vector<chat_message>& messages, const std::string& tools, const std::string& tool_choice) {
  llm_reply out;
  const auto t0 = steady::now();
  auto finish = [&]() -> llm_reply {
    out.latency_s = std::chrono::duration<double>(steady::now() - t0).count();
    out.text = masked(out.text);
    for (auto& c : out.tool_calls) c.arguments = masked(c.arguments);
    out.reason = masked(out.reason);
    return out;
  };
  if (exhausted()) {
    out.status = "budget_exhausted";
    out.reason = "the LLM budget of this run is spent";
    return finish();
  }
  json body{{"model", endpoint_.model},
            {"temperature", endpoint_.temperature},
            {"max_tokens", endpoint_.max_tokens},
            {"messages", json::array()}};
  for (const auto& m : messages) body["messages"].push_back(message_json(m));
  if (!tools.empty()) {
    body["tools"] = json::parse(tools);
    if (!tool_choice.empty()) body["tool_choice"] = tool_choice;
  }
  const std::string text = body.dump();
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  for (int attempt = 1;; ++attempt) {
    out.attempts = attempt;
    const response r = post(endpoint_, key_, text, cancelled_);
    out.http_status = r.status;
    bool transient = false;
    if (r.code == CURLE_ABORTED_BY_CALLBACK) {
      out.status = "cancelled";
      out.reason = "the run is stopping";
      return finish();
    }
    if (r.code == CURLE_OPERATION_TIMEDOUT) {
      out.status = "timeout";
      out.reason = "no answer within " + std::to_string(endpoint_.timeout_s) + " s";
      transient = true;
    } else if (r.code != CURLE_OK) {
      out.status = "network_error";
      out.reason = std::string(curl_easy_strerror(r.code)) + " (" + endpoint_.url + ")";
      transient = r.code == CURLE_COULDNT_CONNECT || r.code == CURLE_RECV_ERROR || r.code == CURLE_SEND_ERROR ||
                  r.code == CURLE_GOT_NOTHING || r.code == CURLE_PARTIAL_FILE;
    } else if (r.status != 200) {
      out.status = "http_error";
      out.reason = "HTTP " + std::to_string(r.status) + ": " + one_line(r.body);
      transient = r.status == 429 || r.status >= 500;
    } else {
      const json j = json::parse(r.body, nullptr, false);
      std::optional<std::string> content;
      if (j.is_object() && j.contains("choices") && j["choices"].is_array() && !j["choices"].empty() &&
          j["choices"][0].is_object()) {
        const json msg = j["choices"][0].value("message", json::object());
        if (msg.is_object() && msg.contains("content") && msg["content"].is_string()) content = msg["content"].get<std::string>();
        if (msg.is_object()) out.tool_calls = tool_calls_of(msg);
        if (!content && !out.tool_calls.empty()) content = "";  // a turn of tool calls only
      }
      if (j.is_object() && j.contains("usage") && j["usage"].is_object()) {
        out.prompt_tokens = j["usage"].value("prompt_tokens", std::int64_t{0});
        out.completion_tokens = j["usage"].value("completion_tokens", std::int64_t{0});
      }
      out.cost = (static_cast<double>(out.prompt_tokens) * endpoint_.price_prompt_per_mtok +
                  static_cast<double>(out.completion_tokens) * endpoint_.price_completion_per_mtok) /
                 1e6;
      tokens_spent_ += out.prompt_tokens + out.completion_tokens;
      cost_spent_ += out.cost;
      if (!content) {
        out.status = "malformed";
        out.reason = "the answer has no choices[0].message.content (nor tool_calls): " + one_line(r.body, 200);
      } else {
        out.status = "ok";
        out.reason.clear();
        out.text = *content;
      }
      return finish();
    }
    if (!transient || attempt >= endpoint_.max_attempts) {
      if (transient) out.reason += " (" + std::to_string(attempt) + " attempts)";
      return finish();
    }
    double wait_s = std::min(endpoint_.backoff_max_s, endpoint_.backoff_initial_s * std::pow(2.0, attempt - 1)) * jitter(jitter_);
    if (r.retry_after_s >= 0) wait_s = std::min(endpoint_.backoff_max_s, r.retry_after_s);  // the server's word
    for (const auto until = steady::now() + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(wait_s));
         steady::now() < until;) {
      if (cancelled_ && cancelled_()) {
        out.status = "cancelled";
        out.reason = "the run is stopping";
        return finish();
      }
      std::this_thread::sleep_for(std::min<steady::duration>(until - steady::now(), std::chrono::milliseconds(50)));
    }
  }
}

}  // namespace galapagos::propose
