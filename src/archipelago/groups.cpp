#include "archipelago/groups.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

namespace galapagos::archipelago {

namespace {
constexpr int text_tag = 4711;
}

void send_text(MPI_Comm comm, int dest, const std::string& text) {
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, dest, text_tag, comm);
}

std::string receive_text(MPI_Comm comm, int source) {
  // Asks while sleeping between, not in MPI_Probe's busy loop: the sender may be timing its winner
  // on the cores this rank would spin on.
  MPI_Status st;
  for (int found = 0; !found;) {
    MPI_Iprobe(source, text_tag, comm, &found, &st);
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  std::string text(static_cast<std::size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, source, text_tag, comm, MPI_STATUS_IGNORE);
  return text;
}

std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& mine) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
  std::string all(static_cast<std::size_t>(offsets.back() + lengths.back()), '\0');
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm);
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  return out;
}

island_groups::island_groups(MPI_Comm comm, const std::string& kind) : kind_of_(allgather_strings(comm, kind)) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  for (int r = 0; r < static_cast<int>(kind_of_.size()); ++r)
    if (kind_of_[static_cast<std::size_t>(r)] == kind) members_.push_back(r);
  MPI_Comm_split(comm, leader(), rank, &comm_);  // the color: the group's first island
}

island_groups::~island_groups() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::vector<int> island_groups::leaders() const {
  std::vector<int> out;
  for (int r = 0; r < static_cast<int>(kind_of_.size()); ++r)
    if (std::find(kind_of_.begin(), kind_of_.begin() + r, kind_of_[static_cast<std::size_t>(r)]) == kind_of_.begin() + r)
      out.push_back(r);
  return out;
}

bool island_groups::mixed() const { return leaders().size() > 1; }

}  // namespace galapagos::archipelago
