// ridge.lambda_groups against the job's rank count: refused exactly when the groups do not
// divide the ranks, fewer groups than ranks included (2 groups on 3 ranks), whatever the
// rank count the MPI tests happen to run on.
#include <gtest/gtest.h>

#include "support/test_support.hpp"

#include "deck/deck.hpp"
#include "support/study_decks.hpp"

namespace trident::ridge {
namespace {

TEST(RidgeLambdaGroups, RefusedExactlyWhenTheyDoNotDivideTheRanks) {
  const RidgeSettings deck = *trident::test::read_deck_text(
      "ridge:\n"
      "  matrix: {generate: {rows: 20, columns: 10, density: 0.5}}\n"
      "  lambdas: [0.1, 1]\n"
      "  lambda_groups: 2\n",
      "d.yaml", "/decks").ridge;
  for (int groups = 0; groups <= 9; ++groups) {
    for (int ranks = 1; ranks <= 8; ++ranks) {
      RidgeSettings s = deck;
      s.lambda_groups = groups;
      const std::string message = trident::test::input_error_message([&] { check_lambda_groups(s, ranks); });
      if (groups == 0 || ranks % groups == 0) {
        EXPECT_EQ(message, "no error") << groups << " groups on " << ranks << " ranks";
      } else {
        EXPECT_EQ(message, "d.yaml:4:18: ridge.lambda_groups: " + std::to_string(groups) + " groups do not divide the " +
                               std::to_string(ranks) + " ranks; give a divisor of " + std::to_string(ranks) +
                               ", or 0 to let the run choose")
            << groups << " groups on " << ranks << " ranks";
      }
    }
  }
}

}  // namespace
}  // namespace trident::ridge
