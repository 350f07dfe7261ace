#include "diffusion/detail/source.hpp"

#include "core/comm.hpp"
#include "diffusion/detail/start_file.hpp"

namespace trident::diffusion {

template <class T>
void Source<T>::add(const ExecutionSpace& space, const Grid<T>& next, const Box& box, std::int64_t step,
                    const Kokkos::View<std::int64_t>& first_bad) const {
  if (kind == Kind::none || box.empty()) return;
  const T s = value;
  const Grid<T> f = field;
  const bool constant = kind == Kind::constant;
  Kokkos::parallel_for(
      "trident::diffusion::source",
      Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>(space, {box.y0, box.x0}, {box.y1, box.x1}),
      KOKKOS_LAMBDA(const int j, const int i) {
        const T v = next(j, i) + (constant ? s : f(j, i));
        next(j, i) = v;
        if (!(v - v == T(0))) (void)Kokkos::atomic_fetch_min(&first_bad(), step + 1);
      });
}

template <class T>
Source<T> read_source(const SourceSettings& s, const Decomposition& d, int width) {
  Source<T> source;
  if (!s.present()) return source;
  if (!s.from_file) {
    source.kind = Source<T>::Kind::constant;
    source.value = static_cast<T>(s.value);
    return source;
  }
  source.kind = Source<T>::Kind::field;
  const std::int64_t ny = d.y().size, nx = d.x().size;
  source.field = Grid<T>("trident::diffusion::source", ny + 2 * width, nx + 2 * width);
  Kokkos::View<T**, Kokkos::LayoutRight> block("trident::diffusion::source_block", ny, nx);
  const StartField file = s.as_file();
  mpi::collective(d.cart(), [&] {
    fill_block_from_file<T>(file, d.nx(), d.ny(), d.x(), d.y(), block, kStartSlabBytes, kSourceFileRole);
  });
  load_interior<T>(block, source.field);
  Kokkos::fence();
  return source;
}

template struct Source<float>;
template struct Source<double>;
template Source<float> read_source<float>(const SourceSettings&, const Decomposition&, int);
template Source<double> read_source<double>(const SourceSettings&, const Decomposition&, int);

}  // namespace trident::diffusion
