#include "diffusion/detail/start_field.hpp"

#include <algorithm>
#include <limits>

#include "diffusion/detail/counter_noise.hpp"
#include "diffusion/detail/jagged_field.hpp"
#include "diffusion/detail/start_file.hpp"

namespace trident::diffusion {

namespace {

// amplitude * exp(-r^2 / (2 w^2)), r from the centre (fractions of nx - 1 and ny - 1),
// w = width * min(nx, ny).
template <class T>
void fill_gaussian(const StartField& start, std::int64_t nx, std::int64_t ny, Extent x, Extent y,
                   const Kokkos::View<T**, Kokkos::LayoutRight>& block) {
  const double cx = start.centre[0] * static_cast<double>(nx - 1);
  const double cy = start.centre[1] * static_cast<double>(ny - 1);
  const double w = start.width * static_cast<double>(std::min(nx, ny));
  const double amplitude = start.amplitude, x0 = static_cast<double>(x.offset), y0 = static_cast<double>(y.offset);
  Kokkos::parallel_for(
      "trident::diffusion::start::gaussian", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {y.size, x.size}),
      KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) {
        const double dx = x0 + static_cast<double>(i) - cx, dy = y0 + static_cast<double>(j) - cy;
        block(j, i) = static_cast<T>(amplitude * kmath::exp(-(dx * dx + dy * dy) / (2 * w * w)));
      });
  Kokkos::fence();
}

}  // namespace

template <class T>
void fill_start_block(MPI_Comm comm, const StartField& start, std::int64_t nx, std::int64_t ny, Extent x,
                      Extent y, const Kokkos::View<T**, Kokkos::LayoutRight>& block) {
  if (start.kind == StartField::Kind::file) {
    fill_block_from_file<T>(start, nx, ny, x, y, block);
  } else if (start.kind == StartField::Kind::gaussian) {
    fill_gaussian<T>(start, nx, ny, x, y, block);
  } else {
    fill_jagged_block<T>(comm, start, nx, ny, x, y, block);
  }
}

template <class T>
bool any_not_finite(const Kokkos::View<T**, Kokkos::LayoutRight>& block) {
  const T largest = std::numeric_limits<T>::max();
  const std::int64_t width = static_cast<std::int64_t>(block.extent(1));
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "trident::diffusion::check_finite", Kokkos::RangePolicy<>(0, static_cast<std::int64_t>(block.size())),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& count) {
        const T v = block(k / width, k % width);
        count += v >= -largest && v <= largest ? 0 : 1;
      },
      bad);
  return bad > 0;
}

std::int64_t start_scratch_bytes(const StartField& start, std::int64_t nx, std::int64_t ny, int ranks) {
  if (start.kind == StartField::Kind::jagged) return jagged_scratch_bytes(nx, ny, ranks);
  if (start.kind == StartField::Kind::file) return 8 * (nx * ny / ranks + nx);  // the block as stored, before conversion
  return 0;
}

std::vector<double> start_block(MPI_Comm comm, const StartField& start, std::int64_t nx, std::int64_t ny,
                                Extent x, Extent y) {
  Kokkos::View<double**, Kokkos::LayoutRight> block("trident::diffusion::start::block", y.size, x.size);
  fill_start_block<double>(comm, start, nx, ny, x, y, block);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block);
  return std::vector<double>(host.data(), host.data() + host.size());
}

template void fill_start_block<float>(MPI_Comm, const StartField&, std::int64_t, std::int64_t, Extent, Extent,
                                      const Kokkos::View<float**, Kokkos::LayoutRight>&);
template void fill_start_block<double>(MPI_Comm, const StartField&, std::int64_t, std::int64_t, Extent, Extent,
                                       const Kokkos::View<double**, Kokkos::LayoutRight>&);
template bool any_not_finite<float>(const Kokkos::View<float**, Kokkos::LayoutRight>&);
template bool any_not_finite<double>(const Kokkos::View<double**, Kokkos::LayoutRight>&);

}  // namespace trident::diffusion
