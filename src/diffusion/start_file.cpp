#include "diffusion/start_file.hpp"

#include <limits>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "io/input_file.hpp"

namespace trident::diffusion {

namespace {

template <class S>
hid_t native_type() {
  return std::is_same<S, float>::value ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}

// The block read as S (the stored type, or double for any other), checked and converted to
// T on the device.
template <class S, class T>
void read_block_as(const io::InputFile& file, const deck::StartField& start, Extent x, Extent y,
                   const Kokkos::View<T**, Kokkos::LayoutRight>& block) {
  using Device = Kokkos::DefaultExecutionSpace::memory_space;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  const std::int64_t n = x.size * y.size, width = x.size;
  if (n == 0) return;
  constexpr bool same = std::is_same<S, T>::value;
  constexpr bool device_is_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Device>::accessible;
  // Values as stored, on the device: the block itself when it holds S.
  Kokkos::View<S*, Device> stored;
  if constexpr (same) {
    stored = Kokkos::View<S*, Device, Unmanaged>(reinterpret_cast<S*>(block.data()), n);
  } else {
    stored = Kokkos::View<S*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::stored"),
                                      n);
  }
  // Read straight into the device's memory where it is the host's; else into a host copy.
  Kokkos::View<S*, Kokkos::HostSpace> host;
  if constexpr (device_is_host) {
    host = Kokkos::View<S*, Kokkos::HostSpace, Unmanaged>(stored.data(), n);
  } else {
    host = Kokkos::View<S*, Kokkos::HostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::file_block"), n);
  }
  file.read_into(start.dataset, {static_cast<std::uint64_t>(y.offset), static_cast<std::uint64_t>(x.offset)},
                 {static_cast<std::uint64_t>(y.size), static_cast<std::uint64_t>(x.size)}, native_type<S>(),
                 host.data());
  if (host.data() != stored.data()) Kokkos::deep_copy(stored, host);
  // The first cell (row-major in the block) that is NaN or infinite.
  const S largest = std::numeric_limits<S>::max();
  std::int64_t bad = n;
  Kokkos::parallel_reduce(
      "trident::diffusion::start::file_check", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& first) {
        const S v = stored(k);
        if (!(v >= -largest && v <= largest) && k < first) first = k;
      },
      Kokkos::Min<std::int64_t>(bad));
  if (bad < n) {
    S value;
    Kokkos::deep_copy(value, Kokkos::subview(stored, bad));
    throw InputError(io::not_finite_message(
        start.file, start.dataset,
        {static_cast<std::uint64_t>(y.offset + bad / width), static_cast<std::uint64_t>(x.offset + bad % width)},
        static_cast<double>(value)));
  }
  if constexpr (!same) {
    Kokkos::parallel_for(
        "trident::diffusion::start::file_convert", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {y.size, x.size}),
        KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) { block(j, i) = static_cast<T>(stored(j * width + i)); });
  }
  Kokkos::fence();
}

}  // namespace

template <class T>
void fill_block_from_file(const deck::StartField& start, std::int64_t nx, std::int64_t ny, Extent x, Extent y,
                          const Kokkos::View<T**, Kokkos::LayoutRight>& block) {
  const io::InputFile file(start.file, "start field file (diffusion.start.file)");
  const auto dims = file.dims(start.dataset);
  if (dims.size() != 2 || dims[0] != static_cast<std::uint64_t>(ny) || dims[1] != static_cast<std::uint64_t>(nx)) {
    std::string shape;
    for (auto d : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
    throw InputError(start.file + ": dataset '" + start.dataset + "' has shape (" + shape +
                     "), expected (ny, nx) = (" + std::to_string(ny) + ", " + std::to_string(nx) +
                     ") as set by diffusion.ny and diffusion.nx");
  }
  // float32 stays float32 until the device; float64 and every other type arrive as float64
  if (file.float_size(start.dataset) == 4) {
    read_block_as<float, T>(file, start, x, y, block);
  } else {
    read_block_as<double, T>(file, start, x, y, block);
  }
}

template void fill_block_from_file<float>(const deck::StartField&, std::int64_t, std::int64_t, Extent, Extent,
                                          const Kokkos::View<float**, Kokkos::LayoutRight>&);
template void fill_block_from_file<double>(const deck::StartField&, std::int64_t, std::int64_t, Extent, Extent,
                                           const Kokkos::View<double**, Kokkos::LayoutRight>&);

}  // namespace trident::diffusion
