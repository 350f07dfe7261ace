// Times the diffusion study's three start fields (gaussian, file, jagged) on this job's
// ranks, as a run builds them: each rank its block of the study's decomposition, in
// float32 on the device. Prints one line per kind: the first build (a run builds it once:
// library start-up and FFT plans included), the best of REPEATS, and the rate beside the
// device's copy bandwidth (measured here) or, for the file, the bytes read per second.
//
//   mpirun -n P trident_start_field_bench NX NY FILE [REPEATS]
// FILE is written (float32, dataset /u, the gaussian field) unless it exists.
#include <hdf5.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "diffusion/bench.hpp"

namespace {

using trident::diffusion::Decomposition;
using Block = Kokkos::View<float**, Kokkos::LayoutRight>;

void write_file(const std::string& path, std::int64_t nx, std::int64_t ny) {
  trident::diffusion::StartField g;
  g.kind = trident::diffusion::StartField::Kind::gaussian;
  Block block("bench::whole", ny, nx);
  trident::diffusion::fill_start_block<float>(MPI_COMM_SELF, g, nx, ny, {0, nx}, {0, ny}, block);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block);
  const hsize_t dims[2] = {static_cast<hsize_t>(ny), static_cast<hsize_t>(nx)};
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  const hid_t d = H5Dcreate2(f, "/u", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, host.data());
  H5Dclose(d);
  H5Sclose(space);
  H5Fclose(f);
}

// Device copy bandwidth, bytes read + written per second, the best of 5 copies.
double copy_bandwidth(std::int64_t cells) {
  Kokkos::View<float*> a("bench::a", cells), b("bench::b", cells);
  double best = 1e30;
  for (int r = 0; r < 6; ++r) {
    Kokkos::fence();
    const double t0 = MPI_Wtime();
    Kokkos::deep_copy(b, a);
    Kokkos::fence();
    if (r > 0) best = std::min(best, MPI_Wtime() - t0);
  }
  return 2.0 * 4.0 * static_cast<double>(cells) / best;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    if (argc < 4) {
      std::fprintf(stderr, "usage: %s NX NY FILE [REPEATS]\n", argv[0]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const std::int64_t nx = std::atoll(argv[1]), ny = std::atoll(argv[2]);
    const std::string file = argv[3];
    const int repeats = argc > 4 ? std::atoi(argv[4]) : 3;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct stat info {};
    if (rank == 0 && stat(file.c_str(), &info) != 0) write_file(file, nx, ny);
    MPI_Barrier(MPI_COMM_WORLD);
    const Decomposition d(MPI_COMM_WORLD, nx, ny, {0, 0});
    Block block("bench::block", d.y().size, d.x().size);
    const double bandwidth = copy_bandwidth(d.x().size * d.y().size);
    const double field_bytes = 4.0 * static_cast<double>(nx) * static_cast<double>(ny);
    if (rank == 0)
      std::printf("start fields, %lld x %lld float32, %d rank%s (%d x %d blocks), device copy %.3g B/s per rank\n",
                  static_cast<long long>(nx), static_cast<long long>(ny), size, size == 1 ? "" : "s", d.dims()[1],
                  d.dims()[0], bandwidth);
    for (const auto kind : {trident::diffusion::StartField::Kind::gaussian, trident::diffusion::StartField::Kind::file,
                            trident::diffusion::StartField::Kind::jagged}) {
      trident::diffusion::StartField start;
      start.kind = kind;
      start.file = file;
      start.dataset = "/u";
      double first = 0, best = 1e30;
      for (int r = 0; r <= repeats; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        trident::diffusion::fill_start_block<float>(d.cart(), start, nx, ny, d.x(), d.y(), block);
        Kokkos::fence();
        MPI_Barrier(MPI_COMM_WORLD);
        const double t = MPI_Wtime() - t0;
        if (r == 0) first = t;
        best = std::min(best, t);
      }
      if (rank != 0) continue;
      if (kind == trident::diffusion::StartField::Kind::file) {
        std::printf("%-8s first %.4f s  best %.4f s  %.3g B/s read (file of %.3g B)  target >= 1.5e9 B/s\n",
                    trident::diffusion::start_kind_name(kind), first, best, field_bytes / best, field_bytes);
      } else {
        // the floor: writing the field once at the device's copy rate (half of read + write)
        const double floor = field_bytes / size / (bandwidth / 2);
        std::printf("%-8s first %.4f s  best %.4f s  floor %.2e s (field written once)  ratio %.0f\n", trident::diffusion::start_kind_name(kind),
                    first, best, floor, best / floor);
      }
    }
  }
  MPI_Finalize();
  return 0;
}
