#include "core/comm.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/error.hpp"

namespace trident::mpi {

int rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int size(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

void barrier(MPI_Comm comm) { MPI_Barrier(comm); }

std::string broadcast(MPI_Comm comm, const std::string& text, int root) {
  long long length = static_cast<long long>(text.size());
  MPI_Bcast(&length, 1, MPI_LONG_LONG, root, comm);
  std::string out = text;
  out.resize(static_cast<std::size_t>(length));
  if (length > 0) MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, root, comm);
  return out;
}

std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& text, int root) {
  const int me = rank(comm), n = size(comm);
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(n), offsets(n, 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, comm);
  std::string all;
  if (me == root) {
    int total = 0;
    for (int r = 0; r < n; ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              root, comm);
  std::vector<std::string> out;
  if (me == root)
    for (int r = 0; r < n; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  return out;
}

void collective(MPI_Comm comm, const std::function<void()>& work) {
  int code = kExitOk;
  std::string message;
  try {
    work();
  } catch (const CollectiveError& e) {
    code = e.exit_code();
    message = e.what();
  } catch (const InputError& e) {
    code = kExitBadInput;
    message = e.what();
  } catch (const RunError& e) {
    code = kExitRunFailure;
    message = e.what();
  }
  // The lowest failing rank speaks for all.
  const int me = rank(comm);
  int failing = code != kExitOk ? me : size(comm);
  int first = failing;
  MPI_Allreduce(&failing, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size(comm)) return;
  MPI_Bcast(&code, 1, MPI_INT, first, comm);
  message = broadcast(comm, message, first);
  throw CollectiveError(message, code);
}

namespace {
double reduce(MPI_Comm comm, double value, MPI_Op op) {
  double out = value;
  MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, op, comm);
  return out;
}
}  // namespace

double max_over_ranks(MPI_Comm comm, double value) { return reduce(comm, value, MPI_MAX); }
double min_over_ranks(MPI_Comm comm, double value) { return reduce(comm, value, MPI_MIN); }
double sum_over_ranks(MPI_Comm comm, double value) { return reduce(comm, value, MPI_SUM); }

void min_over_ranks(MPI_Comm comm, std::vector<int>& values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT, MPI_MIN, comm);
}

void sum_over_ranks(MPI_Comm comm, std::vector<double>& values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, comm);
}

namespace {
constexpr std::uint64_t kMessageBytes = 1ull << 30;
}  // namespace

void send_bytes(MPI_Comm comm, const void* data, std::uint64_t bytes, int to, int tag) {
  const char* p = static_cast<const char*>(data);
  for (std::uint64_t sent = 0; sent < bytes; sent += kMessageBytes)
    MPI_Send(p + sent, static_cast<int>(std::min(kMessageBytes, bytes - sent)), MPI_BYTE, to, tag, comm);
}

void receive_bytes(MPI_Comm comm, void* data, std::uint64_t bytes, int from, int tag) {
  char* p = static_cast<char*>(data);
  for (std::uint64_t got = 0; got < bytes; got += kMessageBytes)
    MPI_Recv(p + got, static_cast<int>(std::min(kMessageBytes, bytes - got)), MPI_BYTE, from, tag, comm,
             MPI_STATUS_IGNORE);
}

void abort_all(MPI_Comm comm, int code) {
  MPI_Abort(comm, code);
  std::_Exit(code);  // not reached: MPI_Abort does not return
}

MPI_Comm split_comm(MPI_Comm comm, int color, int key) {
  MPI_Comm out = MPI_COMM_NULL;
  MPI_Comm_split(comm, color, key, &out);
  return out;
}

void free_comm(MPI_Comm& comm) {
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

bool is_self(MPI_Comm comm) {
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(comm, MPI_COMM_SELF, &same);
  return same == MPI_IDENT;
}

int thread_level() {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  return level;
}

void balanced_dims(int ranks, int dims[2]) { MPI_Dims_create(ranks, 2, dims); }

MPI_Comm grid_2d(MPI_Comm comm, const int dims[2]) {
  const int periodic[2] = {0, 0};
  MPI_Comm grid = MPI_COMM_NULL;
  MPI_Cart_create(comm, 2, dims, periodic, /*reorder=*/0, &grid);
  return grid;
}

void grid_coords(MPI_Comm grid, int coords[2]) { MPI_Cart_coords(grid, rank(grid), 2, coords); }

void grid_neighbours(MPI_Comm grid, int axis, int& below, int& above) { MPI_Cart_shift(grid, axis, 1, &below, &above); }

int grid_rank(MPI_Comm grid, const int coords[2]) {
  int r = MPI_PROC_NULL;
  MPI_Cart_rank(grid, coords, &r);
  return r;
}

}  // namespace trident::mpi
