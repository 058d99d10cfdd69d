// A client for OpenAI-compatible Chat Completions endpoints (vLLM, Ollama, llama.cpp's server,
// hosted APIs) over libcurl. The API key is read only from the environment variable the config
// names; it is sent in the Authorization header and never appears in a reply, a reason, a log
// line or an exception (a server that echoes it gets it masked). Transient failures (HTTP 429
// and 5xx, time-outs, refused connections) are retried with exponential backoff and jitter,
// honouring Retry-After. A budget in tokens and in money stops the calls, not the run.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace galapagos::propose {

struct llm_endpoint {
  std::string url;  // e.g. http://127.0.0.1:8000/v1/chat/completions
  std::string model;
  double temperature = 0.7;
  int max_tokens = 2048;    // of the completion
  double timeout_s = 300;   // per attempt
  std::string api_key_env;  // the environment variable holding the key; "" = no key (local servers)
  int max_attempts = 5;
  double backoff_initial_s = 1.0, backoff_max_s = 60.0;
  double price_prompt_per_mtok = 0, price_completion_per_mtok = 0;  // money per million tokens
};

struct llm_budget {
  std::int64_t max_tokens = 0;  // prompt + completion over the run; 0 = no limit
  double max_cost = 0;          // money over the run; 0 = no limit
};

// One tool call of an answer (OpenAI-compatible tool calling): the function's name and its
// arguments as the JSON text the model wrote.
struct tool_call {
  std::string id, name, arguments;
};

struct chat_message {
  std::string role;  // system, user, assistant, tool
  std::string content;
  std::vector<tool_call> tool_calls;  // assistant: the calls it made (sent back as it made them)
  std::string tool_call_id;           // tool: the call this message answers
};

struct llm_reply {
  // ok, budget_exhausted, http_error (a status that is not retried, or retries spent),
  // timeout, network_error, malformed (no choices[0].message.content in a 200 answer),
  // cancelled (the cancel predicate said so: the run is stopping)
  std::string status = "ok";
  std::string text;  // the model's answer (may be empty beside tool calls)
  std::vector<tool_call> tool_calls;
  std::string reason;  // why not ok, one line
  long http_status = 0;
  int attempts = 0;
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  double cost = 0;       // of this call, from the endpoint's prices
  double latency_s = 0;  // the whole call, retries and waits included
};

class llm_client {
 public:
  // Throws galapagos::error when api_key_env is named but unset or empty.
  llm_client(llm_endpoint endpoint, llm_budget budget, std::uint64_t jitter_seed = 1);
  llm_reply chat(const std::vector<chat_message>& messages);
  // The same with tool definitions (`tools`, a JSON array of OpenAI function tools; empty: none)
  // and `tool_choice` ("auto", "none"; empty: not sent).
  llm_reply chat(const std::vector<chat_message>& messages, const std::string& tools, const std::string& tool_choice);
  // Asked several times a second while a request or a backoff is under way; true ends the call
  // at once with status `cancelled` (a stop request must not wait for a slow model).
  void set_cancel(std::function<bool()> cancelled) { cancelled_ = std::move(cancelled); }

  std::int64_t tokens_spent() const { return tokens_spent_; }
  double cost_spent() const { return cost_spent_; }
  bool exhausted() const;
  const llm_endpoint& endpoint() const { return endpoint_; }

 private:
  std::string masked(std::string text) const;  // the key replaced by ***
  llm_endpoint endpoint_;
  llm_budget budget_;
  std::string key_;
  std::int64_t tokens_spent_ = 0;
  double cost_spent_ = 0;
  std::mt19937_64 jitter_;
  std::function<bool()> cancelled_;
};

}  // namespace galapagos::propose
