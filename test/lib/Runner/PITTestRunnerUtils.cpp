//===- PITTestRunnerUtils.cpp - Helpers for the CPU integration tests -----===//
//
// Called from MLIR (functions declared with llvm.emit_c_interface, taking
// unranked memrefs) by the integration tests that prove the PIT
// transformation exact: fresh random data and patterns on every run, and a
// comparison with the dense result computed in the same run.
//
// The random generator is seeded from PIT_SEED when set (to replay a
// failure), otherwise from the system; the seed is printed first.
//
//===----------------------------------------------------------------------===//

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

namespace {

std::mt19937_64 &generator() {
  static std::mt19937_64 engine = [] {
    uint64_t seed;
    if (const char *fixed = std::getenv("PIT_SEED"))
      seed = std::strtoull(fixed, nullptr, 10);
    else
      seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^
             std::random_device{}();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    return std::mt19937_64(seed);
  }();
  return engine;
}

/// A view of a memref of any rank, element by element in row-major order.
template <typename T>
struct Elements {
  explicit Elements(UnrankedMemRefType<T> *memref) : view(*memref) {
    count = 1;
    for (int64_t dim = 0; dim < view.rank; ++dim)
      count *= view.sizes[dim];
  }

  T &operator[](int64_t linear) {
    int64_t offset = view.offset;
    for (int64_t dim = view.rank - 1; dim >= 0; --dim) {
      offset += (linear % view.sizes[dim]) * view.strides[dim];
      linear /= view.sizes[dim];
    }
    return view.data[offset];
  }

  /// The row-major linear index of `coordinates`.
  int64_t linearize(const std::vector<int64_t> &coordinates) const {
    int64_t linear = 0;
    for (int64_t dim = 0; dim < view.rank; ++dim)
      linear = linear * view.sizes[dim] + coordinates[dim];
    return linear;
  }

  DynamicMemRefType<T> view;
  int64_t count;
};

template <typename T>
void fillRandom(UnrankedMemRefType<T> *memref, T low, T high) {
  Elements<T> elements(memref);
  for (int64_t i = 0; i < elements.count; ++i) {
    if constexpr (std::is_floating_point_v<T>)
      elements[i] = std::uniform_real_distribution<T>(low, high)(generator());
    else
      elements[i] = std::uniform_int_distribution<T>(low, high)(generator());
  }
}

/// Zeroes exactly round(sparsity * #micro-tiles) micro-tiles, chosen at
/// random: 0% leaves all, 100% clears all.
template <typename T>
void zeroMicroTiles(UnrankedMemRefType<T> *memref, const int64_t *microTile,
                    double sparsity) {
  Elements<T> elements(memref);
  int64_t rank = elements.view.rank;
  std::vector<int64_t> grid(rank);
  int64_t numTiles = 1;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (microTile[dim] <= 0 || elements.view.sizes[dim] % microTile[dim]) {
      std::printf("FAIL: micro-tile extent %lld does not divide dimension "
                  "%lld\n",
                  static_cast<long long>(microTile[dim]),
                  static_cast<long long>(dim));
      return;
    }
    grid[dim] = elements.view.sizes[dim] / microTile[dim];
    numTiles *= grid[dim];
  }
  std::vector<int64_t> tiles(numTiles);
  std::iota(tiles.begin(), tiles.end(), 0);
  std::shuffle(tiles.begin(), tiles.end(), generator());
  int64_t numZeroed = std::llround(sparsity * static_cast<double>(numTiles));
  for (int64_t t = 0; t < numZeroed; ++t) {
    // Tile coordinates, then every element of the tile.
    std::vector<int64_t> tileCoordinates(rank);
    for (int64_t dim = rank - 1, rest = tiles[t]; dim >= 0; --dim) {
      tileCoordinates[dim] = rest % grid[dim];
      rest /= grid[dim];
    }
    int64_t tileSize = 1;
    for (int64_t dim = 0; dim < rank; ++dim)
      tileSize *= microTile[dim];
    std::vector<int64_t> coordinates(rank);
    for (int64_t e = 0; e < tileSize; ++e) {
      for (int64_t dim = rank - 1, rest = e; dim >= 0; --dim) {
        coordinates[dim] =
            tileCoordinates[dim] * microTile[dim] + rest % microTile[dim];
        rest /= microTile[dim];
      }
      elements[elements.linearize(coordinates)] = T(0);
    }
  }
  std::printf("pattern: %lld of %lld micro-tiles zero\n",
              static_cast<long long>(numZeroed),
              static_cast<long long>(numTiles));
}

} // namespace

extern "C" {

void _mlir_ciface_pitFillRandomF32(UnrankedMemRefType<float> *memref) {
  fillRandom<float>(memref, -1.0f, 1.0f);
}

void _mlir_ciface_pitFillRandomI32(UnrankedMemRefType<int32_t> *memref) {
  fillRandom<int32_t>(memref, -8, 8);
}

void _mlir_ciface_pitZeroMicroTilesF32(UnrankedMemRefType<float> *memref,
                                       int64_t tile0, int64_t tile1,
                                       int64_t tile2, double sparsity) {
  const int64_t microTile[] = {tile0, tile1, tile2};
  zeroMicroTiles(memref, microTile, sparsity);
}

void _mlir_ciface_pitZeroMicroTilesI32(UnrankedMemRefType<int32_t> *memref,
                                       int64_t tile0, int64_t tile1,
                                       int64_t tile2, double sparsity) {
  const int64_t microTile[] = {tile0, tile1, tile2};
  zeroMicroTiles(memref, microTile, sparsity);
}

void _mlir_ciface_pitCopyF32ToF64(UnrankedMemRefType<float> *source,
                                  UnrankedMemRefType<double> *dest) {
  Elements<float> from(source);
  Elements<double> to(dest);
  for (int64_t i = 0; i < from.count; ++i)
    to[i] = from[i];
}

/// Relative error ||out - ref|| / ||ref|| against a float64 reference.
void _mlir_ciface_pitCheckF32(UnrankedMemRefType<float> *out,
                              UnrankedMemRefType<double> *ref,
                              double sparsity, double tolerance) {
  Elements<float> result(out);
  Elements<double> reference(ref);
  double error = 0, norm = 0;
  bool finite = true;
  for (int64_t i = 0; i < result.count; ++i) {
    double difference = static_cast<double>(result[i]) - reference[i];
    finite &= std::isfinite(result[i]);
    error += difference * difference;
    norm += reference[i] * reference[i];
  }
  double relative = std::sqrt(error) / std::max(std::sqrt(norm), 1e-30);
  bool pass = finite && relative < tolerance;
  std::printf("sparsity %.2f: relative error %.3g %s\n", sparsity, relative,
              pass ? "PASS" : "FAIL");
}

void _mlir_ciface_pitCheckI32(UnrankedMemRefType<int32_t> *out,
                              UnrankedMemRefType<int32_t> *ref,
                              double sparsity) {
  Elements<int32_t> result(out);
  Elements<int32_t> reference(ref);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < result.count; ++i)
    mismatches += result[i] != reference[i];
  std::printf("sparsity %.2f: %lld mismatches %s\n", sparsity,
              static_cast<long long>(mismatches),
              mismatches == 0 ? "PASS" : "FAIL");
}

} // extern "C"
