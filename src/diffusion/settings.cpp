#include "diffusion/settings.hpp"

#include "deck/reader.hpp"

#include <limits>
#include <string>

#include "core/error.hpp"

namespace trident::deck {

using core::Precision;

namespace {

StartField parse_start(const Section& diffusion) {
  StartField start;
  if (!diffusion.has("start")) return start;  // the tutorial's jagged field
  const std::string kind = diffusion.peek("start", "kind").value_or("jagged");
  std::vector<std::string> allowed{"kind"};
  if (kind == "jagged") allowed.insert(allowed.end(), {"seed", "exponent", "radius", "percentile"});
  if (kind == "gaussian") allowed.insert(allowed.end(), {"centre", "width", "amplitude"});
  if (kind == "file") allowed.insert(allowed.end(), {"file", "dataset"});
  const Section s = diffusion.section("start", allowed);
  start.kind = s.choice("kind", {"jagged", "gaussian", "file"}, "jagged");
  if (start.kind == "jagged") {
    start.seed = static_cast<std::uint64_t>(s.integer("seed", at_least(0), 1));
    start.exponent = s.real("exponent", any(), 1.7);
    start.radius = s.real("radius", greater_than(0), 0.45);
    start.percentile = s.real("percentile", between(0, 100), 70.0);
  } else if (start.kind == "gaussian") {
    if (s.has("centre")) {
      const auto c = s.reals("centre", between(0, 1), 2, 2);
      start.centre = {c[0], c[1]};
    }
    start.width = s.real("width", greater_than(0), 0.1);
    start.amplitude = s.real("amplitude", any(), 1.0);
  } else {
    start.file = s.file("file");
    start.dataset = s.text("dataset");
  }
  return start;
}

}  // namespace

DiffusionSettings parse_diffusion(const Section& top) {
  const Section s = top.section(
      "diffusion", {"nx", "ny", "steps", "c", "dt", "dx", "dy", "origin", "time_unit", "length_unit",
                    "precision", "laplacian", "output_every",
                    "checkpoint_every", "checkpoint_file", "ranks", "halo_width", "start"});
  DiffusionSettings d;
  d.nx = s.integer("nx", at_least(1));
  d.ny = s.integer("ny", at_least(1));
  // Cell counts and byte sizes are 64-bit integers: 2^53 cells keep every byte count of
  // the fields and of the start field's FFT scratch (about 40 bytes a cell) below 2^63,
  // so no size wraps around to an allocation of the wrong size.
  if (double(d.nx) * double(d.ny) > 0x1p53) {
    s.fail("ny", "expected nx x ny at most 2^53 cells, got " + std::to_string(d.nx) + " x " +
                     std::to_string(d.ny));
  }
  d.steps = s.integer("steps", at_least(0));
  if (s.has("c")) {
    d.c = s.real("c", greater_than(0));
    if (d.c > 0.25) {
      s.fail("c", "must be at most 0.25, the stability limit of the explicit scheme, got " +
                      s.scalar("c"));
    }
  }
  d.dt = s.real("dt", greater_than(0), 1.0);
  d.dx = s.real("dx", greater_than(0), 1.0);
  d.dy = s.real("dy", greater_than(0), 1.0);
  if (s.has("origin")) {
    const auto o = s.reals("origin", any(), 2, 2);
    d.origin = {o[0], o[1]};
  }
  // One line of text, as CF's `units` attribute holds it.
  const auto unit = [&s](const std::string& key, const std::string& fallback) {
    const std::string text = s.text(key, fallback);
    if (text.find_first_of("\n\r") != std::string::npos)
      s.fail(key, "expected a unit on one line, such as " + fallback + ", got a text of several lines");
    return text;
  };
  d.time_unit = unit("time_unit", "s");
  d.length_unit = unit("length_unit", "m");
  d.precision = s.precision("precision", {Precision::float32, Precision::float64}, Precision::float32);
  d.laplacian = s.boolean("laplacian", false);
  d.output_every = s.integer("output_every", at_least(0), 0);
  d.checkpoint_every = s.integer("checkpoint_every", at_least(0), 0);
  d.checkpoint_file = s.file("checkpoint_file", "");
  if (s.has("ranks")) {
    const auto r = s.integers("ranks", at_least(1), 2, 2);
    // MPI counts ranks in an int. Checked here, in floating point, because the product in
    // 64-bit integers can wrap around to a small count (even 1).
    if (double(r[0]) * double(r[1]) > double(std::numeric_limits<int>::max())) {
      s.fail("ranks", "expected at most 2147483647 ranks in all, got " + std::to_string(r[0]) + " x " +
                          std::to_string(r[1]));
    }
    d.ranks = {r[0], r[1]};
  }
  // At most the smallest block's side, which depends on the rank count: checked at the start.
  d.halo_width = s.integer("halo_width", at_least(1), 0);
  d.start = parse_start(s);
  return d;
}

}  // namespace trident::deck
