// deck_work DECK: prints what a valid deck would ask of `trident run`, estimated from its
// settings alone, as one line `work OPERATIONS bytes BYTES` (OPERATIONS: cell updates,
// distance pairs, nonzero products and the like, about a nanosecond each on a CPU core;
// BYTES: memory plus output). deck_fuzz.py runs only decks under its limits, so that a
// mutated size (nx: 10^9, max_iterations: 10^18, geomspace count 10^6) can make the fuzz
// test neither slow nor a danger to the machine's memory. The estimate is rough but it
// errs high, and it is decided without running anything: no timing enters the test.
// Exit 2 with trident's message when the deck is invalid.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"

namespace {

using trident::test::StudyDeck;

struct Estimate {
  double work = 0;   // operations
  double bytes = 0;  // memory and output
};

constexpr double kFileWrite = 1e6;      // an HDF5 frame or checkpoint: open, extend, flush
constexpr double kKernelLaunch = 1e4;   // a batch x tile pass of the knn search

// Points, rows, columns or nonzeros that a data file can hold: at most one per byte. The
// fuzz test's data files are its own small ones (decks cannot name others), so their size
// bounds them, whatever their header claims; a missing file holds nothing.
double file_bytes(const std::string& path) {
  std::error_code error;
  const auto bytes = std::filesystem::file_size(path, error);
  return error ? 0.0 : double(bytes);
}

double ceil_div(double a, double b) { return b > 0 ? std::ceil(a / b) : 1.0; }

Estimate diffusion(const trident::diffusion::DiffusionSettings& d) {
  const double cells = double(d.nx) * double(d.ny);
  const double fields = d.laplacian ? 2 : 1;
  const double value_bytes = d.precision == trident::core::Precision::float64 ? 8 : 4;
  const double frames = 2 + (d.output_every > 0 ? double(d.steps) / double(d.output_every) : 0);
  const double checkpoints = d.checkpoint_every > 0 ? double(d.steps) / double(d.checkpoint_every) : 0;
  Estimate e;
  e.work = cells * (double(d.steps) + 1) * 2 * fields + (frames + checkpoints) * (kFileWrite + cells);
  e.bytes = cells * value_bytes * (3 + fields) + frames * cells * value_bytes * fields;
  if (d.start.kind == trident::diffusion::StartField::Kind::jagged) {  // the FFT of the field (unpadded; an upper bound for one rank)
    e.work += cells * std::log2(cells + 1) * 20;
    e.bytes += cells * 40;  // the slabs and transposes, about 40 bytes a cell
  }
  return e;
}

Estimate knn(const trident::knn::KnnSettings& d) {
  const auto count = [](const trident::knn::PointSource& p) {
    return p.kind == trident::knn::PointSource::Kind::generate ? double(p.count) : file_bytes(p.file);
  };
  const double observations = count(d.observations), references = count(d.references);
  const double k = double(d.k);
  const double passes = ceil_div(observations, double(d.batch_size)) * ceil_div(references, double(d.tile_size));
  Estimate e;
  e.work = observations * references * (20 + std::log2(k + 1)) + passes * kKernelLaunch;
  e.bytes = (observations + references) * 64 + observations * k * 32;
  return e;
}

Estimate ridge(const trident::ridge::RidgeSettings& d) {
  const bool generated = d.matrix.kind == trident::ridge::RidgeMatrixSettings::Kind::generate;
  const double stored = file_bytes(d.matrix.file);
  const double rows = generated ? double(d.matrix.rows) : stored;
  const double columns = generated ? double(d.matrix.columns) : stored;
  const double nonzeros = generated ? std::round(d.matrix.density * rows * columns) : stored;
  const double lambdas = double(d.lambdas.size()) + double(d.refine_corner);
  const double iterations = d.solver.max_iterations > 0 ? double(d.solver.max_iterations)
                                                        : std::min(rows, columns);
  Estimate e;
  e.work = (nonzeros + rows + columns) * 40 +  // generating A and b, transposing A
           iterations * (4 * nonzeros + 10 * lambdas * (rows + columns)) * 2;  // sweep, refinement
  e.bytes = nonzeros * 24 + lambdas * (rows + columns) * 8 * 6 +
            (d.keep_solutions ? lambdas * columns * 8 : 0);
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: deck_work DECK\n";
    return 2;
  }
  try {
    const StudyDeck deck = trident::test::read_deck(argv[1]);
    Estimate total;
    for (const Estimate& e : {deck.diffusion ? diffusion(*deck.diffusion) : Estimate{},
                              deck.knn ? knn(*deck.knn) : Estimate{},
                              deck.ridge ? ridge(*deck.ridge) : Estimate{}}) {
      total.work += e.work;
      total.bytes += e.bytes;
    }
    std::printf("work %.6g bytes %.6g\n", total.work, total.bytes);
    return 0;
  } catch (const trident::InputError& e) {
    std::cerr << "deck_work: " << e.what() << "\n";
    return 2;
  }
}
