// The table of studies (app/study_table.hpp): a new study is one line here.
#include "app/study_table.hpp"

#include <stdexcept>

#include "diffusion/diffusion.hpp"
#include "knn/knn.hpp"
#include "ridge/ridge.hpp"

namespace trident::app {

namespace {

std::vector<Study>& table() {
  static std::vector<Study> studies = {
      diffusion::study(),
      knn::study(),
      ridge::study(),
  };
  return studies;
}

}  // namespace

const std::vector<Study>& study_table() { return table(); }

void add_study(Study study) {
  for (const Study& s : table())
    if (s.name == study.name) throw std::logic_error("add_study: a study named " + study.name + " exists");
  table().push_back(std::move(study));
}

}  // namespace trident::app
