#include "diffusion/stepper.hpp"

#include <mpi.h>

namespace trident::diffusion {

template <class T>
Stepper<T>::Stepper(const Decomposition& d, const core::TransportChoice& transport, int width)
    : d_(d), width_(width), alone_(d.alone()) {
  const int nx = static_cast<int>(d.x().size), ny = static_cast<int>(d.y().size);
  interior_ = {width_, width_ + ny, width_, width_ + nx};
  toward_[0] = d.west() != MPI_PROC_NULL;
  toward_[1] = d.east() != MPI_PROC_NULL;
  toward_[2] = d.south() != MPI_PROC_NULL;
  toward_[3] = d.north() != MPI_PROC_NULL;
  if (alone_) return;
  comm_ = std::make_unique<core::DeviceComm>(d.cart(), transport);
  halo_ = std::make_unique<HaloExchange<T>>(d, *comm_, width_);
  wait_clock_ = std::make_unique<core::QueueWaitClock>();
}

template <class T>
std::string Stepper<T>::describe() const {
  if (alone_) return "not needed (one block)";
  return std::to_string(width_) + (width_ == 1 ? " cell deep every step" : " cells deep every " +
                                                       std::to_string(width_) + " steps") +
         ", overlapped with the inside of the block, through " + comm_->choice().describe();
}

template <class T>
Box Stepper<T>::extended(int depth) const {
  return {interior_.y0 - (toward_[2] ? depth : 0), interior_.y1 + (toward_[3] ? depth : 0),
          interior_.x0 - (toward_[0] ? depth : 0), interior_.x1 + (toward_[1] ? depth : 0)};
}

template <class T>
void Stepper<T>::advance(const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c, std::int64_t step,
                         const Kokkos::View<std::int64_t>& first_bad) {
  const ExecutionSpace compute;
  if (alone_) {
    diffusion::step<T>(compute, u, next, laplacian, c, step, first_bad, interior_);
    return;
  }
  if (valid_ >= 1) {
    diffusion::step<T>(compute, u, next, laplacian, c, step, first_bad, extended(valid_ - 1));
    --valid_;
    return;
  }
  // The inside: the block less one cell along each edge that has a neighbour.
  const Box inside = {interior_.y0 + (toward_[2] ? 1 : 0), interior_.y1 - (toward_[3] ? 1 : 0),
                      interior_.x0 + (toward_[0] ? 1 : 0), interior_.x1 - (toward_[1] ? 1 : 0)};
  halo_->start(compute, u);
  diffusion::step<T>(compute, u, next, laplacian, c, step, first_bad, inside);
  wait_clock_->begin(compute);
  halo_->finish(compute, u);
  wait_clock_->end(compute);
  diffusion::step_ring<T>(compute, u, next, laplacian, c, step, first_bad, extended(width_ - 1), inside);
  valid_ = width_ - 1;
}

template <class T>
void Stepper<T>::refresh(const Grid<T>& u) {
  if (alone_ || valid_ >= 1) return;
  const ExecutionSpace compute;
  halo_->exchange(compute, u);
  valid_ = width_;
}

template <class T>
double Stepper<T>::take_halo_wait_seconds() {
  return wait_clock_ ? wait_clock_->take_seconds() : 0.0;
}

template class Stepper<float>;
template class Stepper<double>;

}  // namespace trident::diffusion
