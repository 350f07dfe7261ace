#pragma once
// A fourth study that lives in this test folder alone: `tally: {count: N, offset: S}` writes
// /tally/values[i] = S + i² for i < N, each rank its balanced share. It shows what a study
// must bring (core/study.hpp) and that trident's commands take it from one table line.
#include "core/study.hpp"

namespace trident::tally {

// "tally": the section `tally:`, checkpoints marked by /tally/done (it writes none).
Study study();

}  // namespace trident::tally
