#include "diffusion/xdmf.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/paths.hpp"
#include "io/input_file.hpp"

namespace trident::diffusion {

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

void attribute(std::ostringstream& x, const std::string& name, const std::string& h5_name,
               const std::string& dataset, long long frame, long long frames, long long nx,
               long long ny, const std::string& number_type, int precision) {
  x << "        <Attribute Name=\"" << name << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
    << "          <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << ny << " " << nx << "\" Type=\"HyperSlab\">\n"
    << "            <DataItem Dimensions=\"3 3\" Format=\"XML\">" << frame << " 0 0 1 1 1 1 " << ny << " "
    << nx << "</DataItem>\n"
    << "            <DataItem Dimensions=\"" << frames << " " << ny << " " << nx << "\" NumberType=\""
    << number_type << "\" Precision=\"" << precision << "\" Format=\"HDF\">" << xml_escaped(h5_name) << ":" << dataset
    << "</DataItem>\n"
    << "          </DataItem>\n"
    << "        </Attribute>\n";
}
}  // namespace

std::string xdmf_text(const std::string& h5_name, long long nx, long long ny, long long frames,
                      const std::string& number_type, int precision, bool laplacian,
                      const std::vector<double>& times) {
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"3.0\">\n"
    << "  <Domain>\n    <Grid Name=\"diffusion\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (long long f = 0; f < frames; ++f) {
    x << "      <Grid Name=\"frame " << f << "\" GridType=\"Uniform\">\n"
      << "        <Time Value=\"" << times[static_cast<std::size_t>(f)] << "\"/>\n"
      << "        <Topology TopologyType=\"2DCoRectMesh\" Dimensions=\"" << ny << " " << nx << "\"/>\n"
      << "        <Geometry GeometryType=\"ORIGIN_DXDY\">\n"
      << "          <DataItem Dimensions=\"2\" Format=\"XML\">0 0</DataItem>\n"
      << "          <DataItem Dimensions=\"2\" Format=\"XML\">1 1</DataItem>\n"
      << "        </Geometry>\n";
    attribute(x, "u", h5_name, "/diffusion/field", f, frames, nx, ny, number_type, precision);
    if (laplacian)
      attribute(x, "laplacian", h5_name, "/diffusion/laplacian", f, frames, nx, ny, number_type, precision);
    x << "      </Grid>\n";
  }
  x << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return x.str();
}

void write_xdmf(const std::string& output_path) {
  const io::InputFile file(output_path, "output file");
  const auto dims = file.dims("/diffusion/field");
  const std::vector<double> times = file.read<double>("/diffusion/time");
  const bool single = file.string_attribute("/diffusion", "precision") == "float32";
  std::string name = output_path;
  const auto slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  const std::string text =
      xdmf_text(name, static_cast<long long>(dims[2]), static_cast<long long>(dims[1]),
                static_cast<long long>(dims[0]), "Float", single ? 4 : 8,
                file.has("/diffusion/laplacian"), times);
  const std::string path = xdmf_path(output_path);
  {
    std::ofstream out(path + ".partial");
    out << text;
    if (!out) throw RunError(path + ": cannot write the XDMF file");
  }
  if (std::rename((path + ".partial").c_str(), path.c_str()) != 0)
    throw RunError(path + ": cannot rename the finished XDMF file into place");
}

}  // namespace trident::diffusion
