// Test main for every suite: MPI first, then Kokkos; the result is combined over ranks
// so that a failure on any rank fails the test on all of them.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/log.hpp"
#include "core/runtime.hpp"

namespace {

// On ranks other than 0 only failures are printed, prefixed with the rank.
class FailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  trident::Runtime runtime(argc, argv);
  runtime.start_device();
  testing::InitGoogleTest(&argc, argv);
  trident::log::set_quiet(true);
  const int rank = runtime.binding().world_rank;
  if (rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_failed;
}
