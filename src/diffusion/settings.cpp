#include "diffusion/settings.hpp"

#include "deck/reader.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace trident::diffusion {

using deck::any;
using deck::at_least;
using deck::between;
using deck::exact_number;
using deck::greater_than;
using deck::printable;
using deck::Section;

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
  start.kind = s.enum_choice<StartField::Kind>(
      "kind", {{"jagged", StartField::Kind::jagged}, {"gaussian", StartField::Kind::gaussian}, {"file", StartField::Kind::file}},
      StartField::Kind::jagged);
  if (start.kind == StartField::Kind::jagged) {
    start.seed = static_cast<std::uint64_t>(s.integer("seed", at_least(0), 1));
    start.exponent = s.real("exponent", any(), 1.7);
    start.radius = s.real("radius", greater_than(0), 0.45);
    start.percentile = s.real("percentile", between(0, 100), 70.0);
  } else if (start.kind == StartField::Kind::gaussian) {
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

const char* const kBoundaryForms =
    "neumann, periodic, {dirichlet: VALUE} or {convective: {h: H, ambient: VALUE}}";

// A side's rule from the mapping `m` that holds its one key, dirichlet or convective.
Boundary parse_rule_map(const Section& m) {
  if (m.has("dirichlet") && m.has("convective"))
    m.fail("convective", "expected one rule, dirichlet or convective, not both");
  m.require_one_key();
  Boundary b;
  if (m.has("dirichlet")) {
    b.value = m.real("dirichlet", any());
    return b;
  }
  const Section c = m.section("convective", {"h", "ambient"});
  b.kind = BoundaryKind::convective;
  b.h = c.real("h", at_least(0));
  b.value = c.real("ambient", any());
  return b;
}

// The rule at `key` of `parent`: neumann or periodic as text, else a one-key mapping.
Boundary parse_rule(const Section& parent, const std::string& key) {
  const Section::Shape shape = parent.shape(key);
  if (shape == Section::Shape::mapping) return parse_rule_map(parent.section(key, {"dirichlet", "convective"}));
  const bool scalar = shape == Section::Shape::scalar;
  const std::string text = scalar ? parent.scalar(key) : "";
  if (text != "neumann" && text != "periodic")
    parent.fail(key, std::string("expected ") + kBoundaryForms + ", got " +
                         (scalar ? "'" + printable(text) + "'" : std::string("a list")));
  Boundary b;
  b.kind = parent.choice(key, {"neumann", "periodic"}) == "neumann" ? BoundaryKind::neumann : BoundaryKind::periodic;
  return b;
}

// diffusion.boundary: one rule for every side, or a mapping of sides (the others dirichlet 0).
std::array<Boundary, 4> parse_boundary(const Section& s) {
  std::array<Boundary, 4> sides{};
  if (!s.has("boundary")) return sides;
  if (s.shape("boundary") != Section::Shape::mapping) {
    sides.fill(parse_rule(s, "boundary"));
    return sides;
  }
  const Section m = s.section("boundary", {"west", "east", "south", "north", "dirichlet", "convective"});
  const bool one_rule = m.has("dirichlet") || m.has("convective");
  for (int side = 0; side < 4; ++side) {
    if (!m.has(kSideNames[side])) continue;
    if (one_rule)
      m.fail(kSideNames[side], "expected either one rule for every side or a mapping of west, east, south "
                               "and north, not both");
    sides[static_cast<std::size_t>(side)] = parse_rule(m, kSideNames[side]);
  }
  if (one_rule) sides.fill(parse_rule_map(m));
  // The two sides of an axis wrap onto each other: both periodic or neither.
  for (const int side : {kWest, kSouth}) {
    const bool a = sides[std::size_t(side)].kind == BoundaryKind::periodic;
    const bool b = sides[std::size_t(side) + 1].kind == BoundaryKind::periodic;
    if (a != b) {
      const std::string one = kSideNames[a ? side : side + 1], other = kSideNames[a ? side + 1 : side];
      s.fail("boundary", "periodic on " + one + " needs periodic on " + other +
                             " too (an axis wraps on both sides or neither), got " + describe(sides[std::size_t(a ? side + 1 : side)]) +
                             " on " + other);
    }
  }
  return sides;
}

// The largest share of its value a cell passes to its neighbours in a step must be at most
// 1: c on each face to a cell, a dirichlet ghost or a periodic partner, h on a convective
// face, nothing on a neumann one. Along each axis the worst cell is an edge cell or, when
// the grid has more than two cells there, an inside one (2c).
void check_stability(const Section& s, const DiffusionSettings& d) {
  const auto face = [&d](int side) {
    const Boundary& b = d.boundary[std::size_t(side)];
    const double c = side < kSouth ? d.c_x() : d.c_y();
    return b.kind == BoundaryKind::convective ? b.h : b.kind == BoundaryKind::neumann ? 0.0 : c;
  };
  const auto axis = [&](int low, std::int64_t n) {
    const double c = low == kWest ? d.c_x() : d.c_y();
    if (n == 1) return face(low) + face(low + 1);
    return std::max({face(low) + c, face(low + 1) + c, n > 2 ? 2 * c : 0.0});
  };
  const double most = axis(kWest, d.nx) + axis(kSouth, d.ny);
  if (most > 1.0) {
    s.fail("boundary", "the convective h values make the scheme unstable: a cell at the edge would pass " +
                           exact_number(most) + " of its value a step (the sum of c and h over its four faces), "
                           "more than 1; lower h or c");
  }
}

}  // namespace

const char* start_kind_name(StartField::Kind kind) {
  return kind == StartField::Kind::file ? "file" : kind == StartField::Kind::gaussian ? "gaussian" : "jagged";
}

std::string describe(const Boundary& b) {
  switch (b.kind) {
    case BoundaryKind::neumann: return "neumann";
    case BoundaryKind::periodic: return "periodic";
    case BoundaryKind::convective: return "convective h " + exact_number(b.h) + " ambient " + exact_number(b.value);
    default: return "dirichlet " + exact_number(b.value);
  }
}

std::string SourceSettings::describe() const {
  if (from_file) return "file " + file + " dataset " + dataset;
  return value == 0.0 ? "none" : exact_number(value);
}

std::string describe(const std::array<Boundary, 4>& sides) {
  std::string text;
  for (int side = 0; side < 4; ++side)
    text += std::string(side == 0 ? "" : ", ") + kSideNames[side] + " " + describe(sides[std::size_t(side)]);
  return text;
}

DiffusionSettings parse_diffusion(const Section& top) {
  const Section s = top.section(
      "diffusion", {"nx", "ny", "steps", "c", "D", "dt", "dx", "dy", "origin", "time_unit", "length_unit",
                    "precision", "laplacian", "output_every",
                    "checkpoint_every", "checkpoint_file", "ranks", "halo_width", "start", "boundary", "source"});
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
  if (s.shape("c") == Section::Shape::mapping) {
    const Section f = s.section("c", {"file", "dataset"});
    d.c_file = f.file("file");
    d.c_dataset = f.text("dataset");
    d.c = 0.0;  // each cell's c is read at the start, and checked there
  } else if (s.has("c")) {
    d.c = s.real("c", greater_than(0));
    if (d.c > 0.25) {
      s.fail("c", "must be at most 0.25, the stability limit of the explicit scheme, got " +
                      s.scalar("c"));
    }
  }
  d.dt = s.real("dt", greater_than(0), 1.0);
  d.dx = s.real("dx", greater_than(0), 1.0);
  d.dy = s.real("dy", greater_than(0), 1.0);
  if (s.has("D")) {
    if (s.has("c")) s.fail("D", "expected either c or D (with dx, dy and dt), not both");
    d.D = s.real("D", greater_than(0));
    const double cx = d.c_x(), cy = d.c_y();
    if (!(cx + cy <= 0.5)) {
      s.fail("D", "expected D dt / dx^2 + D dt / dy^2 at most 1/2, the stability limit of the explicit scheme, got " +
                      exact_number(cx) + " + " + exact_number(cy) + " = " + exact_number(cx + cy) + "; lower dt or D");
    }
    d.c = cx;  // what c's kernels use when dx = dy, and the output's attribute c
  }
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
  d.boundary = parse_boundary(s);
  if (s.has("source")) {
    if (s.shape("source") == Section::Shape::mapping) {
      const Section f = s.section("source", {"file", "dataset"});
      d.source.from_file = true;
      d.source.file = f.file("file");
      d.source.dataset = f.text("dataset");
    } else {
      if (s.shape("source") != Section::Shape::scalar) s.fail("source", "expected a number or {file: F, dataset: D}, got a list");
      d.source.value = s.real("source", any());
    }
  }
  check_stability(s, d);
  return d;
}

}  // namespace trident::diffusion
