#include "diffusion/slab_exchange.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace trident::diffusion {

namespace {

int checked_count(std::int64_t n) {
  if (n > INT_MAX)
    throw RunError("diffusion: a piece of the start field's transpose is too large for one MPI message (" +
                   std::to_string(n) + " complex values); use more ranks");
  return static_cast<int>(n);
}

}  // namespace

void transpose_slabs(MPI_Comm comm, std::int64_t rows, std::int64_t columns, const ComplexLines& in,
                     const ComplexLines& out) {
  const int parts = mpi::size(comm), me = mpi::rank(comm);
  const Extent mine = split(rows, parts, me), my_columns = split(columns, parts, me);
  const std::int64_t local_rows = mine.size;
  if (parts == 1) {  // the local transpose is the whole answer
    Kokkos::parallel_for(
        "trident::diffusion::start::transpose",
        Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {columns, local_rows}),
        KOKKOS_LAMBDA(const std::int64_t c, const std::int64_t r) { out(c * local_rows + r) = in(r * columns + c); });
    Kokkos::fence();
    return;
  }
  // Packed by destination: the piece for rank q is its columns, each holding this rank's
  // rows; laid end to end that is the local transpose (columns x local rows).
  ComplexLines send(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::send"),
                    columns * local_rows);
  Kokkos::parallel_for(
      "trident::diffusion::start::pack_transpose",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {columns, local_rows}),
      KOKKOS_LAMBDA(const std::int64_t c, const std::int64_t r) { send(c * local_rows + r) = in(r * columns + c); });
  std::vector<int> send_counts(parts), send_offsets(parts), receive_counts(parts), receive_offsets(parts);
  for (int q = 0; q < parts; ++q) {
    const Extent theirs = split(columns, parts, q), their_rows = split(rows, parts, q);
    send_counts[q] = checked_count(theirs.size * local_rows);
    send_offsets[q] = checked_count(theirs.offset * local_rows);
    receive_counts[q] = checked_count(my_columns.size * their_rows.size);
    receive_offsets[q] = checked_count(my_columns.size * their_rows.offset);
  }
  auto send_host = Kokkos::create_mirror_view(send);
  Kokkos::deep_copy(send_host, send);
  ComplexLines receive(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::receive"),
                       my_columns.size * rows);
  auto receive_host = Kokkos::create_mirror_view(receive);
  MPI_Datatype pair;  // a complex value as two doubles
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  MPI_Alltoallv(send_host.data(), send_counts.data(), send_offsets.data(), pair, receive_host.data(),
                receive_counts.data(), receive_offsets.data(), pair, comm);
  MPI_Type_free(&pair);
  Kokkos::deep_copy(receive, receive_host);
  // From rank s came my columns x its rows, at my_columns.size * (its first row).
  const std::int64_t width = my_columns.size;
  const int p = parts;
  Kokkos::parallel_for(
      "trident::diffusion::start::unpack_transpose",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {width, rows}),
      KOKKOS_LAMBDA(const std::int64_t c, const std::int64_t r) {
        const int source = split_owner(rows, p, r);
        const std::int64_t base = rows / p, extra = rows % p;
        const std::int64_t first = source * base + (source < extra ? source : extra);
        const std::int64_t count = base + (source < extra ? 1 : 0);
        out(c * rows + r) = receive(width * first + c * count + (r - first));
      });
  Kokkos::fence();
}

}  // namespace trident::diffusion

namespace trident::diffusion {

template <class T>
void slabs_to_blocks(MPI_Comm comm, std::int64_t nx, std::int64_t ny, const RealLines& slab, Extent x, Extent y,
                     const Kokkos::View<T**, Kokkos::LayoutRight>& block) {
  const int parts = mpi::size(comm), me = mpi::rank(comm);
  const Extent mine = split(ny, parts, me);
  const std::int64_t x0 = x.offset, width = x.size;
  if (parts == 1) {
    const std::int64_t y0 = y.offset;
    Kokkos::parallel_for(
        "trident::diffusion::start::to_block", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {y.size, x.size}),
        KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) {
          block(j, i) = static_cast<T>(slab((y0 + j) * nx + x0 + i));
        });
    Kokkos::fence();
    return;
  }
  // Every rank's block, to cut this slab's rows into their pieces.
  const std::int64_t extent[4] = {x.offset, x.size, y.offset, y.size};
  std::vector<std::int64_t> blocks(4 * static_cast<std::size_t>(parts));
  MPI_Allgather(extent, 4, MPI_INT64_T, blocks.data(), 4, MPI_INT64_T, comm);
  const auto rows_for = [&](int q, Extent slab_rows) {  // rows of q's block in slab_rows
    const std::int64_t first = std::max(slab_rows.offset, blocks[4 * q + 2]);
    const std::int64_t last = std::min(slab_rows.offset + slab_rows.size, blocks[4 * q + 2] + blocks[4 * q + 3]);
    return Extent{first, std::max<std::int64_t>(0, last - first)};
  };
  std::vector<int> send_counts(parts), send_offsets(parts), receive_counts(parts), receive_offsets(parts);
  std::int64_t sent = 0, received = 0;
  for (int q = 0; q < parts; ++q) {
    send_offsets[q] = checked_count(sent);
    send_counts[q] = checked_count(rows_for(q, mine).size * blocks[4 * q + 1]);
    sent += send_counts[q];
    // the slabs run up the y axis in rank order, so the pieces arrive as the block's rows in order
    receive_offsets[q] = checked_count(received);
    receive_counts[q] = checked_count(rows_for(me, split(ny, parts, q)).size * width);
    received += receive_counts[q];
  }
  RealLines send(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::send_blocks"), sent);
  for (int q = 0; q < parts; ++q) {
    const Extent rows = rows_for(q, mine);
    const std::int64_t their_x0 = blocks[4 * q], their_width = blocks[4 * q + 1], at = send_offsets[q];
    const std::int64_t slab_row0 = rows.offset - mine.offset;
    if (rows.size * their_width == 0) continue;
    Kokkos::parallel_for(
        "trident::diffusion::start::pack_block",
        Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {rows.size, their_width}),
        KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) {
          send(at + j * their_width + i) = slab((slab_row0 + j) * nx + their_x0 + i);
        });
  }
  auto send_host = Kokkos::create_mirror_view(send);
  Kokkos::deep_copy(send_host, send);
  RealLines receive(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::receive_blocks"),
                    received);
  auto receive_host = Kokkos::create_mirror_view(receive);
  MPI_Alltoallv(send_host.data(), send_counts.data(), send_offsets.data(), MPI_DOUBLE, receive_host.data(),
                receive_counts.data(), receive_offsets.data(), MPI_DOUBLE, comm);
  Kokkos::deep_copy(receive, receive_host);
  Kokkos::parallel_for(
      "trident::diffusion::start::unpack_block", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {y.size, x.size}),
      KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) { block(j, i) = static_cast<T>(receive(j * width + i)); });
  Kokkos::fence();
}

template void slabs_to_blocks<float>(MPI_Comm, std::int64_t, std::int64_t, const RealLines&, Extent, Extent,
                                     const Kokkos::View<float**, Kokkos::LayoutRight>&);
template void slabs_to_blocks<double>(MPI_Comm, std::int64_t, std::int64_t, const RealLines&, Extent, Extent,
                                      const Kokkos::View<double**, Kokkos::LayoutRight>&);

}  // namespace trident::diffusion
