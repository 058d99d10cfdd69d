// The LLM client of a build without libcurl: any attempt to use it is a one-line error.
#include "propose/llm/client.hpp"
#include "util/error.hpp"

namespace galapagos::propose {

llm_client::llm_client(llm_endpoint endpoint, llm_budget budget, std::uint64_t jitter_seed)
    : endpoint_(std::move(endpoint)), budget_(budget), jitter_(jitter_seed) {
  throw error(
      endpoint_.url,
      "this build of galapagos has no LLM client: libcurl's headers (libcurl4-openssl-dev) were missing when it was built");
}

llm_reply llm_client::chat(const std::vector<chat_message>&) { return {}; }
llm_reply llm_client::chat(const std::vector<chat_message>&, const std::string&, const std::string&) { return {}; }
bool llm_client::exhausted() const { return true; }
std::string llm_client::masked(std::string text) const { return text; }

}  // namespace galapagos::propose
