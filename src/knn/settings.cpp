#include "knn/settings.hpp"

#include "deck/reader.hpp"

#include <cstdio>
#include <vector>

#include "core/error.hpp"

namespace trident::knn {

using deck::at_least;
using deck::greater_than;
using deck::printable;
using deck::Section;

using core::Precision;

namespace {

PointSource parse_points(const Section& knn, const std::string& key) {
  const Section s = knn.section(key, {"generate", "csv", "hdf5"});
  PointSource p;
  p.key = s.path();
  s.require_one_key();
  if (s.has("generate")) {
    const Section g = s.section("generate", {"count", "seed"});
    p.kind = PointSource::Kind::generate;
    p.count = g.integer("count", at_least(1));
    p.seed = static_cast<std::uint64_t>(g.integer("seed", at_least(0), 1));
  } else if (s.has("csv")) {
    const Section c = s.section("csv", {"file", "latitude", "longitude", "id"});
    p.kind = PointSource::Kind::csv;
    p.file = c.file("file");
    p.latitude = c.text("latitude", "latitude");
    p.longitude = c.text("longitude", "longitude");
    if (c.has("id")) p.ids = c.text("id");
  } else {
    const Section h = s.section("hdf5", {"file", "dataset", "ids"});
    p.kind = PointSource::Kind::hdf5;
    p.file = h.file("file");
    p.dataset = h.text("dataset");
    if (h.has("ids")) p.ids = h.text("ids");
  }
  return p;
}

}  // namespace

const char* method_name(KnnMethod method) {
  return method == KnnMethod::brute ? "brute" : method == KnnMethod::index ? "index" : "auto";
}

std::string PointSource::ids_key() const { return key + (kind == Kind::csv ? ".csv.id" : ".hdf5.ids"); }

// Without ids the text is what it was before ids existed, so older checkpoints still match.
std::string PointSource::describe() const {
  if (kind == Kind::generate) {
    return "generate(count=" + std::to_string(count) + ", seed=" + std::to_string(seed) + ")";
  }
  if (kind == Kind::csv)
    return "csv(" + file + ", latitude=" + latitude + ", longitude=" + longitude + (has_ids() ? ", id=" + ids : "") +
           (has_radii() ? ", max_distance=" + radii : "") + ")";
  return "hdf5(" + file + ", dataset=" + dataset + (has_ids() ? ", ids=" + ids : "") +
         (has_radii() ? ", max_distance=" + radii : "") + ")";
}

std::string KnnSettings::max_distance_text() const {
  if (observations.has_radii()) return "column '" + observations.radii + "'";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", max_distance);
  return buffer;
}

KnnSettings parse_knn(const Section& top) {
  const Section s = top.section("knn", {"k", "radius", "precision", "observations", "references",
                                        "batch_size", "tile_size", "method", "max_distance", "exclude_self", "match"});
  KnnSettings d;
  const std::string k_word = s.shape("k") == Section::Shape::scalar ? s.scalar("k") : "";
  if (k_word == "all" || k_word == "count") {
    d.rows = s.choice("k", {"all", "count"}) == "all" ? KnnRows::all : KnnRows::count;  // (recorded)
  } else {
    // another word: say which words there are
    if (!k_word.empty() && k_word.find_first_not_of("+-0123456789") != std::string::npos)
      s.fail("k", "expected an integer at least 1, all or count, got '" + printable(k_word) + "'");
    d.k = s.integer("k", at_least(1), 1);
  }
  d.k_where = s.where("k");
  d.radius = s.real("radius", greater_than(0), 6371008.8);
  d.precision = s.precision("precision", {Precision::float32, Precision::float64}, Precision::float32);
  d.observations = parse_points(s, "observations");
  if (s.shape("references") == Section::Shape::scalar) {  // the one set against itself
    s.choice("references", {"observations"});
    d.self = true;
    d.references = d.observations;
  } else {
    d.references = parse_points(s, "references");
  }
  if (d.self) {
    d.exclude_self = s.boolean("exclude_self", true);
  } else if (s.has("exclude_self")) {
    s.fail("exclude_self", "applies only to a set searched against itself (knn.references: observations)");
  }
  d.batch_size = s.integer("batch_size", at_least(0), 0);
  d.tile_size = s.integer("tile_size", at_least(0), 0);
  d.method = s.enum_choice<KnnMethod>(
      "method", {{"auto", KnnMethod::automatic}, {"brute", KnnMethod::brute}, {"index", KnnMethod::index}},
      KnnMethod::automatic);
  // absent: no limit, and nothing in the resolved deck (the reader refuses .inf and .nan)
  if (s.has("max_distance") && s.shape("max_distance") == Section::Shape::mapping) {
    // each observation's own radius, from a column of its file (read and checked with the points)
    const Section m = s.section("max_distance", {"column"});
    if (d.observations.kind == PointSource::Kind::generate)
      s.fail("max_distance", "a column of radii needs observations read from a csv or hdf5 file (knn.observations is generate)");
    d.observations.radii = m.text("column");
  } else if (s.has("max_distance")) {
    d.max_distance = s.real("max_distance", at_least(0));
  }
  if (s.has("match")) {
    d.match = s.choice("match", {"best", "mutual"}) == "best" ? KnnMatch::best : KnnMatch::mutual;
    if (s.has("k")) s.fail("k", "leave k out with knn.match (a match is one reference an observation)");
    if (!d.has_max_distance()) s.fail("match", "needs knn.max_distance (how far a match may lie)");
    d.rows = KnnRows::all;  // every reference within: the best, how many, and the reverse for mutual
  }
  const std::string form = d.rows == KnnRows::all ? "all" : "count";
  if (d.rows != KnnRows::nearest && !d.has_max_distance())
    s.fail("k", "k: " + form + " (the references within a distance) needs knn.max_distance");
  if (d.references.kind == PointSource::Kind::generate) check_k(d, d.references.count);
  return d;
}

void check_k(const KnnSettings& settings, std::int64_t references) {
  if (settings.exclude_self && settings.rows == KnnRows::nearest && settings.k > references - 1) {
    throw InputError(settings.k_where + ": knn.k: expected at most the number of points less the point itself (" +
                     std::to_string(references - 1) + ", knn.exclude_self), got " + std::to_string(settings.k));
  }
  if (settings.k > references) {
    throw InputError(settings.k_where + ": knn.k: expected at most the number of references (" +
                     std::to_string(references) + "), got " + std::to_string(settings.k));
  }
}

}  // namespace trident::knn
