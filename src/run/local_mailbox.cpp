#include "run/local_mailbox.hpp"

#include <stdexcept>

namespace galapagos::run {

class local_post::local_mailbox : public mailbox {
 public:
  local_mailbox(local_post& post, int rank) : post_(post), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return post_.size(); }
  void send(int dest, std::string payload) override {
    if (dest < 0 || dest >= post_.size()) throw std::out_of_range("local mailbox: no island " + std::to_string(dest));
    std::lock_guard<std::mutex> hold(post_.mutex_);
    post_.queues_[static_cast<std::size_t>(dest)].emplace_back(rank_, std::move(payload));
  }
  std::vector<std::pair<int, std::string>> poll() override {
    std::lock_guard<std::mutex> hold(post_.mutex_);
    std::vector<std::pair<int, std::string>> out;
    out.swap(post_.queues_[static_cast<std::size_t>(rank_)]);
    return out;
  }

 private:
  local_post& post_;
  int rank_;
};

local_post::local_post(int islands) : queues_(static_cast<std::size_t>(islands)) {
  for (int r = 0; r < islands; ++r) boxes_.push_back(std::make_unique<local_mailbox>(*this, r));
}

local_post::~local_post() = default;

mailbox& local_post::box(int rank) { return *boxes_.at(static_cast<std::size_t>(rank)); }

}  // namespace galapagos::run
