// The fused engine's set-up (A and A^T in the device layout, b, the products' scratch)
// and one iteration's launches, in the order solve() queues or records them.
#include "ridge/detail/fused_engine.hpp"

#include <memory>

namespace trident::ridge {

namespace fused {

namespace {

// Whether the iterations are recorded once and replayed (CUDA graphs): on CUDA builds
// unless switched off. On several row ranks an all-reduce through NCCL or MPI stays outside
// the recordings (between the replays of the launches before it and after it): NCCL's
// recorded all-reduce made the iteration slower, and an MPI one waits on the host, which a
// recording cannot hold. A sum through peer memory (transport::PeerSum) is one kernel, recorded
// with the rest (record_iterations).
bool iteration_graphs_wanted(const core::Switch graphs) {
#if defined(KOKKOS_ENABLE_CUDA)
  return graphs != core::Switch::off;
#else
  (void)graphs;
  return false;
#endif
}

// A's entries on the device, when they are to be placed there: A and A^T in M with their
// indices and padding (about a quarter past the entries) fit beside them.
template <class M>
std::unique_ptr<DeviceEntries> staged_entries(const HostCsr& a, const core::Switch setting) {
  const std::int64_t layouts = 2 * a.nonzeros() * static_cast<std::int64_t>(sizeof(M) + sizeof(int)) * 5 / 4;
  if (!entries_on_device_wanted(setting, a, layouts)) return nullptr;
  return std::make_unique<DeviceEntries>(a);
}

}  // namespace

template <class M, class S>
FusedEngine<M, S>::FusedEngine(const Problem& p, transport::DeviceComm* rows_comm, const EngineOptions& options)
    : rows_(p.a.rows),
      columns_(p.a.columns),
      rows_comm_(rows_comm),
      entries_(staged_entries<M>(p.a, options.device_setup)),
      a_(DeviceCsr<M>::scheduled(p.a, "trident::ridge::A", row_lanes(sizeof(S)), sizeof(S), options.schedule,
                                 entries_.get())),
      at_(DeviceCsr<M>::transpose_of(p.a, "trident::ridge::At", row_lanes(sizeof(S)), sizeof(S), options.schedule,
                                     entries_.get())),
      graphs_wanted_(iteration_graphs_wanted(options.iteration_graphs)),
      recurrences_apart_(rows_comm == nullptr && finish_threads(at_) > kMostThreadsWithRecurrences) {
  placed_on_device_ = entries_ != nullptr;
  entries_.reset();
  b_ = Vector<S>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::b"), rows_);
  b64_ = Kokkos::View<double*, RidgeDevice>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::b64"),
                                            rows_);
  auto b = Kokkos::create_mirror_view(b_);
  auto b64 = Kokkos::create_mirror_view(b64_);
  for (int i = 0; i < rows_; ++i) {
    b(i) = static_cast<S>(p.b[i]);
    b64(i) = p.b[i];
  }
  Kokkos::deep_copy(b_, b);
  Kokkos::deep_copy(b64_, b64);
  products_ = RowProductScratch({&a_, &at_});
}

template <class M, class S>
std::string FusedEngine<M, S>::product_layout() const {
  return "A: " + a_.schedule.describe() + "; A^T: " + at_.schedule.describe() +
         (placed_on_device_ ? "; entries placed on the device" : "; entries placed on the host") +
         (graphs_wanted_ ? "; iterations recorded once and replayed (CUDA graphs)" : "") +
         (recurrences_apart_ ? "; recurrences in a launch of their own" : "");
}

template <class M, class S>
void FusedEngine<M, S>::lay_out_buffer(const int lambdas) {
  buffer_ = Kokkos::View<double*, RidgeDevice>("trident::ridge::reduced", 1 + lambdas + at_.work_items);
  beta2_share_ = ShareHead(buffer_.data());
  normx2_shares_ = Kokkos::subview(buffer_, Kokkos::make_pair(std::int64_t(1), std::int64_t(1) + lambdas));
  shares_ = Kokkos::subview(buffer_, Kokkos::make_pair(std::int64_t(1) + lambdas, 1 + lambdas + at_.work_items));
}

template <class M, class S>
void FusedEngine<M, S>::queue_w_shares(const Vector<S>& u, const int* done) {
  launch_row_sums("trident::ridge::next_w_share", at_, u, shares_, done);
}

template <class M, class S>
void FusedEngine<M, S>::queue_all_reduce() {
  rows_comm_->all_reduce_sum(RidgeExec(), buffer_.data(), reduced_count());
}

template <class M, class S>
void FusedEngine<M, S>::queue_update(const SweepState<S>& s, const std::int64_t k) {
  if (s.count == 0) return;
  const UpdateSolutions<S> update{s.v[k % 2], s.v[(k + 1) % 2], s.w,           s.h,           s.hbar,
                                  s.x,        s.state,          s.coefficients, s.chunk_norms, s.chunks_done,
                                  s.normx2,   columns_,         s.chunks,       s.first_chunk, s.own_chunks};
  Kokkos::parallel_for("trident::ridge::update_solutions",
                       light(Kokkos::TeamPolicy<RidgeExec>(update.league(), Kokkos::AUTO)), update);
}

template <class M, class S>
void FusedEngine<M, S>::queue_before_sums(const SweepState<S>& s, const AdvanceRecurrences& advance,
                                          const std::int64_t k) {
  const Vector<S>& v_old = s.v[k % 2];
  if (rows_comm_ != nullptr) {
    launch_row_products("trident::ridge::next_u", a_, v_old, NextU<S>{s.u, s.state}, products_, beta2_share_, s.done);
    queue_w_shares(s.u, s.done);
    return;
  }
  launch_row_products("trident::ridge::next_u", a_, v_old, NextU<S>{s.u, s.state}, products_, s.beta2, s.done);
  if (recurrences_apart_) {
    launch_row_products("trident::ridge::next_w", at_, s.u, NextW<S>{s.w, v_old, s.beta2}, products_, s.alpha_beta2,
                        s.done);
    Kokkos::parallel_for("trident::ridge::advance_recurrences", light(Kokkos::RangePolicy<RidgeExec>(0, kWarpLanes)),
                         AdvanceAlone{advance});
  } else {
    launch_row_products("trident::ridge::next_w_advance", at_, s.u, NextW<S>{s.w, v_old, s.beta2}, products_,
                        s.alpha_beta2, s.done, advance);
  }
  queue_update(s, k);
}

template <class M, class S>
void FusedEngine<M, S>::queue_after_sums(const SweepState<S>& s, const AdvanceRecurrences& advance,
                                         const std::int64_t k) {
  queue_w_from_sums(s.v[k % 2], s.w, s.beta2, s.alpha_beta2, s.done, AdvanceAfterReduction{advance, buffer_});
  queue_update(s, k);
}

template <class M, class S>
void FusedEngine<M, S>::queue_iteration(const SweepState<S>& s, const AdvanceRecurrences& advance,
                                        const std::int64_t k) {
  queue_before_sums(s, advance, k);
  if (rows_comm_ == nullptr) return;
  queue_all_reduce();
  queue_after_sums(s, advance, k);
}

template class FusedEngine<float, float>;
template class FusedEngine<float, double>;
template class FusedEngine<double, double>;

}  // namespace fused

std::unique_ptr<SweepSolver::Engine> make_fused_engine(const Problem& problem, core::Precision precision,
                                                       transport::DeviceComm* rows_comm, const EngineOptions& options) {
  return make_typed_engine<fused::FusedEngine>(problem, precision, rows_comm, options);
}

}  // namespace trident::ridge
