#include "diffusion/detail/slab_exchange.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "transport/device_comm.hpp"
#include "core/error.hpp"

namespace trident::diffusion {

namespace {

// `numbers` doubles in one MPI message: an int's worth at most.
std::size_t checked_count(std::int64_t numbers) {
  if (numbers > INT_MAX)
    throw RunError("diffusion: a piece of the start field's transpose is too large for one MPI message (" +
                   std::to_string(numbers) + " numbers); use more ranks");
  return static_cast<std::size_t>(numbers);
}

// Sends piece q of `send` (doubles at send_offsets[q], send_counts[q] of them) to rank q and
// receives rank q's into `receive` at receive_offsets[q]. The piece a rank keeps is copied
// on the device. Returns once `receive` is complete.
void all_to_all(transport::DeviceComm& comm, const double* send, const std::vector<std::size_t>& send_offsets,
                const std::vector<std::size_t>& send_counts, double* receive,
                const std::vector<std::size_t>& receive_offsets, const std::vector<std::size_t>& receive_counts) {
  const int parts = comm.size(), me = comm.rank();
  std::vector<transport::DeviceComm::Piece> sends, receives;
  for (int q = 0; q < parts; ++q) {
    if (q == me) continue;
    sends.push_back({q, send_offsets[q], send_counts[q], 0});
    receives.push_back({q, receive_offsets[q], receive_counts[q], 0});
  }
  const std::size_t send_size = send_offsets.back() + send_counts.back();
  const std::size_t receive_size = receive_offsets.back() + receive_counts.back();
  using Unmanaged = Kokkos::View<double*, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Kokkos::DefaultExecutionSpace space;
  Kokkos::deep_copy(space,
                    Kokkos::subview(Unmanaged(receive, receive_size),
                                    std::make_pair(receive_offsets[me], receive_offsets[me] + receive_counts[me])),
                    Kokkos::subview(Unmanaged(const_cast<double*>(send), send_size),
                                    std::make_pair(send_offsets[me], send_offsets[me] + send_counts[me])));
  comm.exchange<double>(space, send, send_size, sends, receive, receive_size, receives);
  space.fence();
}

}  // namespace

void transpose_slabs(transport::DeviceComm& comm, std::int64_t rows, std::int64_t columns, const ComplexLines& in,
                     const ComplexLines& out) {
  const int parts = comm.size(), me = comm.rank();
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
  // In doubles: a complex value is two.
  std::vector<std::size_t> send_counts(parts), send_offsets(parts), receive_counts(parts), receive_offsets(parts);
  for (int q = 0; q < parts; ++q) {
    const Extent theirs = split(columns, parts, q), their_rows = split(rows, parts, q);
    send_counts[q] = checked_count(2 * theirs.size * local_rows);
    send_offsets[q] = static_cast<std::size_t>(2 * theirs.offset * local_rows);
    receive_counts[q] = checked_count(2 * my_columns.size * their_rows.size);
    receive_offsets[q] = static_cast<std::size_t>(2 * my_columns.size * their_rows.offset);
  }
  ComplexLines receive(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::receive"),
                       my_columns.size * rows);
  Kokkos::fence();  // the packing
  all_to_all(comm, reinterpret_cast<const double*>(send.data()), send_offsets, send_counts,
             reinterpret_cast<double*>(receive.data()), receive_offsets, receive_counts);
  // From rank s came my columns x its rows, at my_columns.size * (its first row).
  const std::int64_t width = my_columns.size;
  const int p = parts;
  Kokkos::parallel_for(
      "trident::diffusion::start::unpack_transpose",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {width, rows}),
      KOKKOS_LAMBDA(const std::int64_t c, const std::int64_t r) {
        const core::BalancedPart from = core::balanced_part(rows, p, core::balanced_owner(rows, p, r));
        out(c * rows + r) = receive(width * from.first + c * from.count + (r - from.first));
      });
  Kokkos::fence();
}

}  // namespace trident::diffusion

namespace trident::diffusion {

template <class T>
void slabs_to_blocks(transport::DeviceComm& comm, std::int64_t nx, std::int64_t ny, const RealLines& slab, Extent x, Extent y,
                     const Kokkos::View<T**, Kokkos::LayoutRight>& block) {
  const int parts = comm.size(), me = comm.rank();
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
  mpi::all_gather(comm.mpi_comm(), extent, 4, blocks.data());
  const auto rows_for = [&](int q, Extent slab_rows) {  // rows of q's block in slab_rows
    const std::int64_t first = std::max(slab_rows.offset, blocks[4 * q + 2]);
    const std::int64_t last = std::min(slab_rows.offset + slab_rows.size, blocks[4 * q + 2] + blocks[4 * q + 3]);
    return Extent{first, std::max<std::int64_t>(0, last - first)};
  };
  std::vector<std::size_t> send_counts(parts), send_offsets(parts), receive_counts(parts), receive_offsets(parts);
  std::size_t sent = 0, received = 0;
  for (int q = 0; q < parts; ++q) {
    send_offsets[q] = sent;
    send_counts[q] = checked_count(rows_for(q, mine).size * blocks[4 * q + 1]);
    sent += send_counts[q];
    // the slabs run up the y axis in rank order, so the pieces arrive as the block's rows in order
    receive_offsets[q] = received;
    receive_counts[q] = checked_count(rows_for(me, split(ny, parts, q)).size * width);
    received += receive_counts[q];
  }
  RealLines send(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::send_blocks"), sent);
  for (int q = 0; q < parts; ++q) {
    const Extent rows = rows_for(q, mine);
    const std::int64_t their_x0 = blocks[4 * q], their_width = blocks[4 * q + 1];
    const auto at = static_cast<std::int64_t>(send_offsets[q]);
    const std::int64_t slab_row0 = rows.offset - mine.offset;
    if (rows.size * their_width == 0) continue;
    Kokkos::parallel_for(
        "trident::diffusion::start::pack_block",
        Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {rows.size, their_width}),
        KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) {
          send(at + j * their_width + i) = slab((slab_row0 + j) * nx + their_x0 + i);
        });
  }
  RealLines receive(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::receive_blocks"),
                    received);
  Kokkos::fence();  // the packing
  all_to_all(comm, send.data(), send_offsets, send_counts, receive.data(), receive_offsets, receive_counts);
  Kokkos::parallel_for(
      "trident::diffusion::start::unpack_block", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {y.size, x.size}),
      KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) { block(j, i) = static_cast<T>(receive(j * width + i)); });
  Kokkos::fence();
}

template void slabs_to_blocks<float>(transport::DeviceComm&, std::int64_t, std::int64_t, const RealLines&, Extent, Extent,
                                     const Kokkos::View<float**, Kokkos::LayoutRight>&);
template void slabs_to_blocks<double>(transport::DeviceComm&, std::int64_t, std::int64_t, const RealLines&, Extent, Extent,
                                      const Kokkos::View<double**, Kokkos::LayoutRight>&);

}  // namespace trident::diffusion
