#include "ridge/problem.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
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

  template <class T>
  std::vector<T> dataset(const std::string& name) const {
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
    std::vector<T> out;
    io::reserve_huge(out, count);  // first-touch page faults cost more than the read
    out.resize(count);
    if (count > 0 && H5Dread(d.id, native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
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

// An index array of a CSR group (row_ptr, col_ind): read straight into int when it is
// stored in 32 signed bits or fewer (scipy's int32), else through long long, so that a
// value beyond int's range is still reported as written.
class IndexArray {
 public:
  IndexArray(const H5Reader& in, const std::string& name) : wide_(!in.fits_int(name)) {
    if (wide_) wide_values_ = in.dataset<long long>(name);
    else narrow_ = in.dataset<int>(name);
  }
  std::size_t size() const { return wide_ ? wide_values_.size() : narrow_.size(); }

  // The values as int, each checked to lie in [0, high]; `label` names the array.
  std::vector<int> take(long long high, const std::string& source, const std::string& label) {
    const std::size_t n = size();
    for (std::size_t k = 0; k < n; ++k) {
      const long long v = wide_ ? wide_values_[k] : narrow_[k];
      if (v < 0 || v > high)
        throw InputError(source + ": " + label + "[" + std::to_string(k) + "] = " + std::to_string(v) +
                         " lies outside 0.." + std::to_string(high));
    }
    if (!wide_) return std::move(narrow_);
    std::vector<int> out;
    io::reserve_huge(out, n);
    out.assign(wide_values_.begin(), wide_values_.end());
    return out;
  }

 private:
  bool wide_;
  std::vector<int> narrow_;
  std::vector<long long> wide_values_;
};

void check_finite(const std::vector<double>& b, const std::string& source) {
  for (std::size_t i = 0; i < b.size(); ++i)
    if (!std::isfinite(b[i]))
      throw InputError(source + ": entry " + std::to_string(i) + " (0-based) is not finite (" +
                       std::to_string(b[i]) + ")");
}

}  // namespace

HostCsr generate_matrix(int rows, int columns, double density, std::uint64_t seed) {
  const auto total = static_cast<std::int64_t>(std::llround(density * double(rows) * double(columns)));
  HostCsr a;
  a.rows = rows;
  a.columns = columns;
  a.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
  for (std::int64_t i = 0; i <= rows; ++i) a.row_ptr[i] = static_cast<int>(total * i / rows);
  a.col_ind.resize(static_cast<std::size_t>(total));
  a.values.resize(static_cast<std::size_t>(total));
  // Floyd's sampling of k distinct columns per row, marked in a bitmap read out in order.
  std::vector<std::uint64_t> taken((static_cast<std::size_t>(columns) + 63) / 64, 0);
  auto test_and_set = [&](std::uint64_t c) {
    std::uint64_t& word = taken[c >> 6];
    const std::uint64_t bit = std::uint64_t(1) << (c & 63);
    const bool was = word & bit;
    word |= bit;
    return was;
  };
  for (int i = 0; i < rows; ++i) {
    SplitMix64 g{stream_seed(seed, static_cast<std::uint64_t>(i))};
    const int k = a.row_ptr[i + 1] - a.row_ptr[i];
    for (std::uint64_t j = static_cast<std::uint64_t>(columns - k); j < std::uint64_t(columns); ++j) {
      const std::uint64_t t = g.below(j + 1);
      if (test_and_set(t)) test_and_set(j);
    }
    int slot = a.row_ptr[i];
    for (std::size_t w = 0; w < taken.size(); ++w) {
      for (std::uint64_t word = taken[w]; word != 0; word &= word - 1) {
        a.col_ind[slot] = static_cast<int>(w * 64 + __builtin_ctzll(word));
        a.values[slot] = g.uniform();
        ++slot;
      }
      taken[w] = 0;
    }
  }
  return a;
}

std::vector<double> generate_rhs(std::size_t count, double mean, double std, std::uint64_t seed) {
  std::vector<double> b(count);
  SplitMix64 g{stream_seed(seed, 0xB0B)};
  for (std::size_t i = 0; i < count; i += 2) {
    // Box-Muller: two normals from two uniforms in (0, 1].
    const double u1 = 1.0 - g.uniform(), u2 = g.uniform();
    const double r = std::sqrt(-2.0 * std::log(u1)), angle = 6.283185307179586 * u2;
    b[i] = mean + std * r * std::cos(angle);
    if (i + 1 < count) b[i + 1] = mean + std * r * std::sin(angle);
  }
  return b;
}

HostCsr read_hdf5_csr(const std::string& file, const std::string& group) {
  const H5Reader in(file);
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
  IndexArray row_ptr(in, join(group, "row_ptr"));
  IndexArray col_ind(in, join(group, "col_ind"));
  HostCsr a;
  a.rows = static_cast<int>(shape[0]);
  a.columns = static_cast<int>(shape[1]);
  a.values = in.dataset<double>(join(group, "values"));
  if (col_ind.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw InputError(source + ": more than 2^31-1 nonzeros (the CSR offsets are 32-bit)");
  const auto nonzeros = static_cast<long long>(col_ind.size());
  a.row_ptr = row_ptr.take(nonzeros, source, "row_ptr");
  a.col_ind = col_ind.take(shape[1] - 1, source, "col_ind");
  validate(a, source);
  return a;
}

std::vector<double> read_hdf5_vector(const std::string& file, const std::string& dataset) {
  const H5Reader in(file);
  std::vector<double> b = in.dataset<double>(dataset);
  check_finite(b, file + ":" + dataset);
  return b;
}

Problem load_problem(const deck::RidgeSettings& settings) {
  using Kind = deck::RidgeMatrixSettings::Kind;
  const auto& m = settings.matrix;
  Problem p;
  if (m.kind == Kind::generate) {
    p.a = generate_matrix(static_cast<int>(m.rows), static_cast<int>(m.columns), m.density, m.seed);
  } else if (m.kind == Kind::matrix_market) {
    p.a = read_matrix_market(m.file);
  } else {
    p.a = read_hdf5_csr(m.file, m.group);
  }
  const auto& r = settings.rhs;
  if (r.kind == deck::RidgeRhsSettings::Kind::generate) {
    p.b = generate_rhs(static_cast<std::size_t>(p.a.rows), r.mean, r.std, r.seed);
  } else {
    p.b = read_hdf5_vector(r.file, r.dataset);
    if (p.b.size() != static_cast<std::size_t>(p.a.rows))
      throw InputError(r.file + ":" + r.dataset + ": the right-hand side has " +
                       std::to_string(p.b.size()) + " entries but the matrix has " +
                       std::to_string(p.a.rows) + " rows (" + r.where + ")");
  }
  return p;
}

}  // namespace trident::ridge
