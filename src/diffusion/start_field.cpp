#include "diffusion/start_field.hpp"

#include <algorithm>
#include <cmath>
#include <complex>

#include "core/error.hpp"
#include "diffusion/fft.hpp"
#include "io/input_file.hpp"

namespace trident::diffusion {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double uniform_open(std::uint64_t& state) {  // in (0, 1)
  return (static_cast<double>(splitmix64(state) >> 11) + 0.5) * 0x1.0p-53;
}

}  // namespace

std::vector<double> jagged_field(std::int64_t nx, std::int64_t ny, const deck::StartField& start) {
  const std::size_t px = next_power_of_two(static_cast<std::size_t>(nx));
  const std::size_t py = next_power_of_two(static_cast<std::size_t>(ny));
  std::vector<std::complex<double>> spectrum(px * py);
  std::uint64_t state = start.seed;
  const double two_pi = 2 * std::acos(-1.0);
  for (auto& value : spectrum) {
    const double r = std::sqrt(-2 * std::log(uniform_open(state)));
    value = r * std::cos(two_pi * uniform_open(state));
  }
  fft2(spectrum, py, px, false);
  for (std::size_t j = 0; j < py; ++j) {
    const double ky = static_cast<double>(j <= py / 2 ? j : py - j);
    for (std::size_t i = 0; i < px; ++i) {
      const double kx = static_cast<double>(i <= px / 2 ? i : px - i);
      const double k = std::sqrt(kx * kx + ky * ky);
      spectrum[j * px + i] *= k > 0 ? std::pow(k, -start.exponent) : 0.0;
    }
  }
  fft2(spectrum, py, px, true);

  std::vector<double> field(static_cast<std::size_t>(nx * ny), 0.0);
  const double cx = 0.5 * static_cast<double>(nx - 1), cy = 0.5 * static_cast<double>(ny - 1);
  const double radius = start.radius * static_cast<double>(std::min(nx, ny));
  std::vector<double> inside;
  double low = HUGE_VAL, high = -HUGE_VAL;
  for (std::int64_t j = 0; j < ny; ++j) {
    for (std::int64_t i = 0; i < nx; ++i) {
      const double dx = static_cast<double>(i) - cx, dy = static_cast<double>(j) - cy;
      if (dx * dx + dy * dy > radius * radius) continue;
      const double v = spectrum[static_cast<std::size_t>(j) * px + static_cast<std::size_t>(i)].real();
      low = std::min(low, v);
      high = std::max(high, v);
    }
  }
  const double scale = high > low ? 1.0 / (high - low) : 0.0;
  for (std::int64_t j = 0; j < ny; ++j) {
    for (std::int64_t i = 0; i < nx; ++i) {
      const double dx = static_cast<double>(i) - cx, dy = static_cast<double>(j) - cy;
      if (dx * dx + dy * dy > radius * radius) continue;
      const double v =
          (spectrum[static_cast<std::size_t>(j) * px + static_cast<std::size_t>(i)].real() - low) * scale;
      field[static_cast<std::size_t>(j * nx + i)] = v;
      inside.push_back(v);
    }
  }
  if (inside.empty()) return field;
  // The percentile as the value at rank floor(p/100 * (n-1)) of the sorted inside values.
  const std::size_t at = static_cast<std::size_t>(
      std::floor(start.percentile / 100.0 * static_cast<double>(inside.size() - 1)));
  std::nth_element(inside.begin(), inside.begin() + static_cast<std::ptrdiff_t>(at), inside.end());
  const double threshold = inside[at];
  for (auto& v : field)
    if (v < threshold) v = 0.0;
  return field;
}

double gaussian_value(const deck::StartField& start, std::int64_t nx, std::int64_t ny,
                      std::int64_t i, std::int64_t j) {
  const double cx = start.centre[0] * static_cast<double>(nx - 1);
  const double cy = start.centre[1] * static_cast<double>(ny - 1);
  const double w = start.width * static_cast<double>(std::min(nx, ny));
  const double dx = static_cast<double>(i) - cx, dy = static_cast<double>(j) - cy;
  return start.amplitude * std::exp(-(dx * dx + dy * dy) / (2 * w * w));
}

namespace {

// This rank's block of the start field from its file: one hyperslab read of the block,
// then a plain pass over it; the message is built only for a cell that is not finite.
std::vector<double> start_block_from_file(const deck::StartField& start, std::int64_t nx,
                                          std::int64_t ny, Extent x, Extent y) {
  const io::InputFile file(start.file, "start field file (diffusion.start.file)");
  const auto dims = file.dims(start.dataset);
  if (dims.size() != 2 || dims[0] != static_cast<std::uint64_t>(ny) ||
      dims[1] != static_cast<std::uint64_t>(nx)) {
    std::string shape;
    for (auto d : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
    throw InputError(start.file + ": dataset '" + start.dataset + "' has shape (" + shape +
                     "), expected (ny, nx) = (" + std::to_string(ny) + ", " + std::to_string(nx) +
                     ") as set by diffusion.ny and diffusion.nx");
  }
  std::vector<double> block =
      file.read<double>(start.dataset, {static_cast<std::uint64_t>(y.offset), static_cast<std::uint64_t>(x.offset)},
                        {static_cast<std::uint64_t>(y.size), static_cast<std::uint64_t>(x.size)});
  std::size_t bad = block.size();
  for (std::size_t k = 0; k < block.size(); ++k) {
    if (!std::isfinite(block[k])) {
      bad = k;
      break;
    }
  }
  if (bad < block.size()) {
    const auto width = static_cast<std::size_t>(x.size);
    throw InputError(io::not_finite_message(
        start.file, start.dataset,
        {static_cast<std::uint64_t>(y.offset) + bad / width, static_cast<std::uint64_t>(x.offset) + bad % width},
        block[bad]));
  }
  return block;
}

}  // namespace

std::vector<double> start_block(const deck::StartField& start, std::int64_t nx, std::int64_t ny,
                                Extent x, Extent y) {
  if (start.kind == "file") return start_block_from_file(start, nx, ny, x, y);
  std::vector<double> block(static_cast<std::size_t>(x.size * y.size));
  if (start.kind == "gaussian") {
    for (std::int64_t j = 0; j < y.size; ++j)
      for (std::int64_t i = 0; i < x.size; ++i)
        block[static_cast<std::size_t>(j * x.size + i)] =
            gaussian_value(start, nx, ny, x.offset + i, y.offset + j);
    return block;
  }
  const std::vector<double> field = jagged_field(nx, ny, start);
  for (std::int64_t j = 0; j < y.size; ++j)
    for (std::int64_t i = 0; i < x.size; ++i)
      block[static_cast<std::size_t>(j * x.size + i)] =
          field[static_cast<std::size_t>((y.offset + j) * nx + x.offset + i)];
  return block;
}

}  // namespace trident::diffusion
