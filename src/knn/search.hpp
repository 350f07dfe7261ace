#pragma once
// Exact k nearest references of a set of observations on one rank's device: float32 (or
// float64) screening of squared chords (coordinates relative to a centre of each chunk of
// observations), float64 settling of the candidates within the screening window of the
// k-th, and a wider float64 search for the rare observation whose kept list was too short
// to prove its answer.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/pinned_host_space.hpp"
#include "core/uninitialized_vector.hpp"
#include "knn/geometry.hpp"

namespace trident::core {
class DeviceBuffers;  // core/device_buffers.hpp
}

namespace trident::knn {

struct ListBoundCache;  // list_bound.hpp

struct SearchOptions {
  int k = 1;
  double radius = 1.0;                // distances are angles times this
  std::string precision = "float32";  // screening precision: float32 or float64
  std::int64_t batch_size = 0;        // observations per device batch; 0: from free memory
  std::int64_t tile_size = 0;         // references per device tile; 0: all when they fit
  bool select_only = false;           // tests: use the any-k (select) screen for every k
  bool buffers_only = false;          // tests: use the buffer screen for every k (where it fits)
  bool centre_per_team = false;       // tests: per-team screening centres on host back ends too
  bool long_register_lists = false;   // tests: register lists longer than 32 on host back ends too
  int segments = 0;                   // tests: reference segments per tile (0: enough to fill the device)
  int list_bound = 0;                 // tests: lists start at a bound (list_bound.hpp) always (1), never (-1); 0: by size
  // where searches that share their references (the rounds of rounds.hpp) keep the list
  // bound between them, so that only the first makes it; null: each search makes its own
  std::shared_ptr<ListBoundCache> bound_cache;
  // where searches keep their device arrays between them (the rounds of rounds.hpp, after
  // reserve_search), and the references uploaded by the first; null: each search allocates
  // and frees its own. Share it only between searches of the same references (as
  // bound_cache), which stay where they are in host memory.
  std::shared_ptr<core::DeviceBuffers> device_buffers;
  int chunks = 0;                     // tests: pipeline chunks per batch (0: by size, on GPUs only)
  // the observations come in the order of their places (rounds.hpp): on host back ends a
  // batch is then cut into chunks too, each screened around its own centre
  bool ordered_by_place = false;
};

struct SearchStats {
  std::int64_t batches = 0;        // device batches, all passes
  std::int64_t tiles = 0;          // reference tiles
  std::int64_t widened = 0;        // observations searched again with a longer list
  std::int64_t list_length = 0;    // entries kept per observation in the first pass
  double search_seconds = 0.0;     // whole search, including transfers
  // its parts (each measured between device fences): observations to the device, the
  // screen (with segment merging), bound + settle + order, results back, widened passes
  double upload_seconds = 0.0, screen_seconds = 0.0, settle_seconds = 0.0,
         download_seconds = 0.0, widened_seconds = 0.0;
  // batches split into chunks whose transfers overlap the kernels of their neighbours:
  // then screen_seconds holds upload + screen + settle of all chunks and download_seconds
  // the transfers still running after the last kernel
  std::int64_t pipelined_chunks = 0;
  double setup_seconds = 0.0;  // the references' device copies and the search's setup
  // the batches' device arrays allocated during the search (fenced; none once reserved:
  // reserve_search), and the first round of a search in rounds, whole (rounds.hpp: its
  // fixed costs weigh on every rank count)
  double arrays_seconds = 0.0, first_round_seconds = 0.0;
  // a search in rounds: page-locking the rank's result rows before the first round and
  // unlocking them after the last (outside search_seconds)
  double page_lock_seconds = 0.0;
  std::int64_t bound_places = 0;  // places of the first pass's list bound (0: lists started empty)
  std::int64_t bounds_made = 0;   // list bounds made (a search in rounds reuses one)
  // rows a search in rounds put in the order of their places after a round searched many
  // again (rounds.hpp)
  std::int64_t reordered_rows = 0;
  std::int64_t reference_uploads = 0;  // reference tiles copied to the device
  // the pipelined batch of most rows (on GPUs): for each chunk, when its rows were ready on
  // the device and when they were in host memory, in ms after the batch's first upload was
  // queued; tells rows that wait for the link from rows that wait for the screen
  struct ChunkTimes {
    double ready_ms = 0.0, downloaded_ms = 0.0;
  };
  std::vector<ChunkTimes> chunk_times;
  std::int64_t chunk_times_rows = 0;  // the rows of that batch
};

// A reference's index in a result row. 32 bits: a search takes fewer than 2^31 references,
// and the rows are what crosses the link, fills host memory and the file (12 bytes a
// neighbour instead of 16 with 64-bit indices; on four H100s the rows of k = 16 at 2^24
// observations outlasted the screen's last kernel by 7.3 ms at 16 bytes, 2.6 ms at 12).
using NeighbourIndex = std::int32_t;

// Row-major observations x k: reference indices (0-based, as given; -1 in an empty row)
// and distances.
struct Neighbours {
  core::UninitializedVector<NeighbourIndex> indices;
  core::UninitializedVector<double> distances;
};

// Sets `rows` to `entries` empty results (index -1, distance 0), backed by huge pages
// where the system offers them, and filled on every usable CPU: the rows are 12 bytes a
// neighbour (3.2 GB at k = 16 on 2^24 observations or k = 64 on 2^22). Touching them 4 KiB
// at a time cost three times as long on the development machine (2 GiB: 0.88 s against
// 0.29 s), and their first touch on one thread 0.6 to 0.9 s of a 4 s run on an H200 host.
void allocate_rows(Neighbours& rows, std::size_t entries);

// Unit vectors of points given as interleaved (latitude, longitude) degrees.
std::vector<Vec4<double>> unit_vectors(const std::vector<double>& lat_lon);

// The k nearest references of every observation. Requires 1 <= k <= references.size()
// and references.size() < 2^31.
Neighbours nearest(const std::vector<Vec4<double>>& observations,
                   const std::vector<Vec4<double>>& references, const SearchOptions& options,
                   SearchStats* stats = nullptr);

// The same for `n_obs` observations at `observations` (host memory; pinned memory, see
// PinnedHostSpace, makes the copies to the device faster).
Neighbours nearest(const Vec4<double>* observations, std::int64_t n_obs,
                   const std::vector<Vec4<double>>& references, const SearchOptions& options,
                   SearchStats* stats = nullptr);

// Where a search writes its results: row o's k reference indices at indices + o * k and
// its distances at distances + o * k (host memory the caller owns).
struct ResultRows {
  NeighbourIndex* indices;
  double* distances;
};

// The same, writing every row into `rows` (no result arrays of its own, no copy): for
// callers that keep the rows, e.g. a search in rounds. Page-lock the rows (core::PageLock) for
// fast copies from the device.
void nearest_into(const Vec4<double>* observations, std::int64_t n_obs,
                  const std::vector<Vec4<double>>& references, const SearchOptions& options, ResultRows rows,
                  SearchStats* stats = nullptr);

// Allocates in options.device_buffers the device arrays of a search of `n_obs` contiguous
// observations (a search of fewer, e.g. a first round, fits in them too), before the
// search, where their allocation is not timed with it.
void reserve_search(std::int64_t n_obs, const std::vector<Vec4<double>>& references, const SearchOptions& options);

// Device memory this rank may use for the search: on a GPU half of the free memory and
// of `held` (what the search's device buffers already hold, which it reuses), a fixed
// 2 GiB on host backends.
std::size_t search_memory_budget(std::size_t held = 0);

}  // namespace trident::knn
