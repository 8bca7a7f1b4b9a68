//===- sparse_matmul_gpu.cpp - Call a compiled PIT library from C++ -------===//
//
// Calls pit_sparse_matmul, built by `pit-compile examples/sparse_matmul.mlir`,
// on device buffers: C += A x B with A 90% sparse in 32x1 micro-tiles, two
// calls with a new random pattern each, checked against a float64 product on
// the host. The CUDA driver API allocates and copies; PIT does the rest.
//
//   c++ sparse_matmul_gpu.cpp -I include -I /usr/local/cuda/include \
//       -L build -lsparse_matmul -L build/lib -lpit_cuda_runtime \
//       -L /usr/local/cuda/lib64/stubs -lcuda
//
//===----------------------------------------------------------------------===//

#include "PIT-runtime/Entry.h"

#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

extern "C" int pit_sparse_matmul(const PITTensor *args, int64_t numArgs);

namespace {

constexpr int64_t kM = 256, kN = 128, kK = 256;

bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *text = nullptr;
  cuGetErrorString(result, &text);
  std::fprintf(stderr, "%s failed: %s\n", call, text ? text : "unknown");
  return false;
}
#define CHECK(call)                                                            \
  if (!check((call), #call))                                                   \
  return 1

} // namespace

int main() {
  CUdevice device;
  CUcontext context;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  char name[256];
  CHECK(cuDeviceGetName(name, sizeof(name), device));
  std::printf("device: %s\n", name);

  std::mt19937 random(std::random_device{}());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> a(kM * kK), b(kK * kN), c(kM * kN);
  CUdeviceptr da, db, dc;
  CHECK(cuMemAlloc(&da, a.size() * sizeof(float)));
  CHECK(cuMemAlloc(&db, b.size() * sizeof(float)));
  CHECK(cuMemAlloc(&dc, c.size() * sizeof(float)));
  const int64_t shapeA[] = {kM, kK}, shapeB[] = {kK, kN}, shapeC[] = {kM, kN};
  PITTensor args[] = {{reinterpret_cast<void *>(da), PIT_F32, 2, shapeA},
                      {reinterpret_cast<void *>(db), PIT_F32, 2, shapeB},
                      {reinterpret_cast<void *>(dc), PIT_F32, 2, shapeC}};

  int failures = 0;
  for (int call = 0; call < 2; ++call) {
    // Fresh data, and a new pattern: each 32x1 micro-tile of A is kept with
    // probability 10%.
    for (float &x : a)
      x = value(random);
    for (float &x : b)
      x = value(random);
    for (float &x : c)
      x = value(random);
    std::bernoulli_distribution keep(0.1);
    for (int64_t block = 0; block < kM / 32; ++block)
      for (int64_t k = 0; k < kK; ++k)
        if (!keep(random))
          for (int64_t row = 0; row < 32; ++row)
            a[(block * 32 + row) * kK + k] = 0.0f;
    std::vector<double> reference(c.begin(), c.end());
    for (int64_t i = 0; i < kM; ++i)
      for (int64_t k = 0; k < kK; ++k)
        for (int64_t j = 0; j < kN; ++j)
          reference[i * kN + j] += double(a[i * kK + k]) * b[k * kN + j];

    CHECK(cuMemcpyHtoD(da, a.data(), a.size() * sizeof(float)));
    CHECK(cuMemcpyHtoD(db, b.data(), b.size() * sizeof(float)));
    CHECK(cuMemcpyHtoD(dc, c.data(), c.size() * sizeof(float)));
    if (pit_sparse_matmul(args, 3)) {
      std::fprintf(stderr, "pit_sparse_matmul: %s\n", pitLastError());
      return 1;
    }
    CHECK(cuMemcpyDtoH(c.data(), dc, c.size() * sizeof(float)));
    double error = 0, norm = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      error += (c[i] - reference[i]) * (c[i] - reference[i]);
      norm += reference[i] * reference[i];
    }
    double relative = std::sqrt(error / norm);
    bool pass = std::isfinite(relative) && relative < 1e-5;
    failures += !pass;
    std::printf("call %d, A 90%% sparse in 32x1 micro-tiles: relative error "
                "%.2e against float64, %s\n",
                call + 1, relative, pass ? "PASS" : "FAIL");
  }

  // A wrong call is refused, with the reason, before anything runs.
  PITTensor wrong[] = {args[1], args[0], args[2]};
  if (pit_sparse_matmul(wrong, 3))
    std::printf("refused as expected: %s\n", pitLastError());
  else
    ++failures;
  cuMemFree(da);
  cuMemFree(db);
  cuMemFree(dc);
  return failures ? 1 : 0;
}
