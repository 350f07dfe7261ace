#pragma once
// An XDMF file beside a finished output file so that ParaView opens the diffusion time
// series directly: a temporal collection of 2D grids in the X-Y plane (the physical origin
// and spacing), u and L(u) as point data pointing into the HDF5 datasets, one frame a time
// step at its physical time. A run resumed from a checkpoint shows the frames of the
// outputs it continues (while they are there) before its own, as one series.
#include <string>
#include <vector>

namespace trident::diffusion {

// OUTPUT.h5 -> OUTPUT.xdmf
std::string xdmf_path(const std::string& output_path);

// The grid every frame shares: nodes x fastest, the centre of cell (0, 0) and the spacing.
struct XdmfGrid {
  long long nx = 0, ny = 0;
  double origin_x = 0, origin_y = 0, dx = 1, dy = 1;
};

// Some frames of one output file.
struct XdmfFrames {
  std::string file;        // as the XDMF names it: relative to the XDMF's folder, or absolute
  long long stored = 0;    // frames in the file's datasets
  int precision = 4;       // bytes a value
  bool laplacian = false;  // whether the file has /diffusion/laplacian
  std::vector<long long> frames;  // which of its frames, in time order
  std::vector<double> times;      // their times
};

// The XDMF text of `parts`' frames, in order (exposed for tests).
std::string xdmf_text(const XdmfGrid& grid, const std::vector<XdmfFrames>& parts);

// Reads /diffusion from the (closed) output file, and from the earlier outputs it
// continues (its attribute earlier_output, and theirs), and writes the XDMF beside it. A
// file without the grid's attributes (dx, dy, origin: older outputs) gets spacing 1 and
// origin 0. An earlier output that is gone, unreadable or of another grid ends the series
// there, with a warning. Call on one rank.
void write_xdmf(const std::string& output_path);

}  // namespace trident::diffusion
