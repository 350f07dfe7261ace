#pragma once
// Small MPI helpers: rank and size, datatypes, collective error agreement, and the
// reductions, gathers and messages the studies and io make. The studies (diffusion, knn, ridge),
// io, the deck reader and app call no MPI function themselves, so that how they communicate
// can be read and changed in one place; their device data goes through transport/, which
// calls MPI beside NCCL and peer memory. The one exception is io's MPI-IO (HDF5's parallel
// driver, and output_file.cpp emptying a file through its MPI_File).
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trident::mpi {

int rank(MPI_Comm comm);
int size(MPI_Comm comm);

template <class T>
MPI_Datatype datatype();
template <> inline MPI_Datatype datatype<float>() { return MPI_FLOAT; }
template <> inline MPI_Datatype datatype<double>() { return MPI_DOUBLE; }
template <> inline MPI_Datatype datatype<int>() { return MPI_INT; }
template <> inline MPI_Datatype datatype<std::int64_t>() { return MPI_INT64_T; }
template <> inline MPI_Datatype datatype<std::uint64_t>() { return MPI_UINT64_T; }
template <> inline MPI_Datatype datatype<unsigned long long>() { return MPI_UNSIGNED_LONG_LONG; }
template <> inline MPI_Datatype datatype<char>() { return MPI_CHAR; }

// Runs `work` on every rank. If it throws InputError or RunError on any rank, every
// rank throws the same CollectiveError (the lowest failing rank's message and exit
// code), so the whole job stops together without MPI_Abort. Use it around work whose
// failure one rank may see alone (reading a file on rank 0, say).
void collective(MPI_Comm comm, const std::function<void()>& work);

// Waits until every rank of `comm` has called it.
void barrier(MPI_Comm comm);

// Broadcasts a string from `root`.
std::string broadcast(MPI_Comm comm, const std::string& text, int root = 0);

// Each rank's string, in rank order, on `root` (empty elsewhere).
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& text, int root = 0);

// Max, min and sum over ranks of a double.
double max_over_ranks(MPI_Comm comm, double value);
double min_over_ranks(MPI_Comm comm, double value);
double sum_over_ranks(MPI_Comm comm, double value);
// Each entry's minimum (sum) over ranks, in place: one all-reduce for all of them.
void min_over_ranks(MPI_Comm comm, std::vector<int>& values);
void sum_over_ranks(MPI_Comm comm, std::vector<double>& values);
// Each of `count` values' maximum (minimum, sum) over ranks, in place: one all-reduce.
template <class T>
void max_over_ranks(MPI_Comm comm, T* values, int count) {
  MPI_Allreduce(MPI_IN_PLACE, values, count, datatype<T>(), MPI_MAX, comm);
}
template <class T>
void min_over_ranks(MPI_Comm comm, T* values, int count) {
  MPI_Allreduce(MPI_IN_PLACE, values, count, datatype<T>(), MPI_MIN, comm);
}
template <class T>
void sum_over_ranks(MPI_Comm comm, T* values, int count) {
  MPI_Allreduce(MPI_IN_PLACE, values, count, datatype<T>(), MPI_SUM, comm);
}

// `count` values from `root` to every rank, in place.
template <class T>
void broadcast(MPI_Comm comm, T* values, int count, int root = 0) {
  MPI_Bcast(values, count, datatype<T>(), root, comm);
}
// Each rank's `count` values, in rank order, into `all` on `root` (count x ranks of them;
// unused elsewhere).
template <class T>
void gather(MPI_Comm comm, const T* mine, int count, T* all, int root = 0) {
  MPI_Gather(mine, count, datatype<T>(), all, count, datatype<T>(), root, comm);
}
// Rank r gets `count` values of `all` (on `root`, count x ranks of them) from r * count.
template <class T>
void scatter(MPI_Comm comm, const T* all, int count, T* mine, int root = 0) {
  MPI_Scatter(all, count, datatype<T>(), mine, count, datatype<T>(), root, comm);
}
// Each rank's `count` values, in rank order, into `all` on every rank.
template <class T>
void all_gather(MPI_Comm comm, const T* mine, int count, T* all) {
  MPI_Allgather(mine, count, datatype<T>(), all, count, datatype<T>(), comm);
}
// Rank r's counts[r] values into `all` at offsets[r], on every rank.
template <class T>
void all_gather(MPI_Comm comm, const T* mine, int count, T* all, const std::vector<int>& counts,
                const std::vector<int>& offsets) {
  MPI_Allgatherv(mine, count, datatype<T>(), all, counts.data(), offsets.data(), datatype<T>(), comm);
}

// `count` values to rank `to` (from rank `from`) with `tag`; blocking.
template <class T>
void send(MPI_Comm comm, const T* values, int count, int to, int tag) {
  MPI_Send(values, count, datatype<T>(), to, tag, comm);
}
template <class T>
void receive(MPI_Comm comm, T* values, int count, int from, int tag) {
  MPI_Recv(values, count, datatype<T>(), from, tag, comm, MPI_STATUS_IGNORE);
}
// Any number of bytes, in messages of at most 1 GiB (MPI counts are int).
void send_bytes(MPI_Comm comm, const void* data, std::uint64_t bytes, int to, int tag);
void receive_bytes(MPI_Comm comm, void* data, std::uint64_t bytes, int from, int tag);

// Ends every rank of the job at once with exit code `code` (MPI_Abort): for a failure that
// the other ranks cannot be told of collectively.
[[noreturn]] void abort_all(MPI_Comm comm, int code);

// The ranks of `comm` with the same `color` as a communicator of their own, ordered by
// `key`; release it with free_comm. Collective.
MPI_Comm split_comm(MPI_Comm comm, int color, int key);
// Releases a communicator made here (or by MPI) unless it is MPI_COMM_NULL; sets it to that.
void free_comm(MPI_Comm& comm);
// Whether `comm` is MPI_COMM_SELF itself (not merely a communicator of one rank).
bool is_self(MPI_Comm comm);
// The thread support MPI gave (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE).
int thread_level();

// A 2D grid of ranks (MPI's Cartesian topology, not periodic, ranks kept in `comm`'s order),
// dimensions and coordinates in MPI's order (slowest first).
// Fills the zero entries of `dims` so that their product is `ranks`, as evenly as can be.
void balanced_dims(int ranks, int dims[2]);
// The grid over `comm`; release it with free_comm. Collective.
MPI_Comm grid_2d(MPI_Comm comm, const int dims[2]);
// This rank's coordinates in `grid`.
void grid_coords(MPI_Comm grid, int coords[2]);
// The ranks one step below and above this one along `axis` (MPI_PROC_NULL past an edge).
void grid_neighbours(MPI_Comm grid, int axis, int& below, int& above);
// The rank at `coords` of `grid`.
int grid_rank(MPI_Comm grid, const int coords[2]);

}  // namespace trident::mpi
