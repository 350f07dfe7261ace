#include "knn/detail/point_ids.hpp"

#include <charconv>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace trident::knn {

std::int64_t PointIds::size() const {
  if (kind_ == Kind::integer) return static_cast<std::int64_t>(integers_.size());
  return static_cast<std::int64_t>(starts_.size());
}

std::string_view PointIds::text_view(std::int64_t i) const {
  const std::uint64_t start = starts_[static_cast<std::size_t>(i)];
  const std::uint64_t end = static_cast<std::size_t>(i + 1) < starts_.size() ? starts_[static_cast<std::size_t>(i + 1)]
                                                                               : texts_.size();
  return std::string_view(texts_).substr(start, end - start - 1);  // without the NUL
}

PointIds PointIds::empty(Kind kind) {
  PointIds p;
  p.kind_ = kind;
  return p;
}

PointIds PointIds::from_integers(std::vector<std::int64_t> ids) {
  PointIds p;
  p.kind_ = Kind::integer;
  p.integers_ = std::move(ids);
  return p;
}

void PointIds::add_text(std::string_view id) {
  kind_ = Kind::text;
  starts_.push_back(texts_.size());
  texts_.append(id);
  texts_.push_back('\0');
}

bool plain_integer(std::string_view text, std::int64_t& value) {
  const std::size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() <= digits || text[digits] < '0' || text[digits] > '9') return false;
  if (text[digits] == '0' && (text.size() > digits + 1 || digits == 1)) return false;  // 007, -0
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && at == end;
}

bool PointIds::texts_are_integers() const {
  if (kind_ != Kind::text) return false;
  std::int64_t v = 0;
  for (std::int64_t i = 0; i < size(); ++i)
    if (!plain_integer(text_view(i), v)) return false;
  return true;
}

void PointIds::texts_to_integers() {
  std::vector<std::int64_t> values(starts_.size());
  for (std::int64_t i = 0; i < size(); ++i) plain_integer(text_view(i), values[static_cast<std::size_t>(i)]);
  *this = from_integers(std::move(values));
}

PointIds PointIds::from_text_bytes(std::string bytes) {
  PointIds p;
  p.kind_ = Kind::text;
  p.texts_ = std::move(bytes);
  std::uint64_t start = 0;
  for (std::uint64_t i = 0; i < p.texts_.size(); ++i) {
    if (p.texts_[i] != '\0') continue;
    p.starts_.push_back(start);
    start = i + 1;
  }
  return p;
}

void settle_ids(PointIds& ids, const PointSource& source, std::int64_t first, MPI_Comm comm) {
  if (!source.has_ids()) return;
  using Kind = PointIds::Kind;
  // [0]: some rank holds integers, [1]: some rank holds texts, [2]: some rank's texts are
  // not all plain integers
  std::vector<int> seen{ids.kind() == Kind::integer ? 1 : 0, ids.kind() == Kind::text && ids.size() > 0 ? 1 : 0,
                        ids.kind() == Kind::text && !ids.texts_are_integers() ? 1 : 0};
  mpi::max_over_ranks(comm, seen.data(), 3);
  const bool integers = seen[0] != 0 || (source.kind == PointSource::Kind::csv && seen[2] == 0);
  if (integers && ids.kind() == Kind::text) ids.texts_to_integers();
  if (ids.size() == 0) ids = PointIds::empty(integers ? Kind::integer : Kind::text);
  mpi::collective(comm, [&] {
    if (ids.kind() != Kind::integer) return;
    const std::vector<std::int64_t>& values = ids.integers();
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] != kIntegerIdFill) continue;
      const std::int64_t point = first + static_cast<std::int64_t>(i);
      const std::string at = source.kind == PointSource::Kind::csv ? "row " + std::to_string(point + 1) : "entry " + std::to_string(point);
      throw InputError(source.file + ": " + at + " of " + source.ids_key() + ": the id " + std::to_string(kIntegerIdFill) +
                       " is the value the output keeps for unfinished rows; give the point another id");
    }
  });
}

}  // namespace trident::knn
