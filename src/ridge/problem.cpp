#include "ridge/problem.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/host_threads.hpp"
#include "io/huge_pages.hpp"
#include "ridge/matrix_market.hpp"

namespace trident::ridge {

namespace {

// splitmix64: a tiny counter-friendly generator, the same stream on every machine.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  std::uint64_t below(std::uint64_t n) { return next() % n; }    // bias below 2^-40 here
};

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t index) {
  SplitMix64 g{seed * 0xD1B54A32D192ED03ull + index};
  return g.next();
}

// Closes an HDF5 handle on scope exit.
struct H5Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~H5Handle() {
    if (id >= 0) close(id);
  }
};

template <class T>
hid_t native_type();
template <> hid_t native_type<double>() { return H5T_NATIVE_DOUBLE; }
template <> hid_t native_type<long long>() { return H5T_NATIVE_LLONG; }
template <> hid_t native_type<int>() { return H5T_NATIVE_INT; }

class H5Reader {
 public:
  explicit H5Reader(const std::string& path) : path_(path) {
    H5E_auto2_t func = nullptr;
    void* data = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // our messages, not HDF5's stack dumps
    file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    H5Eset_auto2(H5E_DEFAULT, func, data);
    if (file_ < 0) throw InputError(path + ": cannot open as an HDF5 file (does it exist?)");
  }
  ~H5Reader() { H5Fclose(file_); }

  bool exists(const std::string& name) const {
    return H5Lexists(file_, name.c_str(), H5P_DEFAULT) > 0;
  }

  // The number of entries of a one-dimensional dataset.
  std::size_t size(const std::string& name) const {
    if (!exists(name)) throw InputError(path_ + ": no dataset " + name);
    H5Handle d{H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose};
    if (d.id < 0) throw InputError(path_ + ": " + name + " is not a dataset");
    H5Handle space{H5Dget_space(d.id), H5Sclose};
    const int rank = H5Sget_simple_extent_ndims(space.id);
    hsize_t dims[8] = {0};
    if (rank < 0 || rank > 8) throw InputError(path_ + ": cannot read the shape of " + name);
    H5Sget_simple_extent_dims(space.id, dims, nullptr);
    hsize_t count = 1;
    for (int i = 0; i < rank; ++i) count *= dims[i];
    if (rank > 1 && count != dims[0])
      throw InputError(path_ + ": " + name + " must be one-dimensional, it has " +
                       std::to_string(rank) + " dimensions");
    return static_cast<std::size_t>(count);
  }

  template <class T>
  std::vector<T> dataset(const std::string& name) const {
    return slab<T>(name, 0, size(name));
  }

  // Entries [first, first + count) of a one-dimensional dataset, in a std::vector or (for
  // the matrix's arrays) a core::UninitializedVector, which the read itself first touches.
  template <class T, class Vector = std::vector<T>>
  Vector slab(const std::string& name, std::size_t first, std::size_t count) const {
    const std::size_t total = size(name);
    H5Handle d{H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose};
    Vector out;
    io::reserve_huge(out, count);  // first-touch page faults cost more than the read
    out.resize(count);
    if (count == 0) return out;
    H5Handle file_space{H5Dget_space(d.id), H5Sclose};
    const hsize_t whole = total, start = first, n = count;
    H5Handle flat{H5Screate_simple(1, &whole, nullptr), H5Sclose};  // a [N, 1] dataset read as [N]
    H5Handle memory{H5Screate_simple(1, &n, nullptr), H5Sclose};
    const hid_t selected = total == count ? H5S_ALL : flat.id;
    if (selected != H5S_ALL) H5Sselect_hyperslab(flat.id, H5S_SELECT_SET, &start, nullptr, &n, nullptr);
    const bool simple = H5Sget_simple_extent_ndims(file_space.id) == 1;
    if (!simple && total != count) throw InputError(path_ + ": cannot read a part of " + name);
    if (H5Dread(d.id, native_type<T>(), total == count ? H5S_ALL : memory.id, selected, H5P_DEFAULT,
                out.data()) < 0)
      throw InputError(path_ + ": cannot read " + name + " as numbers");
    return out;
  }

  // Whether a dataset holds integers that int holds exactly (signed of 32 bits or fewer,
  // unsigned of fewer): then it can be read straight into int.
  bool fits_int(const std::string& name) const {
    if (!exists(name)) return false;
    H5Handle d{H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose};
    if (d.id < 0) return false;
    H5Handle type{H5Dget_type(d.id), H5Tclose};
    if (H5Tget_class(type.id) != H5T_INTEGER) return false;
    const std::size_t size = H5Tget_size(type.id);
    return size < 4 || (size == 4 && H5Tget_sign(type.id) == H5T_SGN_2);
  }

  // An integer attribute array of an object, or empty when it is absent.
  std::vector<long long> integer_attribute(const std::string& object, const std::string& name) const {
    if (H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) <= 0) return {};
    H5Handle a{H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
               H5Aclose};
    H5Handle space{H5Aget_space(a.id), H5Sclose};
    const hssize_t count = H5Sget_simple_extent_npoints(space.id);
    std::vector<long long> out(static_cast<std::size_t>(std::max<hssize_t>(count, 0)));
    if (count > 0 && H5Aread(a.id, H5T_NATIVE_LLONG, out.data()) < 0)
      throw InputError(path_ + ": cannot read the attribute " + name + " of " + object +
                       " as integers");
    return out;
  }

 private:
  std::string path_;
  hid_t file_ = -1;
};

std::string join(const std::string& group, const std::string& name) {
  return group.empty() || group.back() == '/' ? group + name : group + "/" + name;
}

// A slab of an index array (row_ptr, col_ind) as int, each value checked to lie in
// [0, high]: read straight into int when it is stored in 32 signed bits or fewer (scipy's
// int32), else through long long, so that a value beyond int's range is still reported as
// written. `label` names the array; `first` numbers its entries in messages.
core::UninitializedVector<int> index_slab(const H5Reader& in, const std::string& name, std::size_t first,
                                          std::size_t count, long long high, const std::string& source,
                                          const std::string& label) {
  auto bad = [&](std::size_t k, long long v) {
    return InputError(source + ": " + label + "[" + std::to_string(first + k) + "] = " + std::to_string(v) +
                      " lies outside 0.." + std::to_string(high));
  };
  // Checked by ranges on the host's CPUs; the lowest range reports first, so the error
  // names the first bad entry.
  const auto check = [&](const auto& values) {
    core::host_parallel_ranges(static_cast<std::int64_t>(values.size()), std::int64_t(1) << 16,
                               [&](const std::int64_t begin, const std::int64_t end) {
                                 for (std::int64_t k = begin; k < end; ++k)
                                   if (values[k] < 0 || values[k] > high) throw bad(std::size_t(k), values[k]);
                               });
  };
  if (in.fits_int(name)) {
    core::UninitializedVector<int> out = in.slab<int, core::UninitializedVector<int>>(name, first, count);
    check(out);
    return out;
  }
  const auto wide = in.slab<long long, core::UninitializedVector<long long>>(name, first, count);
  check(wide);
  core::UninitializedVector<int> out;
  io::reserve_huge(out, wide.size());
  out.assign(wide.begin(), wide.end());
  return out;
}

// A CSR group's shape and row offsets, checked (the offsets as 64-bit numbers: the whole
// matrix may hold more than 2^31 entries).
struct Hdf5CsrIndex {
  std::int64_t rows = 0, columns = 0;
  std::vector<std::int64_t> offsets;
};

Hdf5CsrIndex read_hdf5_index(const H5Reader& in, const std::string& file, const std::string& group) {
  const std::string source = file + ":" + group;
  if (!in.exists(group)) throw InputError(file + ": no CSR group " + group);
  std::vector<long long> shape = in.integer_attribute(group, "shape");
  if (shape.empty() && in.exists(join(group, "shape"))) shape = in.dataset<long long>(join(group, "shape"));
  if (shape.size() != 2)
    throw InputError(source + ": expected the shape [rows, columns] as an attribute 'shape' of the "
                              "group or a dataset 'shape' in it");
  if (shape[0] < 1 || shape[1] < 1 || shape[0] > std::numeric_limits<int>::max() ||
      shape[1] > std::numeric_limits<int>::max())
    throw InputError(source + ": expected a shape of 1 to 2^31-1 rows and columns, got [" +
                     std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + "]");
  Hdf5CsrIndex index;
  index.rows = shape[0];
  index.columns = shape[1];
  const std::string row_ptr = join(group, "row_ptr");
  const auto nonzeros = static_cast<long long>(in.size(join(group, "col_ind")));
  const std::vector<long long> offsets = in.dataset<long long>(row_ptr);
  for (std::size_t k = 0; k < offsets.size(); ++k)
    if (offsets[k] < 0 || offsets[k] > nonzeros)
      throw InputError(source + ": row_ptr[" + std::to_string(k) + "] = " + std::to_string(offsets[k]) +
                       " lies outside 0.." + std::to_string(nonzeros));
  // The checks validate() makes of the whole structure, in its order and words.
  if (offsets.size() != static_cast<std::size_t>(index.rows) + 1)
    throw InputError(source + ": expected " + std::to_string(index.rows + 1) + " row offsets (rows + 1), got " +
                     std::to_string(offsets.size()));
  const auto values = static_cast<long long>(in.size(join(group, "values")));
  if (values != nonzeros)
    throw InputError(source + ": expected as many column indices as values, got " + std::to_string(nonzeros) +
                     " and " + std::to_string(values));
  if (offsets.front() != 0 || offsets.back() != nonzeros)
    throw InputError(source + ": expected row offsets from 0 to " + std::to_string(nonzeros) +
                     " (the number of values), got " + std::to_string(offsets.front()) + " to " +
                     std::to_string(offsets.back()));
  for (std::int64_t i = 0; i < index.rows; ++i)
    if (offsets[i + 1] < offsets[i])
      throw InputError(source + ": row offsets decrease at row " + std::to_string(i + 1));
  index.offsets.assign(offsets.begin(), offsets.end());
  return index;
}

// Rows [first, first + count) of a checked CSR group, their entries read as slabs.
HostCsr read_hdf5_rows(const H5Reader& in, const std::string& file, const std::string& group,
                       const Hdf5CsrIndex& index, std::int64_t first, std::int64_t count) {
  const std::string source = file + ":" + group;
  const std::int64_t begin = index.offsets[first], end = index.offsets[first + count];
  if (end - begin > std::numeric_limits<int>::max())
    throw InputError(source + ": rows " + std::to_string(first + 1) + " to " + std::to_string(first + count) +
                     " hold " + std::to_string(end - begin) +
                     " nonzeros, more than one rank can hold (2^31-1, 32-bit offsets); run on more ranks");
  HostCsr a;
  a.rows = static_cast<int>(count);
  a.columns = static_cast<int>(index.columns);
  a.row_ptr.resize(static_cast<std::size_t>(count) + 1);
  for (std::int64_t i = 0; i <= count; ++i) a.row_ptr[i] = static_cast<int>(index.offsets[first + i] - begin);
  const auto b = static_cast<std::size_t>(begin), n = static_cast<std::size_t>(end - begin);
  a.col_ind = index_slab(in, join(group, "col_ind"), b, n, index.columns - 1, source, "col_ind");
  a.values = in.slab<double, core::UninitializedVector<double>>(join(group, "values"), b, n);
  validate_rows(a, source, first);
  return a;
}

void check_finite(const std::vector<double>& b, const std::string& source, std::int64_t first = 0) {
  for (std::size_t i = 0; i < b.size(); ++i)
    if (!std::isfinite(b[i]))
      throw InputError(source + ": entry " + std::to_string(first + std::int64_t(i)) + " (0-based) is not finite (" +
                       std::to_string(b[i]) + ")");
}

}  // namespace

namespace {

std::int64_t generated_nonzeros(std::int64_t rows, std::int64_t columns, double density) {
  return static_cast<std::int64_t>(std::llround(density * double(rows) * double(columns)));
}

// Entries before row i of the generated matrix (total * i / rows, in 128 bits: total * i
// passes 2^63 for large matrices).
std::int64_t generated_offset(std::int64_t total, std::int64_t rows, std::int64_t i) {
  return static_cast<std::int64_t>(static_cast<unsigned __int128>(total) * static_cast<unsigned __int128>(i) /
                                   static_cast<unsigned __int128>(rows));
}

}  // namespace

HostCsr generate_matrix(int rows, int columns, double density, std::uint64_t seed) {
  return generate_matrix_rows(rows, columns, density, seed, 0, rows);
}

HostCsr generate_matrix_rows(int rows, int columns, double density, std::uint64_t seed, std::int64_t first,
                             std::int64_t count) {
  const std::int64_t total = generated_nonzeros(rows, columns, density);
  const std::int64_t base = generated_offset(total, rows, first);
  const std::int64_t stored = generated_offset(total, rows, first + count) - base;
  if (stored > std::numeric_limits<int>::max())
    throw InputError("rows " + std::to_string(first + 1) + " to " + std::to_string(first + count) +
                     " of the generated matrix hold " + std::to_string(stored) +
                     " nonzeros, more than one rank can hold (2^31-1, 32-bit offsets); run on more ranks");
  HostCsr a;
  a.rows = static_cast<int>(count);
  a.columns = columns;
  a.row_ptr.resize(static_cast<std::size_t>(count) + 1);
  io::reserve_huge(a.col_ind, static_cast<std::size_t>(stored));
  io::reserve_huge(a.values, static_cast<std::size_t>(stored));
  a.col_ind.resize(static_cast<std::size_t>(stored));
  a.values.resize(static_cast<std::size_t>(stored));
  a.row_ptr[0] = 0;
  // Each row comes from its own stream, so the rows are made on every usable CPU, a range
  // of rows a thread, and the matrix is the same whatever the thread count. Serially, the
  // 4e8 nonzeros of bench/ridge_large.yaml took 21.8 s of a 27.9 s run on an H200 host.
  const std::size_t words = (static_cast<std::size_t>(columns) + 63) / 64;
  core::host_parallel_ranges(count, 256, [&](const std::int64_t row_begin, const std::int64_t row_end) {
    for (std::int64_t i = row_begin; i < row_end; ++i)
      a.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<int>(generated_offset(total, rows, first + i + 1) - base);
    // Floyd's sampling of k distinct columns per row, marked in a bitmap; the columns are
    // then read out in ascending order: from the bitmap when the row fills a fair part of
    // it, else by sorting the k columns drawn (a row of 100 among 200000 columns would
    // scan 3125 words). Both give the same columns in the same order, and each value is
    // drawn after the row's columns, in that order.
    std::vector<std::uint64_t> taken(words, 0);
    std::vector<int> drawn;
    auto test_and_set = [&](std::uint64_t c) {
      std::uint64_t& word = taken[c >> 6];
      const std::uint64_t bit = std::uint64_t(1) << (c & 63);
      const bool was = word & bit;
      word |= bit;
      return was;
    };
    for (std::int64_t i = row_begin; i < row_end; ++i) {
      SplitMix64 g{stream_seed(seed, static_cast<std::uint64_t>(first + i))};
      const int begin = static_cast<int>(generated_offset(total, rows, first + i) - base);
      const int k = a.row_ptr[static_cast<std::size_t>(i) + 1] - begin;
      const bool from_bitmap = static_cast<std::size_t>(k) * 16 >= words;
      drawn.clear();
      for (std::uint64_t j = static_cast<std::uint64_t>(columns - k); j < std::uint64_t(columns); ++j) {
        const std::uint64_t t = g.below(j + 1);
        const std::uint64_t c = test_and_set(t) ? j : t;
        if (c == j) test_and_set(j);
        if (!from_bitmap) drawn.push_back(static_cast<int>(c));
      }
      int slot = begin;
      if (from_bitmap) {
        for (std::size_t w = 0; w < words; ++w) {
          for (std::uint64_t word = taken[w]; word != 0; word &= word - 1) {
            a.col_ind[static_cast<std::size_t>(slot)] = static_cast<int>(w * 64 + __builtin_ctzll(word));
            a.values[static_cast<std::size_t>(slot)] = g.uniform();
            ++slot;
          }
          taken[w] = 0;
        }
      } else {
        std::sort(drawn.begin(), drawn.end());
        for (const int c : drawn) {
          a.col_ind[static_cast<std::size_t>(slot)] = c;
          a.values[static_cast<std::size_t>(slot)] = g.uniform();
          ++slot;
          taken[static_cast<std::size_t>(c) >> 6] = 0;
        }
      }
    }
  });
  return a;
}

std::vector<double> generate_rhs(std::size_t count, double mean, double std, std::uint64_t seed) {
  return generate_rhs_rows(0, static_cast<std::int64_t>(count), mean, std, seed);
}

std::vector<double> generate_rhs_rows(std::int64_t first, std::int64_t count, double mean, double std,
                                      std::uint64_t seed) {
  std::vector<double> b(static_cast<std::size_t>(count));
  const std::uint64_t stream = stream_seed(seed, 0xB0B);
  // Entries 2p and 2p + 1 come from draws 2p and 2p + 1; splitmix64's state moves by a
  // constant per draw, so a stream skips to any pair in one step: the pairs holding
  // [first, first + count) are made on every usable CPU, a range of pairs a thread.
  const std::int64_t pair_begin = first / 2, pair_end = (first + count + 1) / 2;
  core::host_parallel_ranges(pair_end - pair_begin, std::int64_t(1) << 14, [&](const std::int64_t q0, const std::int64_t q1) {
    SplitMix64 g{stream + static_cast<std::uint64_t>(2 * (pair_begin + q0)) * 0x9E3779B97F4A7C15ull};
    for (std::int64_t i = 2 * (pair_begin + q0); i < 2 * (pair_begin + q1); i += 2) {
      // Box-Muller: two normals from two uniforms in (0, 1].
      const double u1 = 1.0 - g.uniform(), u2 = g.uniform();
      const double r = std::sqrt(-2.0 * std::log(u1)), angle = 6.283185307179586 * u2;
      if (i >= first) b[static_cast<std::size_t>(i - first)] = mean + std * r * std::cos(angle);
      if (i + 1 >= first && i + 1 < first + count)
        b[static_cast<std::size_t>(i + 1 - first)] = mean + std * r * std::sin(angle);
    }
  });
  return b;
}

HostCsr read_hdf5_csr(const std::string& file, const std::string& group) {
  const H5Reader in(file);
  const Hdf5CsrIndex index = read_hdf5_index(in, file, group);
  return read_hdf5_rows(in, file, group, index, 0, index.rows);
}

std::vector<double> read_hdf5_vector(const std::string& file, const std::string& dataset) {
  const H5Reader in(file);
  std::vector<double> b = in.dataset<double>(dataset);
  check_finite(b, file + ":" + dataset);
  return b;
}

std::vector<std::int64_t> nonzero_balanced_rows(std::int64_t rows, int parts,
                                                const std::function<std::int64_t(std::int64_t)>& offset) {
  const std::int64_t total = offset(rows);
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(parts) + 1, rows);
  bounds[0] = 0;
  for (int r = 1; r < parts; ++r) {
    const auto share = static_cast<std::int64_t>(static_cast<unsigned __int128>(total) * unsigned(r) / unsigned(parts));
    std::int64_t low = bounds[r - 1], high = rows;  // the first row at or past the share
    while (low < high) {
      const std::int64_t mid = low + (high - low) / 2;
      if (offset(mid) >= share) high = mid;
      else low = mid + 1;
    }
    bounds[r] = low;
  }
  return bounds;
}

namespace {
// mpi::collective, but on MPI_COMM_SELF (load_problem: this rank alone) the InputError
// passes as it is.
void on_ranks(MPI_Comm comm, const std::function<void()>& work) {
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(comm, MPI_COMM_SELF, &same);
  if (same == MPI_IDENT) work();
  else mpi::collective(comm, work);
}
}  // namespace

MatrixRows::MatrixRows(const deck::RidgeMatrixSettings& settings, MPI_Comm comm)
    : settings_(settings), comm_(comm) {
  using Kind = deck::RidgeMatrixSettings::Kind;
  if (settings.kind == Kind::generate) {
    rows_ = settings.rows;
    columns_ = settings.columns;
    generated_nonzeros_ = generated_nonzeros(rows_, columns_, settings.density);
    return;
  }
  std::int64_t shape[2] = {0, 0};
  if (settings.kind == Kind::hdf5) {
    on_ranks(comm, [&] {
      const H5Reader in(settings.file);
      Hdf5CsrIndex index = read_hdf5_index(in, settings.file, settings.group);
      shape[0] = index.rows;
      shape[1] = index.columns;
      offsets_ = std::move(index.offsets);
    });
  } else {
    // Parsed once, on rank 0, and kept there until take() sends each rank its rows.
    on_ranks(comm, [&] {
      if (mpi::rank(comm) == 0) parsed_ = read_matrix_market(settings.file);
    });
    if (mpi::rank(comm) == 0) {
      shape[0] = parsed_.rows;
      shape[1] = parsed_.columns;
    }
    MPI_Bcast(shape, 2, MPI_INT64_T, 0, comm);
    offsets_.resize(static_cast<std::size_t>(shape[0]) + 1);
    if (mpi::rank(comm) == 0) offsets_.assign(parsed_.row_ptr.begin(), parsed_.row_ptr.end());
    MPI_Bcast(offsets_.data(), static_cast<int>(offsets_.size()), MPI_INT64_T, 0, comm);
  }
  rows_ = shape[0];
  columns_ = shape[1];
}

MatrixRows::~MatrixRows() = default;

std::int64_t MatrixRows::offset(std::int64_t row) const {
  if (settings_.kind == deck::RidgeMatrixSettings::Kind::generate)
    return generated_offset(generated_nonzeros_, rows_, row);
  return offsets_[static_cast<std::size_t>(row)];
}

HostCsr MatrixRows::take(std::int64_t first, std::int64_t count) const {
  using Kind = deck::RidgeMatrixSettings::Kind;
  HostCsr out;
  if (settings_.kind == Kind::generate) {
    on_ranks(comm_, [&] {
      try {
        out = generate_matrix_rows(static_cast<int>(rows_), static_cast<int>(columns_), settings_.density,
                                   settings_.seed, first, count);
      } catch (const InputError& e) {
        throw InputError(settings_.where + ": " + e.what());
      }
    });
    return out;
  }
  if (settings_.kind == Kind::hdf5) {
    on_ranks(comm_, [&] {
      const H5Reader in(settings_.file);
      Hdf5CsrIndex index;
      index.rows = rows_;
      index.columns = columns_;
      index.offsets = offsets_;  // a copy: take() may be called again
      out = read_hdf5_rows(in, settings_.file, settings_.group, index, first, count);
    });
    return out;
  }
  // Matrix Market: rank 0 sends every rank the block it asks for (checked when parsed).
  const int ranks = mpi::size(comm_), me = mpi::rank(comm_);
  const std::int64_t mine[2] = {first, count};
  std::vector<std::int64_t> asks(static_cast<std::size_t>(2 * ranks));
  MPI_Gather(mine, 2, MPI_INT64_T, asks.data(), 2, MPI_INT64_T, 0, comm_);
  auto block = [&](std::int64_t f, std::int64_t n) {
    HostCsr a;
    a.rows = static_cast<int>(n);
    a.columns = static_cast<int>(columns_);
    const int begin = parsed_.row_ptr[f], end = parsed_.row_ptr[f + n];
    for (std::int64_t i = 0; i <= n; ++i) a.row_ptr.push_back(parsed_.row_ptr[f + i] - begin);
    a.col_ind.assign(parsed_.col_ind.begin() + begin, parsed_.col_ind.begin() + end);
    a.values.assign(parsed_.values.begin() + begin, parsed_.values.begin() + end);
    return a;
  };
  if (me == 0) {
    for (int r = 1; r < ranks; ++r) {
      const HostCsr a = block(asks[2 * r], asks[2 * r + 1]);
      MPI_Send(a.row_ptr.data(), static_cast<int>(a.row_ptr.size()), MPI_INT, r, 0, comm_);
      MPI_Send(a.col_ind.data(), static_cast<int>(a.col_ind.size()), MPI_INT, r, 1, comm_);
      MPI_Send(a.values.data(), static_cast<int>(a.values.size()), MPI_DOUBLE, r, 2, comm_);
    }
    return block(first, count);
  }
  out.rows = static_cast<int>(count);
  out.columns = static_cast<int>(columns_);
  out.row_ptr.resize(static_cast<std::size_t>(count) + 1);
  MPI_Recv(out.row_ptr.data(), static_cast<int>(out.row_ptr.size()), MPI_INT, 0, 0, comm_, MPI_STATUS_IGNORE);
  out.col_ind.resize(static_cast<std::size_t>(out.row_ptr.back()));
  out.values.resize(out.col_ind.size());
  MPI_Recv(out.col_ind.data(), static_cast<int>(out.col_ind.size()), MPI_INT, 0, 1, comm_, MPI_STATUS_IGNORE);
  MPI_Recv(out.values.data(), static_cast<int>(out.values.size()), MPI_DOUBLE, 0, 2, comm_, MPI_STATUS_IGNORE);
  return out;
}

namespace {

// b's rows [first, first + count) for a matrix of `rows` rows.
std::vector<double> rhs_rows(const deck::RidgeRhsSettings& r, std::int64_t rows, std::int64_t first,
                             std::int64_t count) {
  if (r.kind == deck::RidgeRhsSettings::Kind::generate) return generate_rhs_rows(first, count, r.mean, r.std, r.seed);
  const H5Reader in(r.file);
  const std::size_t size = in.size(r.dataset);
  if (size != static_cast<std::size_t>(rows))
    throw InputError(r.file + ":" + r.dataset + ": the right-hand side has " + std::to_string(size) +
                     " entries but the matrix has " + std::to_string(rows) + " rows (" + r.where + ")");
  std::vector<double> b = in.slab<double>(r.dataset, static_cast<std::size_t>(first), static_cast<std::size_t>(count));
  check_finite(b, r.file + ":" + r.dataset, first);
  return b;
}

}  // namespace

void check_rhs(const deck::RidgeRhsSettings& rhs, std::int64_t rows) { rhs_rows(rhs, rows, 0, 0); }

Problem load_problem(const deck::RidgeSettings& settings) {
  const MatrixRows rows(settings.matrix, MPI_COMM_SELF);
  Problem p = load_rows(settings, rows, 0, rows.rows());
  p.total_rows = p.total_nonzeros = -1;  // the whole problem
  return p;
}

Problem load_rows(const deck::RidgeSettings& settings, const MatrixRows& rows, std::int64_t first,
                  std::int64_t count) {
  Problem p;
  p.a = rows.take(first, count);
  p.first_row = first;
  p.total_rows = rows.rows();
  p.total_nonzeros = rows.nonzeros();
  const MPI_Comm comm = rows.comm();
  on_ranks(comm, [&] { p.b = rhs_rows(settings.rhs, rows.rows(), first, count); });
  return p;
}

}  // namespace trident::ridge
