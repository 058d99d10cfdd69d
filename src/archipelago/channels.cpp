#include "archipelago/channels.hpp"

#include <chrono>
#include <set>
#include <thread>

namespace galapagos::archipelago {

message_channel::message_channel(MPI_Comm comm) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  sent_to_.assign(static_cast<std::size_t>(size_), 0);
  received_from_.assign(static_cast<std::size_t>(size_), 0);
}

message_channel::~message_channel() {
  for (auto& [req, payload] : pending_) MPI_Cancel(&req);
  for (auto& a : arriving_) MPI_Wait(&a.request, MPI_STATUS_IGNORE);  // matched: they complete
  MPI_Comm_free(&comm_);
}

void message_channel::send(int dest, std::string payload) {
  pending_.emplace_back(MPI_REQUEST_NULL, std::move(payload));
  auto& [req, data] = pending_.back();
  MPI_Isend(data.data(), static_cast<int>(data.size()), MPI_CHAR, dest, 0, comm_, &req);
  ++sent_to_[static_cast<std::size_t>(dest)];
  for (auto it = pending_.begin(); it != pending_.end();) {  // drop delivered buffers
    int done = 0;
    MPI_Test(&it->first, &done, MPI_STATUS_IGNORE);
    it = done ? pending_.erase(it) : std::next(it);
  }
}

std::vector<std::pair<int, std::string>> message_channel::poll() {
  for (;;) {  // match every announced message and start receiving it
    int flag = 0;
    MPI_Message message;
    MPI_Status st;
    MPI_Improbe(MPI_ANY_SOURCE, 0, comm_, &flag, &message, &st);
    if (!flag) break;
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    auto& a = arriving_.emplace_back(arriving{st.MPI_SOURCE, MPI_REQUEST_NULL, std::string(static_cast<std::size_t>(n), '\0')});
    MPI_Imrecv(a.payload.data(), n, MPI_CHAR, &message, &a.request);
  }
  std::vector<std::pair<int, std::string>> out;
  std::set<int> waiting;  // sources whose earliest message is still being received
  for (auto it = arriving_.begin(); it != arriving_.end();) {
    int done = 0;
    if (!waiting.contains(it->source)) MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
    if (!done) {
      waiting.insert(it->source);
      ++it;
      continue;
    }
    ++received_from_[static_cast<std::size_t>(it->source)];
    out.emplace_back(it->source, std::move(it->payload));
    it = arriving_.erase(it);
  }
  return out;
}

std::vector<std::pair<int, std::string>> message_channel::finish() {
  // Everyone learns how many messages are addressed to it, then receives exactly those.
  std::vector<int> incoming(static_cast<std::size_t>(size_), 0);
  MPI_Request r;
  MPI_Ialltoall(sent_to_.data(), 1, MPI_INT, incoming.data(), 1, MPI_INT, comm_, &r);
  auto missing = [&] {
    for (int src = 0; src < size_; ++src)
      if (received_from_[static_cast<std::size_t>(src)] < incoming[static_cast<std::size_t>(src)]) return true;
    return false;
  };
  std::vector<std::pair<int, std::string>> out;
  for (int counted = 0;;) {  // keep receiving while the counts travel, so large sends can progress
    for (auto& m : poll()) out.push_back(std::move(m));
    if (!counted) MPI_Test(&r, &counted, MPI_STATUS_IGNORE);
    if (counted && !missing()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (auto& [req, payload] : pending_) MPI_Wait(&req, MPI_STATUS_IGNORE);
  pending_.clear();
  return out;
}

void wait_politely(MPI_Request& r) {
  int done = 0;
  while (!done) {
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace galapagos::archipelago
