#include "diffusion/detail/checkpoint.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/runtime.hpp"
#include "io/exact_text.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"

namespace trident::diffusion {

template <class T>
void write_checkpoint(MPI_Comm comm, const std::string& path, const DiffusionSettings& settings,
                      std::int64_t step, const Decomposition& d, const std::vector<T>& block,
                      const std::string& output_path) {
  io::OutputFile file(comm, path, /*overwrite=*/true);
  file.create_dataset<T>("/field", {static_cast<std::uint64_t>(settings.ny),
                                    static_cast<std::uint64_t>(settings.nx)});
  file.write_slab<T>("/field", {static_cast<std::uint64_t>(d.y().offset), static_cast<std::uint64_t>(d.x().offset)},
                     {static_cast<std::uint64_t>(d.y().size), static_cast<std::uint64_t>(d.x().size)},
                     block.data());
  file.attribute("/", "step", step);
  file.attribute("/", "nx", settings.nx);
  file.attribute("/", "ny", settings.ny);
  file.attribute("/", "c", settings.c);
  file.attribute("/", "D", settings.D);
  file.attribute("/", "c_field", settings.c_field() ? "file " + settings.c_file + " dataset " + settings.c_dataset : "none");
  file.attribute("/", "dt", settings.dt);
  file.attribute("/", "dx", settings.dx);
  file.attribute("/", "dy", settings.dy);
  file.attribute("/", "origin", std::vector<double>{settings.origin[0], settings.origin[1]});
  file.attribute("/", "output", std::filesystem::absolute(output_path).lexically_normal().string());
  file.attribute("/", "precision", std::string(core::precision_name(settings.precision)));
  file.attribute("/", "boundary", describe(settings.boundary));
  file.attribute("/", "source", settings.source.describe());
  file.attribute("/", "trident_version", BuildInfo::trident_version());
  file.commit();
}

std::int64_t checkpoint_step(const std::string& path, const DiffusionSettings& s) {
  const io::InputFile file(path, "checkpoint (--restart)");
  const auto mismatch = [&](const std::string& key, const std::string& in_file, const std::string& in_deck) {
    throw InputError(path + ": the checkpoint was written with diffusion." + key + " = " + in_file +
                     ", but the deck has " + in_deck + "; restart with the deck that wrote it");
  };
  if (!file.has("/field")) throw InputError(path + ": not a trident diffusion checkpoint (no /field dataset)");
  const std::int64_t nx = file.integer_attribute("/", "nx"), ny = file.integer_attribute("/", "ny");
  if (nx != s.nx) mismatch("nx", std::to_string(nx), std::to_string(s.nx));
  if (ny != s.ny) mismatch("ny", std::to_string(ny), std::to_string(s.ny));
  const double c = file.real_attribute("/", "c"), dt = file.real_attribute("/", "dt");
  if (c != s.c) mismatch("c", io::exact_text(c), io::exact_text(s.c));
  const std::string c_field = file.has_attribute("/", "c_field") ? file.string_attribute("/", "c_field") : "none";
  const std::string wanted_field = s.c_field() ? "file " + s.c_file + " dataset " + s.c_dataset : "none";
  if (c_field != wanted_field) mismatch("c", "'" + c_field + "'", "'" + wanted_field + "'");
  const double D = file.has_attribute("/", "D") ? file.real_attribute("/", "D") : 0.0;
  if (D != s.D) mismatch("D", D > 0 ? io::exact_text(D) : "(none)", s.D > 0 ? io::exact_text(s.D) : "(none)");
  if (dt != s.dt) mismatch("dt", io::exact_text(dt), io::exact_text(s.dt));
  const auto real_or = [&](const char* name, double absent) {
    return file.has_attribute("/", name) ? file.real_attribute("/", name) : absent;
  };
  const double dx = real_or("dx", 1.0), dy = real_or("dy", 1.0);
  if (dx != s.dx) mismatch("dx", io::exact_text(dx), io::exact_text(s.dx));
  if (dy != s.dy) mismatch("dy", io::exact_text(dy), io::exact_text(s.dy));
  std::vector<double> origin = file.real_attribute_values("/", "origin");
  if (origin.empty()) origin = {0.0, 0.0};
  const auto pair = [](double x, double y) { return "[" + io::exact_text(x) + ", " + io::exact_text(y) + "]"; };
  if (origin.size() != 2 || origin[0] != s.origin[0] || origin[1] != s.origin[1]) {
    std::string written;
    for (const double v : origin) written += (written.empty() ? "" : ", ") + io::exact_text(v);
    mismatch("origin", "[" + written + "]", pair(s.origin[0], s.origin[1]));
  }
  // Checkpoints written before diffusion.boundary existed ran the default.
  const std::string boundary = file.has_attribute("/", "boundary") ? file.string_attribute("/", "boundary")
                                                                    : describe(std::array<Boundary, 4>{});
  if (boundary != describe(s.boundary)) mismatch("boundary", "'" + boundary + "'", "'" + describe(s.boundary) + "'");
  const std::string source = file.has_attribute("/", "source") ? file.string_attribute("/", "source") : "none";
  if (source != s.source.describe()) mismatch("source", "'" + source + "'", "'" + s.source.describe() + "'");
  const std::string precision = file.string_attribute("/", "precision"), wanted = core::precision_name(s.precision);
  if (precision != wanted) mismatch("precision", precision, wanted);
  const std::int64_t step = file.integer_attribute("/", "step");
  if (step < 0 || step > s.steps) {
    throw InputError(path + ": the checkpoint is at step " + std::to_string(step) +
                     ", past diffusion.steps = " + std::to_string(s.steps));
  }
  return step;
}

std::string checkpoint_output(const std::string& path) {
  const io::InputFile file(path, "checkpoint (--restart)");
  return file.has_attribute("/", "output") ? file.string_attribute("/", "output") : std::string();
}

template <class T>
std::vector<T> read_checkpoint_block(const std::string& path, const Decomposition& d) {
  const io::InputFile file(path, "checkpoint (--restart)");
  return file.read<T>("/field", {static_cast<std::uint64_t>(d.y().offset), static_cast<std::uint64_t>(d.x().offset)},
                      {static_cast<std::uint64_t>(d.y().size), static_cast<std::uint64_t>(d.x().size)});
}

template void write_checkpoint<float>(MPI_Comm, const std::string&, const DiffusionSettings&,
                                      std::int64_t, const Decomposition&, const std::vector<float>&,
                                      const std::string&);
template void write_checkpoint<double>(MPI_Comm, const std::string&, const DiffusionSettings&,
                                       std::int64_t, const Decomposition&, const std::vector<double>&,
                                       const std::string&);
template std::vector<float> read_checkpoint_block<float>(const std::string&, const Decomposition&);
template std::vector<double> read_checkpoint_block<double>(const std::string&, const Decomposition&);

}  // namespace trident::diffusion
