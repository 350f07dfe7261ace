#pragma once
// Small MPI helpers: rank and size, datatypes, and collective error agreement.
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
template <> inline MPI_Datatype datatype<char>() { return MPI_CHAR; }

// Runs `work` on every rank. If it throws InputError or RunError on any rank, every
// rank throws the same CollectiveError (the lowest failing rank's message and exit
// code), so the whole job stops together without MPI_Abort. Use it around work whose
// failure one rank may see alone (reading a file on rank 0, say).
void collective(MPI_Comm comm, const std::function<void()>& work);

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

}  // namespace trident::mpi
