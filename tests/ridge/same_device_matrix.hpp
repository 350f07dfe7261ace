#pragma once
// Two device layouts of a matrix compared array for array, bit for bit (values compare equal
// exactly when their bits do, but ±0): the shape, the schedule, the offsets and work items,
// the segments, the indices of either width and the values. For the layouts built two ways
// (straight into A^T's layout, or on the device) against the host's.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include "ridge/detail/device_csr.hpp"

namespace trident::ridge::test {

template <class M>
void expect_same_device_matrix(const DeviceCsr<M>& got, const DeviceCsr<M>& want) {
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.columns, want.columns);
  EXPECT_EQ(got.lanes, want.lanes);
  EXPECT_EQ(got.stored, want.stored);
  EXPECT_EQ(got.work_items, want.work_items);
  EXPECT_EQ(got.schedule.describe(), want.schedule.describe());
  const auto same = [](const auto& a, const auto& b, const char* what) {
    const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
    const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
    ASSERT_EQ(ha.extent(0), hb.extent(0)) << what;
    for (std::size_t k = 0; k < ha.extent(0); ++k) ASSERT_EQ(ha(k), hb(k)) << what << " at " << k;
  };
  same(got.row_ptr, want.row_ptr, "row_ptr");
  same(got.work_begin, want.work_begin, "work_begin");
  same(got.work_end, want.work_end, "work_end");
  EXPECT_EQ(got.bands, want.bands);
  EXPECT_EQ(got.band_columns, want.band_columns);
  same(got.long_rows, want.long_rows, "long_rows");
  same(got.further_first, want.further_first, "further_first");
  same(got.narrow, want.narrow, "narrow indices");
  same(got.wide, want.wide, "wide indices");
  same(got.values, want.values, "values");
}

}  // namespace trident::ridge::test
