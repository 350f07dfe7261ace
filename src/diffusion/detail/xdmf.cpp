#include "diffusion/detail/xdmf.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <mpi.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "io/input_file.hpp"
#include "io/paths.hpp"

namespace trident::diffusion {

namespace fs = std::filesystem;

std::string xdmf_path(const std::string& output_path) { return io::beside(output_path, ".xdmf"); }

namespace {
// Text and attribute values of XML: a file name may hold any of & < > " ' (an output named
// "a&b.h5" made an XDMF no XML parser reads). Names without them are written unchanged.
std::string xml_escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += ch;
    }
  }
  return out;
}

// One frame of a dataset as point data. ParaView 5.11 has two XDMF libraries, and no item
// form of a frame of a 3D dataset that both read: Xdmf3 (XDMF3ReaderS/T) takes a HyperSlab
// item for a reference that it never loads (no arrays), but reads "FILE:DATASET|start:
// stride:count:dims" text as an HDF5 selection; the legacy XDMF2 reader (XDMFReader) does
// not know that text, but reads hyperslabs. So the item is both: its ItemType "Hyperslab",
// which XDMF2 matches ignoring case (a hyperslab of the two child items; it ignores the
// text) and Xdmf3 does not know (a plain HDF item: the text). tests/paraview checks all three.
void attribute(std::ostringstream& x, const char* name, const std::string& dataset, const XdmfGrid& g,
               const XdmfFrames& part, long long frame) {
  const std::string file = xml_escaped(part.file);
  const std::string type = "NumberType=\"Float\" Precision=\"" + std::to_string(part.precision) + "\"";
  x << "        <Attribute Name=\"" << name << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
    << "          <DataItem ItemType=\"Hyperslab\" Dimensions=\"1 " << g.ny << " " << g.nx << "\" " << type
    << " Format=\"HDF\">" << file << ":" << dataset << "|" << frame << " 0 0:1 1 1:1 " << g.ny << " " << g.nx << ":"
    << part.stored << " " << g.ny << " " << g.nx  // nothing beside the children: it would be text too
    << "<DataItem Dimensions=\"3 3\" Format=\"XML\">" << frame << " 0 0 1 1 1 1 " << g.ny << " " << g.nx
    << "</DataItem><DataItem Dimensions=\"" << part.stored << " " << g.ny << " " << g.nx << "\" " << type
    << " Format=\"HDF\">" << file << ":" << dataset << "</DataItem></DataItem>\n"
    << "        </Attribute>\n";
}
}  // namespace

std::string xdmf_text(const XdmfGrid& g, const std::vector<XdmfFrames>& parts) {
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"3.0\">\n"
    << "  <Domain>\n    <Grid Name=\"diffusion\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  long long n = 0;
  for (const XdmfFrames& part : parts) {
    for (std::size_t i = 0; i < part.frames.size(); ++i) {
      // A 3D mesh one node thick: the readers' 2D meshes land in the Y-Z plane. XDMF lists
      // the axes slowest first (z y x).
      x << "      <Grid Name=\"frame " << n++ << "\" GridType=\"Uniform\">\n"
        << "        <Time Value=\"" << part.times[i] << "\"/>\n"
        << "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"1 " << g.ny << " " << g.nx << "\"/>\n"
        << "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
        << "          <DataItem Dimensions=\"3\" Format=\"XML\">0 " << g.origin_y << " " << g.origin_x << "</DataItem>\n"
        << "          <DataItem Dimensions=\"3\" Format=\"XML\">1 " << g.dy << " " << g.dx << "</DataItem>\n"
        << "        </Geometry>\n";
      attribute(x, "u", "/diffusion/field", g, part, part.frames[i]);
      if (part.laplacian) attribute(x, "laplacian", "/diffusion/laplacian", g, part, part.frames[i]);
      x << "      </Grid>\n";
    }
  }
  x << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return x.str();
}

namespace {

// What the XDMF needs of one output file.
struct Output {
  long long nx = 0, ny = 0, stored = 0;
  int precision = 4;
  bool laplacian = false;
  std::vector<std::int64_t> steps;
  std::vector<double> times;
  XdmfGrid grid;
  std::string earlier;  // the output it continues, or empty
};

Output read_output(const std::string& path) {
  const io::InputFile file(path, "output file");
  const auto dims = file.dims("/diffusion/field");
  Output o;
  o.stored = static_cast<long long>(dims[0]);
  o.ny = static_cast<long long>(dims[1]);
  o.nx = static_cast<long long>(dims[2]);
  o.precision = file.float_size("/diffusion/field") == 8 ? 8 : 4;
  o.laplacian = file.has("/diffusion/laplacian");
  o.steps = file.read<std::int64_t>("/diffusion/step");
  o.times = file.read<double>("/diffusion/time");
  const auto real_or = [&](const char* name, double absent) {
    return file.has_attribute("/diffusion", name) ? file.real_attribute("/diffusion", name) : absent;
  };
  o.grid.nx = o.nx;
  o.grid.ny = o.ny;
  o.grid.dx = real_or("dx", 1.0);
  o.grid.dy = real_or("dy", 1.0);
  const std::vector<double> origin = file.real_attribute_values("/diffusion", "origin");
  if (origin.size() == 2) {
    o.grid.origin_x = origin[0];
    o.grid.origin_y = origin[1];
  }
  if (file.has_attribute("/diffusion", "earlier_output"))
    o.earlier = file.string_attribute("/diffusion", "earlier_output");
  if (o.steps.size() != static_cast<std::size_t>(o.stored) || o.times.size() != o.steps.size())
    throw InputError(path + ": /diffusion/step and /diffusion/time do not have one entry a frame");
  return o;
}

// `file` as the XDMF in `folder` names it: relative where it can be, else absolute.
std::string named_from(const fs::path& folder, const fs::path& file) {
  const fs::path relative = file.lexically_relative(folder);
  return relative.empty() ? file.string() : relative.string();
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ignored;
  return fs::equivalent(a, b, ignored);
}

}  // namespace

void write_xdmf(const std::string& output_path) {
  const Output newest = read_output(output_path);
  const std::string path = xdmf_path(output_path);
  std::error_code ignored;
  const fs::path folder = fs::weakly_canonical(fs::absolute(path).parent_path(), ignored);

  std::vector<XdmfFrames> parts(1);
  parts[0].file = fs::path(output_path).filename().string();
  parts[0].stored = newest.stored;
  parts[0].precision = newest.precision;
  parts[0].laplacian = newest.laplacian;
  for (long long f = 0; f < newest.stored; ++f) {
    parts[0].frames.push_back(f);
    parts[0].times.push_back(newest.times[static_cast<std::size_t>(f)]);
  }
  // Each earlier output adds its frames before the first step of the one after it (the
  // frame at a stop's step is in both files, the same bits: shown once, from the later).
  std::int64_t before = newest.steps.empty() ? std::numeric_limits<std::int64_t>::max() : newest.steps.front();
  std::vector<fs::path> seen{fs::absolute(output_path)};
  std::string next = newest.earlier;
  long long earlier_frames = 0;
  while (!next.empty()) {
    const fs::path earlier = next;
    std::string why_not;
    Output o;
    if (same_file(seen.front(), earlier)) {
      why_not = "this run's output has taken its place";  // (jobs/long-run.sbatch renames it first)
    } else if (std::any_of(seen.begin(), seen.end(), [&](const fs::path& p) { return same_file(p, earlier); })) {
      why_not = "a later part of the series has taken its place";
    } else if (!fs::exists(earlier, ignored)) {
      why_not = "it is gone";
    } else {
      try {
        o = read_output(earlier.string());
        if (o.nx != newest.nx || o.ny != newest.ny) why_not = "its grid is not this run's";
      } catch (const std::exception& e) {
        why_not = std::string("it cannot be read (") + e.what() + ")";
      }
    }
    if (!why_not.empty()) {
      log::warning(MPI_COMM_SELF, path + " does not show the frames of " + earlier.string() +
                                      ", which this run continues: " + why_not);
      break;
    }
    XdmfFrames part;
    part.file = named_from(folder, fs::weakly_canonical(earlier, ignored));
    part.stored = o.stored;
    part.precision = o.precision;
    part.laplacian = o.laplacian;
    for (long long f = 0; f < o.stored; ++f) {
      if (o.steps[static_cast<std::size_t>(f)] >= before) continue;
      part.frames.push_back(f);
      part.times.push_back(o.times[static_cast<std::size_t>(f)]);
    }
    earlier_frames += static_cast<long long>(part.frames.size());
    if (!o.steps.empty()) before = std::min(before, o.steps.front());
    parts.insert(parts.begin(), part);
    seen.push_back(earlier);
    next = o.earlier;
  }
  if (earlier_frames > 0)
    log::info(MPI_COMM_SELF, path + " shows " + std::to_string(earlier_frames) + " frames of the " +
                                 std::to_string(parts.size() - 1) + " earlier output(s) this run continues, then its own " +
                                 std::to_string(newest.stored));

  const std::string text = xdmf_text(newest.grid, parts);
  {
    std::ofstream out(path + ".partial");
    out << text;
    if (!out) throw RunError(path + ": cannot write the XDMF file");
  }
  if (std::rename((path + ".partial").c_str(), path.c_str()) != 0)
    throw RunError(path + ": cannot rename the finished XDMF file into place");
}

}  // namespace trident::diffusion
