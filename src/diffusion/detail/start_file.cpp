#include "diffusion/detail/start_file.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "core/error.hpp"
#include "transport/pinned_host_space.hpp"
#include "io/input_file.hpp"

namespace trident::diffusion {

namespace {


template <class S>
hid_t native_type() {
  return std::is_same<S, float>::value ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}

// Reads the block's rows into `stored` (row-major, on the device) in slabs of whole rows
// of at most `slab_bytes` (at least one row). Where the device's memory is the host's,
// straight into `stored`. Else through two reused page-locked buffers: while slab s is
// read from the file into one, slab s - 1 is copied from the other to the device. That
// keeps the host memory small and touched once, and hides the copies behind the reads.
template <class S, class Stored>
void read_rows_into(const io::InputFile& file, const StartField& start, Extent x, Extent y,
                    const Stored& stored, std::size_t slab_bytes) {
  using Device = typename Stored::memory_space;
  constexpr bool device_is_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Device>::accessible;
  const std::int64_t width = x.size;
  const std::int64_t slab_rows =
      std::max<std::int64_t>(1, std::min<std::int64_t>(y.size, static_cast<std::int64_t>(slab_bytes / sizeof(S)) / width));
  const auto read = [&](std::int64_t first_row, std::int64_t rows, S* out) {
    file.read_into(start.dataset, {static_cast<std::uint64_t>(y.offset + first_row), static_cast<std::uint64_t>(x.offset)},
                   {static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(width)}, native_type<S>(), out);
  };
  if constexpr (device_is_host) {
    for (std::int64_t r = 0; r < y.size; r += slab_rows) read(r, std::min(slab_rows, y.size - r), stored.data() + r * width);
  } else {
    using Buffer = Kokkos::View<S*, PinnedHostSpace>;
    const std::size_t slab = static_cast<std::size_t>(slab_rows * width);
    const Buffer buffers[2] = {Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::slab0"), slab),
                               Buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::slab1"), slab)};
    const typename Stored::execution_space exec;
    int s = 0;
    for (std::int64_t r = 0; r < y.size; r += slab_rows, ++s) {
      const std::int64_t rows = std::min(slab_rows, y.size - r);
      const Buffer& buffer = buffers[s % 2];
      read(r, rows, buffer.data());  // the other buffer's copy runs meanwhile
      exec.fence();                  // that copy is done: its buffer is free for the next slab
      const std::size_t n = static_cast<std::size_t>(rows * width), at = static_cast<std::size_t>(r * width);
      Kokkos::deep_copy(exec, Kokkos::subview(stored, std::make_pair(at, at + n)),
                        Kokkos::subview(buffer, std::make_pair(std::size_t(0), n)));
    }
    exec.fence();
  }
}

// The block read as S (the stored type, or double for any other), checked and converted to
// T on the device.
template <class S, class T>
void read_block_as(const io::InputFile& file, const StartField& start, Extent x, Extent y,
                   const Kokkos::View<T**, Kokkos::LayoutRight>& block, std::size_t slab_bytes) {
  using Device = Kokkos::DefaultExecutionSpace::memory_space;
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  const std::int64_t n = x.size * y.size, width = x.size;
  if (n == 0) return;
  constexpr bool same = std::is_same<S, T>::value;
  // Values as stored, on the device: the block itself when it holds S.
  Kokkos::View<S*, Device> stored;
  if constexpr (same) {
    stored = Kokkos::View<S*, Device, Unmanaged>(reinterpret_cast<S*>(block.data()), n);
  } else {
    stored = Kokkos::View<S*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::start::stored"),
                                      n);
  }
  read_rows_into<S>(file, start, x, y, stored, slab_bytes);
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

namespace {
void check_shape(const io::InputFile& file, const StartField& start, std::int64_t nx, std::int64_t ny) {
  const auto dims = file.dims(start.dataset);
  if (dims.size() != 2 || dims[0] != static_cast<std::uint64_t>(ny) || dims[1] != static_cast<std::uint64_t>(nx)) {
    std::string shape;
    for (auto d : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
    throw InputError(start.file + ": dataset '" + start.dataset + "' has shape (" + shape +
                     "), expected (ny, nx) = (" + std::to_string(ny) + ", " + std::to_string(nx) +
                     ") as set by diffusion.ny and diffusion.nx");
  }
}
}  // namespace

void check_start_file(const StartField& start, std::int64_t nx, std::int64_t ny, const char* role) {
  check_shape(io::InputFile(start.file, role), start, nx, ny);
}

std::string start_file_units(const StartField& start) {
  try {
    return io::InputFile(start.file, kStartFileRole).string_attribute(start.dataset, "units");
  } catch (const InputError&) {
    return "";  // no such attribute, or not text: the unit is not known
  }
}

template <class T>
void fill_block_from_file(const StartField& start, std::int64_t nx, std::int64_t ny, Extent x, Extent y,
                          const Kokkos::View<T**, Kokkos::LayoutRight>& block, std::size_t slab_bytes,
                          const char* role) {
  const io::InputFile file(start.file, role);
  check_shape(file, start, nx, ny);
  // float32 stays float32 until the device; float64 and every other type arrive as float64
  if (file.float_size(start.dataset) == 4) {
    read_block_as<float, T>(file, start, x, y, block, slab_bytes);
  } else {
    read_block_as<double, T>(file, start, x, y, block, slab_bytes);
  }
}

template void fill_block_from_file<float>(const StartField&, std::int64_t, std::int64_t, Extent, Extent,
                                          const Kokkos::View<float**, Kokkos::LayoutRight>&, std::size_t,
                                          const char*);
template void fill_block_from_file<double>(const StartField&, std::int64_t, std::int64_t, Extent, Extent,
                                           const Kokkos::View<double**, Kokkos::LayoutRight>&, std::size_t,
                                           const char*);

}  // namespace trident::diffusion
