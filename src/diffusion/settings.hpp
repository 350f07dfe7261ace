#pragma once
// The `diffusion:` section of a deck, typed and validated: plain settings, read by settings.cpp.
#include <array>
#include <cstdint>
#include <string>

#include "core/precision.hpp"

namespace trident::deck {
class Section;  // deck/reader.hpp: settings.cpp reads the section through it
}

namespace trident::diffusion {

struct StartField {
  enum class Kind { jagged, gaussian, file };
  Kind kind = Kind::jagged;
  // jagged: seeded white noise, filtered by radius^-exponent, cut to a disc of
  // `radius` * n, values under the `percentile`-th percentile set to zero.
  std::uint64_t seed = 1;
  double exponent = 1.7;
  double radius = 0.45;
  double percentile = 70.0;
  // gaussian: amplitude * exp(-r^2 / (2 width^2)), centre and width in fractions of the grid.
  std::array<double, 2> centre{0.5, 0.5};
  double width = 0.1;
  double amplitude = 1.0;
  // file: an HDF5 dataset of shape (ny, nx).
  std::string file;
  std::string dataset;
};
// The deck's word for a start field's kind: jagged, gaussian or file.
const char* start_kind_name(StartField::Kind kind);

// What the ghost cell beyond one side of the domain holds (docs/diffusion.md#boundaries).
enum class BoundaryKind {
  dirichlet,   // a fixed value
  neumann,     // the edge cell's value: no flux across the edge
  periodic,    // the opposite edge's cells (both sides of an axis or neither)
  convective,  // Robin: the edge face passes h (ambient - u_edge) a step
};
struct Boundary {
  BoundaryKind kind = BoundaryKind::dirichlet;
  double value = 0.0;  // dirichlet: the ghost's value; convective: the ambient value
  double h = 0.0;      // convective: the face's transfer coefficient a step, at least 0
  bool operator==(const Boundary& o) const { return kind == o.kind && value == o.value && h == o.h; }
  bool operator!=(const Boundary& o) const { return !(*this == o); }
};
enum Side { kWest = 0, kEast = 1, kSouth = 2, kNorth = 3 };
constexpr const char* kSideNames[4] = {"west", "east", "south", "north"};
// One side's rule as the run log, the resolved deck and the checkpoint name it, e.g.
// "dirichlet 0", "neumann", "periodic", "convective h 0.1 ambient 20" (exact numbers).
std::string describe(const Boundary& b);
// All four, e.g. "west dirichlet 1, east dirichlet 0, south neumann, north neumann".
std::string describe(const std::array<Boundary, 4>& sides);

// diffusion.source: s added to every cell each step, after the neighbour sum
// (u <- (u - c L(u)) + s): one number for every cell, or an HDF5 dataset of shape (ny, nx).
struct SourceSettings {
  double value = 0.0;  // the number (from_file false); 0: no source
  bool from_file = false;
  std::string file, dataset;
  bool present() const { return from_file || value != 0.0; }
  // The file as a start field's, read the same way.
  StartField as_file() const {
    StartField f;
    f.kind = StartField::Kind::file;
    f.file = file;
    f.dataset = dataset;
    return f;
  }
  // As the log, the output's attributes and the checkpoint name it: "none", "0.5" (exact),
  // "file F dataset D".
  std::string describe() const;
};

struct DiffusionSettings {
  std::int64_t nx = 0, ny = 0;  // cells along x (fastest) and y
  std::int64_t steps = 0;
  double c = 0.25;   // diffusion number D dt / dx^2; stable up to 0.25 (0 with a field)
  // diffusion.c: {file, dataset}: c cell by cell, an HDF5 dataset of shape (ny, nx); empty
  // file: c is the number above.
  std::string c_file, c_dataset;
  bool c_field() const { return !c_file.empty(); }
  // diffusion.D (0: not given, c is): the diffusivity in length_unit^2 / time_unit, giving
  // c_x = D dt / dx^2 and c_y = D dt / dy^2 (c = c_x when they are equal: c's kernels).
  double D = 0.0;
  // c along x and y: c, or from D.
  double c_x() const { return D > 0 ? D * dt / (dx * dx) : c; }
  double c_y() const { return D > 0 ? D * dt / (dy * dy) : c; }
  bool anisotropic() const { return c_x() != c_y(); }
  double dt = 1.0;   // time per step, for the time axis of the output
  // Cell sizes along x and y and the position of cell (0, 0)'s centre as (x, y), for the
  // output's coordinates (x = origin[0] + i * dx) and the XDMF grid; the update uses c, or
  // D with them.
  double dx = 1.0, dy = 1.0;
  std::array<double, 2> origin{0.0, 0.0};
  // The units of dt and of dx, dy, origin (UDUNITS text), written on the output's time and
  // x, y coordinates; trident computes nothing with them.
  std::string time_unit = "s";
  std::string length_unit = "m";
  core::Precision precision = core::Precision::float32;  // float32 or float64
  bool laplacian = false;          // compute and write L(u) with each frame
  std::int64_t output_every = 0;   // frames every N steps (0: start and end only)
  std::int64_t checkpoint_every = 0;  // 0: no checkpoints
  std::string checkpoint_file;     // empty: OUTPUT without .h5 + ".checkpoint.h5"
  std::array<std::int64_t, 2> ranks{0, 0};  // ranks along x and y (0: MPI_Dims_create)
  std::int64_t halo_width = 0;     // cells of halo exchanged every halo_width steps (0: chosen)
  StartField start;
  std::array<Boundary, 4> boundary{};  // west, east, south, north (Side); default dirichlet 0
  SourceSettings source;
  // Whether some side is neumann or convective: its ghost cells follow the edge cells step
  // by step, so a trip takes one step (the dirichlet and periodic ghosts need no step of their own).
  bool ghosts_follow_edges() const {
    for (const Boundary& b : boundary)
      if (b.kind == BoundaryKind::neumann || b.kind == BoundaryKind::convective) return true;
    return false;
  }
  bool periodic_x() const { return boundary[kWest].kind == BoundaryKind::periodic; }
  bool periodic_y() const { return boundary[kSouth].kind == BoundaryKind::periodic; }
};

// Reads `diffusion:` from the top-level section (the caller checked that it is there).
DiffusionSettings parse_diffusion(const deck::Section& top);

}  // namespace trident::diffusion
