// trident with a fourth study, from this folder: the executable's main (src/app/main.cpp)
// and one line more, the study's line of the table.
#include "app/commands.hpp"
#include "app/study_table.hpp"
#include "core/runtime.hpp"
#include "core/signals.hpp"
#include "tally_study.hpp"

int main(int argc, char** argv) {
  trident::signals::install();
  trident::app::add_study(trident::tally::study());
  trident::Runtime runtime(argc, argv);
  return trident::app::application(runtime);
}
