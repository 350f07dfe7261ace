#include "diffusion/detail/jagged_field.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/comm.hpp"
#include "diffusion/detail/counter_noise.hpp"
#include "diffusion/detail/exact_select.hpp"
#include "diffusion/detail/fft.hpp"
#include "diffusion/detail/slab_exchange.hpp"

namespace trident::diffusion {

namespace {

// Lines of an FFT's slab, padded as the library needs, `length` elements each.
// Only the padding is zeroed (the library transforms it too); the lines are written before
// they are read, and a first touch of fresh memory costs as much as a pass over it.
template <class View>
View slab(const char* label, const LineFft& fft, std::int64_t lines, std::int64_t length) {
  const std::int64_t used = lines * length, size = fft.padded_lines(lines) * length;
  View v(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), size);
  if (size > used) Kokkos::deep_copy(Kokkos::subview(v, std::make_pair(used, size)), typename View::value_type());
  return v;
}

// The field before the disc, on this rank's rows: the filtered noise.
RealLines filtered_noise(transport::DeviceComm& comm, const StartField& start, std::int64_t nx, std::int64_t ny) {
  const int parts = comm.size(), me = comm.rank();
  const Extent rows = split(ny, parts, me);
  const std::int64_t half = nx / 2 + 1;  // wavenumbers 0..nx/2 along x: the rest mirror them
  const Extent columns = split(half, parts, me);
  const LineFft along_x(FftKind::real_to_complex, nx), back_along_x(FftKind::complex_to_real, nx);
  const LineFft along_y(FftKind::forward, ny), back_along_y(FftKind::inverse, ny);

  auto noise = slab<RealLines>("trident::diffusion::start::noise", along_x, rows.size, nx);
  const std::uint64_t key = noise_key(start.seed);
  const std::int64_t first_cell = rows.offset * nx;
  Kokkos::parallel_for(
      "trident::diffusion::start::noise", Kokkos::RangePolicy<>(0, rows.size * nx),
      KOKKOS_LAMBDA(const std::int64_t k) { noise(k) = cell_noise(key, static_cast<std::uint64_t>(first_cell + k)); });
  auto spectrum = slab<ComplexLines>("trident::diffusion::start::spectrum", along_x, rows.size, half);
  along_x.run(noise.data(), spectrum.data(), rows.size);
  noise = RealLines();

  auto by_columns = slab<ComplexLines>("trident::diffusion::start::columns", along_y, columns.size, ny);
  transpose_slabs(comm, ny, half, spectrum, by_columns);
  spectrum = ComplexLines();
  along_y.run(by_columns.data(), by_columns.data(), columns.size);
  const double exponent = start.exponent;
  const std::int64_t first_column = columns.offset;
  Kokkos::parallel_for(
      "trident::diffusion::start::filter", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {columns.size, ny}),
      KOKKOS_LAMBDA(const std::int64_t c, const std::int64_t j) {
        const double kx = static_cast<double>(first_column + c);
        const double ky = static_cast<double>(j <= ny / 2 ? j : ny - j);
        const double k = kmath::sqrt(kx * kx + ky * ky);
        by_columns(c * ny + j) *= k > 0 ? kmath::pow(k, -exponent) : 0.0;
      });
  back_along_y.run(by_columns.data(), by_columns.data(), columns.size);

  spectrum = slab<ComplexLines>("trident::diffusion::start::spectrum", back_along_x, rows.size, half);
  transpose_slabs(comm, half, ny, by_columns, spectrum);
  by_columns = ComplexLines();
  auto field = slab<RealLines>("trident::diffusion::start::field", back_along_x, rows.size, nx);
  back_along_x.run(spectrum.data(), field.data(), rows.size);
  return field;
}

struct Disc {
  double cx, cy, radius_squared;
  KOKKOS_INLINE_FUNCTION bool inside(std::int64_t i, std::int64_t j) const {
    const double dx = static_cast<double>(i) - cx, dy = static_cast<double>(j) - cy;
    return !(dx * dx + dy * dy > radius_squared);  // half-integer squares: exact on every backend
  }
};

// Cuts the slab (this rank's rows of the filtered noise) to the disc, scales the disc to
// [0, 1] and zeroes it under the percentile, in place. Statistics over all ranks, exact.
void cut_and_threshold(MPI_Comm comm, const StartField& start, std::int64_t nx, std::int64_t ny,
                       const RealLines& field) {
  const Extent rows = split(ny, mpi::size(comm), mpi::rank(comm));
  const double radius = start.radius * static_cast<double>(std::min(nx, ny));
  const Disc disc{0.5 * static_cast<double>(nx - 1), 0.5 * static_cast<double>(ny - 1), radius * radius};
  const std::int64_t first_row = rows.offset, cells = rows.size * nx;
  Kokkos::View<std::uint64_t*> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::keys"),
                                    cells);
  Kokkos::MinMaxScalar<double> range;
  std::int64_t count = 0;
  Kokkos::parallel_reduce(
      "trident::diffusion::start::disc_range", Kokkos::RangePolicy<>(0, cells),
      KOKKOS_LAMBDA(const std::int64_t k, Kokkos::MinMaxScalar<double>& r) {
        const bool in = disc.inside(k % nx, first_row + k / nx);
        const double v = field(k);
        keys(k) = in ? order_key(v) : kExcludedKey;
        if (in) {
          r.min_val = v < r.min_val ? v : r.min_val;
          r.max_val = v > r.max_val ? v : r.max_val;
        }
      },
      Kokkos::MinMax<double>(range));
  Kokkos::parallel_reduce(
      "trident::diffusion::start::disc_count", Kokkos::RangePolicy<>(0, cells),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& n) { n += keys(k) != kExcludedKey ? 1 : 0; }, count);
  const double low = mpi::min_over_ranks(comm, range.min_val), high = mpi::max_over_ranks(comm, range.max_val);
  std::int64_t total = count;
  mpi::sum_over_ranks(comm, &total, 1);
  double threshold = 0;
  if (total > 0) {
    const auto at = static_cast<std::int64_t>(std::floor(start.percentile / 100.0 * static_cast<double>(total - 1)));
    threshold = from_order_key(select_key(comm, keys, at));
  }
  keys = decltype(keys)();
  // Scaling is monotonic, so the percentile of the scaled values is the scaled percentile.
  const double scale = high > low ? 1.0 / (high - low) : 0.0;
  const double scaled_threshold = (threshold - low) * scale;
  Kokkos::parallel_for(
      "trident::diffusion::start::threshold", Kokkos::RangePolicy<>(0, cells), KOKKOS_LAMBDA(const std::int64_t k) {
        const double v = (field(k) - low) * scale;
        field(k) = disc.inside(k % nx, first_row + k / nx) && !(v < scaled_threshold) ? v : 0.0;
      });
}

}  // namespace

template <class T>
void fill_jagged_block(MPI_Comm comm, const StartField& start, std::int64_t nx, std::int64_t ny, Extent x,
                       Extent y, const Kokkos::View<T**, Kokkos::LayoutRight>& block) {
  // The transposes go by MPI (through page-locked host buffers where the MPI takes no
  // device pointers), whatever the run chose for its halos: NCCL would connect every pair
  // of ranks for this one all-to-all, P - 1 connections and their buffers on every GPU.
  transport::DeviceComm slabs(comm, core::mpi_transport());
  const RealLines field = filtered_noise(slabs, start, nx, ny);
  cut_and_threshold(comm, start, nx, ny, field);
  slabs_to_blocks<T>(slabs, nx, ny, field, x, y, block);
}

std::int64_t jagged_scratch_bytes(std::int64_t nx, std::int64_t ny, int ranks) {
  constexpr std::int64_t batch = 128;  // at most a cuFFT batch of padding per slab
  const std::int64_t rows = (ny + ranks - 1) / ranks + batch, half = nx / 2 + 1;
  const std::int64_t columns = (half + ranks - 1) / ranks + batch;
  // the transposes: the slab, its packed copy, the received pieces and their unpacked lines
  const std::int64_t fft = 16 * (2 * rows * half + 2 * columns * ny);
  // the field, its order keys, and the pieces sent to and received for the blocks
  const std::int64_t cut = 8 * 4 * rows * nx;
  return std::max(fft, cut);
}

template void fill_jagged_block<float>(MPI_Comm, const StartField&, std::int64_t, std::int64_t, Extent, Extent,
                                       const Kokkos::View<float**, Kokkos::LayoutRight>&);
template void fill_jagged_block<double>(MPI_Comm, const StartField&, std::int64_t, std::int64_t, Extent,
                                        Extent, const Kokkos::View<double**, Kokkos::LayoutRight>&);

}  // namespace trident::diffusion
