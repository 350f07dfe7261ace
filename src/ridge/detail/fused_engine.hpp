#pragma once
// The fused engine of the λ sweep (make_fused_engine), private to ridge. On one rank an
// iteration is five launches that never wait for the host: A v, whose second pass also
// stores u and sums ||u||^2 into device memory; A^T u, whose second pass stores w, sums
// ||A^T u - beta^2 v||^2, and in the warp that ends it tests and advances every λ's
// recurrences (fused_recurrences.hpp; a launch of their own after it when A^T has many
// rows); and the update of v and of each λ's h, hbar and x, a team per λ and chunk of
// columns (fused_kernels.hpp). On several row ranks A^T u's sums go to an all-reduce, and
// the pass after it stores w, sums its norm and advances the recurrences; there each rank
// updates h, hbar and x over its own share of the columns only (v over all of them), and
// its share of every ||x_λ||^2 rides the next iteration's all-reduce. The host queues a
// block of iterations and then looks at a stop flag the device left in pinned memory, so a
// sweep pays one round trip per block instead of one per iteration; a λ that stops freezes
// at once, and once every λ has stopped the iterations still queued skip their products
// and change nothing. On CUDA the iteration's launches are recorded once as a graph and
// replayed (transport::QueueRecording).
// fused_engine.cpp holds the set-up and one iteration's launches; fused_solve.cpp the
// steps of solve().
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transport/device_comm.hpp"
#include "transport/queue_recording.hpp"
#include "ridge/detail/device_csr.hpp"
#include "ridge/detail/device_tuning.hpp"
#include "ridge/detail/engine_options.hpp"
#include "ridge/detail/fused_kernels.hpp"
#include "ridge/detail/fused_recurrences.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/row_products.hpp"
#include "ridge/detail/sweep_engine.hpp"

namespace trident::ridge::fused {

// The device state of one solve(): the bidiagonalization's vectors, each λ's h, hbar, x
// and recurrence, and what the launches share (scalars, the state, the stop flag).
// Iteration k reads v[k % 2] and forms v[(k + 1) % 2].
template <class S>
struct SweepState {
  int count = 0;   // λ
  int chunks = 0;  // of the update's columns
  // this rank's chunks of columns for h, hbar and x: all on one rank
  int first_chunk = 0, own_chunks = 0;
  Vector<S> u;
  Vector<S> v[2];
  Vector<S> w;  // A^T u before it becomes the next v
  Block<S> h, hbar, x;
  Kokkos::View<double, RidgeDevice> beta2, alpha_beta2;
  Kokkos::View<double*, RidgeDevice> normx2;
  Kokkos::View<double**, RidgeDevice> chunk_norms;
  Kokkos::View<int*, RidgeDevice> chunks_done;
  StateView state;
  Kokkos::View<LsmrRecurrence*, RidgeDevice> recurrences;
  Kokkos::View<UpdateCoefficients*, RidgeDevice> coefficients;
  Kokkos::View<std::int64_t[2], StatusSpace> status;  // iterations, all stopped
  const int* done = nullptr;  // iterations queued after the last λ stopped skip the products
};

// The iteration recorded for each parity of k, in one part, or in two (the launches before
// the all-reduce and those after it) when the all-reduce cannot be recorded.
struct IterationRecordings {
  transport::QueueRecording recorded[2][2];
  int parts = 1;
  bool replay = false;
};

// The start of the bidiagonalization: beta = ||b||, alpha = ||A^T b|| / beta.
struct Start {
  double beta_squared = 0, beta = 0, alpha = 0;
};

// M: the matrices' scalar; S: the vectors'.
template <class M, class S>
class FusedEngine final : public SweepSolver::Engine {
 public:
  FusedEngine(const Problem& p, transport::DeviceComm* rows_comm, const EngineOptions& options);

  std::int64_t bytes_per_iteration() const override { return a_.product_bytes() + at_.product_bytes(); }
  std::string product_layout() const override;

  void solve(const std::vector<double>& lambdas, const StoppingRules& rules, bool keep_solutions,
             const IterationHook& on_iteration, SweepOutcome& out) override;
  // GCV's probes on a_ and at_ (fused_probes.cpp).
  ProbeNorms bidiagonalize_probes(const ProbeStart& start, std::int64_t steps, const ProbeCheck& enough) override;

 private:
  // The steps of solve() (fused_solve.cpp), in their order.
  SweepState<S> allocate(int count);
  void warm_up(SweepState<S>& s);
  Start start_bidiagonalization(SweepState<S>& s);
  void load_first_iteration(SweepState<S>& s, const Start& start, const std::vector<LsmrRecurrence>& lambdas);
  void record_iterations(const SweepState<S>& s, const AdvanceRecurrences& advance, IterationRecordings& r);
  void iterate(SweepState<S>& s, const AdvanceRecurrences& advance, IterationRecordings& r,
               const StoppingRules& rules, const IterationHook& on_iteration, std::int64_t& queued);
  std::vector<double> residual_norms(const SweepState<S>& s);

  // One iteration's launches (fused_engine.cpp). On several row ranks it is the launches
  // before the all-reduce, the all-reduce, and the launches after it; on one rank all of
  // its launches come "before".
  void queue_iteration(const SweepState<S>& s, const AdvanceRecurrences& advance, std::int64_t k);
  void queue_before_sums(const SweepState<S>& s, const AdvanceRecurrences& advance, std::int64_t k);
  void queue_after_sums(const SweepState<S>& s, const AdvanceRecurrences& advance, std::int64_t k);
  void queue_update(const SweepState<S>& s, std::int64_t k);

  // Queues w <- A^T u summed over the row ranks (in double, then rounded to S), beta^2 <-
  // ||u||^2 (this rank's share in beta2_share_) likewise, and (alpha beta)^2 <- ||w - beta^2 v||^2
  // into alpha_beta2, then `after` in the warp that ends that sum (FinishRows): the three
  // parts below, in turn.
  template <class After = NothingAfter>
  void queue_reduced_w(const Vector<S>& u, const Vector<S>& v_old, const Vector<S>& w,
                       const Kokkos::View<double, RidgeDevice>& beta2,
                       const Kokkos::View<double, RidgeDevice>& alpha_beta2, const int* done,
                       const After& after = After{}) {
    queue_w_shares(u, done);
    queue_all_reduce();
    queue_w_from_sums(v_old, w, beta2, alpha_beta2, done, after);
  }
  // A_i^T u_i's row sums into the all-reduce's buffer.
  void queue_w_shares(const Vector<S>& u, const int* done);
  // The buffer summed over the row ranks: its head and the first columns_ sums.
  void queue_all_reduce();
  std::size_t reduced_count() const { return 1 + normx2_shares_.extent(0) + static_cast<std::size_t>(columns_); }
  // w, beta^2 and (alpha beta)^2 from the summed buffer, then `after`.
  template <class After>
  void queue_w_from_sums(const Vector<S>& v_old, const Vector<S>& w, const Kokkos::View<double, RidgeDevice>& beta2,
                         const Kokkos::View<double, RidgeDevice>& alpha_beta2, const int* done,
                         const After& after) {
    launch_finish_rows("trident::ridge::next_w_reduced", shares_, columns_, 1, LongRowSums{}, {},
                       ReducedW<S>{buffer_, w, v_old, beta2}, products_, alpha_beta2, done, after);
  }

  int rows_, columns_;  // this rank's rows
  transport::DeviceComm* rows_comm_;  // null when this rank holds every row
  // A's entries on the device while a_ and at_ are placed from them (device_entries.hpp),
  // released once they are; null when they are placed on the host.
  std::unique_ptr<DeviceEntries> entries_;
  DeviceCsr<M> a_, at_;
  bool placed_on_device_ = false;
  // With rows_comm_ (lay_out_buffer, for each sweep's λ count): the all-reduce's buffer:
  // this rank's ||u_i||^2 (beta2_share_), its share of each λ's ||x||^2 (normx2_shares_,
  // from the last update), then A_i^T u_i's item sums (shares_), of which the first
  // columns_ are summed.
  void lay_out_buffer(int lambdas);
  using ShareHead = Kokkos::View<double, RidgeDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<double*, RidgeDevice> buffer_, normx2_shares_, shares_;
  ShareHead beta2_share_;
  Vector<S> b_;
  Kokkos::View<double*, RidgeDevice> b64_;
  RowProductScratch products_;
  bool graphs_wanted_;
  bool recurrences_apart_;  // one rank: the recurrences after A^T u's pass, not in its last warp
};

}  // namespace trident::ridge::fused
