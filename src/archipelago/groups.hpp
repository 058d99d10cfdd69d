// Islands of one family and backend form a group: they exchange migrants, share their measured
// ceilings and baselines, and have one winner. One job may hold several groups, e.g. CPU and GPU
// islands started together (`mpirun -n 4 galapagos run cpu.toml : -n 2 galapagos run gpu.toml`).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace galapagos::archipelago {

class island_groups {
 public:
  // Collective over `comm`: every island names its kind ("family/backend").
  island_groups(MPI_Comm comm, const std::string& kind);
  ~island_groups();
  island_groups(const island_groups&) = delete;
  island_groups& operator=(const island_groups&) = delete;

  const std::vector<std::string>& kind_of() const { return kind_of_; }  // per island
  const std::vector<int>& members() const { return members_; }          // this island's group, ascending
  int leader() const { return members_.front(); }                       // its first island
  std::vector<int> leaders() const;                                     // the first island of every group
  bool mixed() const;                                                   // more than one group in the job
  MPI_Comm comm() const { return comm_; }                               // the group, in island order

 private:
  std::vector<std::string> kind_of_;
  std::vector<int> members_;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// A text from one rank to another, blocking (for the few messages of a job's start and end).
void send_text(MPI_Comm comm, int dest, const std::string& text);
std::string receive_text(MPI_Comm comm, int source);

// One string from every rank of `comm`, to every rank.
std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& mine);

}  // namespace galapagos::archipelago
