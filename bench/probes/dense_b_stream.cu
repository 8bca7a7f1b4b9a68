//===- dense_b_stream.cu - Probe: tall blocks that stream B densely -------===//
//
// A hand-written CUDA probe, not part of PIT's compiler: it measured whether
// an STile for 16x16 micro-tiles that streams all of B through tall blocks
// would beat PIT's k-walk STile at 90-99% (docs/BENCHMARKS.md, "Where
// issue 5 stands": the probe of tall blocks that stream B densely). It did not; it is kept so that the
// figures can be reproduced (bench/probes/dense_b_stream.py).
//
// A block owns 512 rows x 64 columns of C (16 warps of 32 rows, 64 f32
// accumulators a thread). A 17th warp streams B's 64 columns over all of k
// in stages of 64 rows (TMA with 128-byte swizzle, multicast over a cluster
// of CM blocks along m). Each warp marks its two 16-row blocks' non-zero
// micro-tiles in a bitmap (the index is unordered), walks them in k order,
// copies each one's A (16 x 16) into a per-warp ring with cp.async, picks
// B's 16 rows out of the stage with ldmatrix.trans, and multiplies with
// mma.sync m16n8k16.
//
// `mode` selects what the probe measures (bits):
//   1: no A copies; 2: no multiply (with 1: the walk and the B stream only);
//   8: B stream alone (the producer refills a stage once it has landed);
//   16: blocks ordered n-fastest; 32: B copied by the 17th warp with
//   cp.async instead of TMA; 64: B copied by the 16 warps together with
//   cp.async (with 8's meaning); 128 (with 8 and box 3 or 4): each stage
//   is 16 rows of B at a random k and 256 columns, as PIT's 16x16 STile
//   gathers them;
//   bits 8-11: B's box (0: 64 columns, 128-byte swizzle; 1: 64, 2: 128,
//   3: 256 columns, no swizzle; 4: four boxes of 64 columns and 16 rows,
//   128-byte swizzle; 8 KiB stages); bits 12-13: L2 promotion (0: 256
//   bytes, 1: none, 2: 128 bytes).
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <cuda_fp16.h>
#include <cstdint>

namespace {
constexpr int kWarps = 16, kRows = 512, kCols = 64, kStageK = 64;
constexpr int kStageBytes = kStageK * kCols * 2;
constexpr int kWords = 16; // 512 bits: bit 2 * kb + rb

__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void waitParity(uint32_t bar, uint32_t parity) {
  uint32_t ok;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  } while (!ok);
}
__device__ __forceinline__ void arriveRemote(uint32_t bar, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(bar), "r"(rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" :: "r"(remote) : "memory");
}
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ uint32_t clusterRank() {
  uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r;
}
__device__ __forceinline__ void ldsm4(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm4t(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

struct Cursor {
  int word;
  uint32_t bits;
};
__device__ __forceinline__ int nextHit(Cursor &c, const uint32_t *words) {
  while (c.bits == 0) {
    if (++c.word >= kWords) return -1;
    c.bits = words[c.word];
  }
  int bit = __ffs(c.bits) - 1;
  c.bits &= c.bits - 1;
  return c.word * 32 + bit;
}

template <int S, int L, int CM>
__global__ void __launch_bounds__((kWarps + 1) * 32, 1)
bstream16(const __grid_constant__ CUtensorMap bmap, const void *Bglobal, const __half *A, __half *C,
          const int *counts, const int *positions, int N, int K, int cap, int mode, int stageRows) {
  extern __shared__ uint8_t raw[];
  uint8_t *smem = reinterpret_cast<uint8_t *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  const uint32_t bBase = smemAddr(smem);
  const uint32_t aBase = bBase + S * kStageBytes;
  uint32_t *words = reinterpret_cast<uint32_t *>(smem + S * kStageBytes + kWarps * L * 512);
  uint64_t *bars = reinterpret_cast<uint64_t *>(words + kWarps * kWords);
  const uint32_t fullBar = smemAddr(bars), emptyBar = smemAddr(bars + S);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int linear = blockIdx.x + blockIdx.y * gridDim.x;
  const int mBlock = (mode & 16) ? linear / gridDim.y : blockIdx.x;
  const int nTile = (mode & 16) ? linear % gridDim.y : blockIdx.y;
  const int stages = K / stageRows;

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(fullBar + 8 * s), "r"((mode & 64) ? 512 : (mode & 32) ? 32 : 1));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(emptyBar + 8 * s), "r"(kWarps * CM));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (warp < kWarps) {
    uint32_t *mine = words + warp * kWords;
    if (lane < kWords) mine[lane] = 0;
    __syncwarp();
    for (int rb = 0; rb < 2; ++rb) {
      const int segment = mBlock * (kRows / 16) + warp * 2 + rb;
      const int count = counts[segment];
      for (int i = lane; i < count; i += 32) {
        const int bit = 2 * positions[segment * cap + i] + rb;
        atomicOr(mine + bit / 32, 1u << (bit % 32));
      }
    }
    __syncwarp();
  }
  clusterSync();

  if (warp == kWarps && (mode & 64)) {
  } else if (warp == kWarps && (mode & 32)) {
    // B through cp.async: each lane copies 16 chunks of 16 bytes a stage,
    // swizzled as TMA's 128-byte swizzle would, and its arrive on the stage's
    // barrier lands when its copies have.
    const __half *bTile = reinterpret_cast<const __half *>(Bglobal) + nTile * kCols;
    for (int t = 0; t < stages; ++t) {
      const int slot = t % S;
      if (t >= S) waitParity((mode & 8) ? fullBar + 8 * slot : emptyBar + 8 * slot, ((t / S) - 1) & 1);
      const uint32_t stage = bBase + slot * kStageBytes;
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        const int idx = i * 32 + lane, row = idx >> 3, chunk = idx & 7;
        const __half *src = bTile + size_t(t * kStageK + row) * N + chunk * 8;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(stage + row * 128 + ((chunk ^ (row & 7)) << 4)), "l"(src) : "memory");
      }
      asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(fullBar + 8 * slot) : "memory");
    }
    if (mode & 8)
      for (int t = stages - S; t < stages; ++t) waitParity(fullBar + 8 * (t % S), (t / S) & 1);
    asm volatile("cp.async.wait_all;" ::: "memory");
  } else if (warp == kWarps) {
    if (lane == 0) {
      const uint32_t rank = CM > 1 ? clusterRank() : 0;
      for (int t = 0; t < stages; ++t) {
        const int slot = t % S;
        if (t >= S) waitParity((mode & 8) ? fullBar + 8 * slot : emptyBar + 8 * slot, ((t / S) - 1) & 1);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(fullBar + 8 * slot), "r"(kStageBytes) : "memory");
        if (mode & 128) {
          // Gathered micro-tiles: 16 rows at a random k, 256 columns, as one
          // box of 256 columns or four swizzled boxes of 64.
          uint32_t h = uint32_t(t + 1) * 0x9E3779B1u ^ uint32_t(linear) * 0x85EBCA77u;
          h ^= h >> 15;
          h *= 0x2C1B3C6Du;
          h ^= h >> 12;
          const int c1 = int(h % uint32_t(K / 16)) * 16;
          const int boxes = ((mode >> 8) & 15) == 4 ? 4 : 1;
          for (int j = 0; j < boxes; ++j) {
            const int c0 = (nTile * 256 + 64 * j) % N;
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                         :: "r"(bBase + slot * kStageBytes + j * 2048), "l"(&bmap), "r"(c0), "r"(c1), "r"(fullBar + 8 * slot) : "memory");
          }
          continue;
        }
        const uint32_t dst = bBase + slot * kStageBytes + rank * (kStageK / CM) * 128;
        const int c0 = nTile * kCols, c1 = t * stageRows + rank * (stageRows / CM);
        if (CM > 1)
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;"
                       :: "r"(dst), "l"(&bmap), "r"(c0), "r"(c1), "r"(fullBar + 8 * slot), "h"((uint16_t)((1 << CM) - 1)) : "memory");
        else
          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                       :: "r"(dst), "l"(&bmap), "r"(c0), "r"(c1), "r"(fullBar + 8 * slot) : "memory");
      }
      if (mode & 8)
        for (int t = stages - S; t < stages; ++t) waitParity(fullBar + 8 * (t % S), (t / S) & 1);
    }
  } else {
    const uint32_t *mine = words + warp * kWords;
    float acc[2][8][4] = {};
    const uint32_t ring = aBase + warp * L * 512;
    const int copyRow = lane >> 1, copyHalf = lane & 1;
    const __half *aRows = A + size_t(mBlock * kRows + warp * 32 + copyRow) * K + copyHalf * 8;
    auto issue = [&](int hit, int slot) {
      if (hit >= 0 && !(mode & 1)) {
        const __half *src = aRows + size_t((hit & 1) * 16) * K + (hit >> 1) * 16;
        const uint32_t dst = ring + slot * 512 + copyRow * 32 + ((copyHalf ^ ((copyRow >> 2) & 1)) << 4);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src) : "memory");
      }
      asm volatile("cp.async.commit_group;" ::: "memory");
    };
    auto release = [&](int t) {
      waitParity(fullBar + 8 * (t % S), (t / S) & 1);
      __syncwarp();
      if (lane < CM) {
        if (CM > 1) arriveRemote(emptyBar + 8 * (t % S), lane);
        else asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(emptyBar + 8 * (t % S)) : "memory");
      }
    };
    if (mode & 64) {
      const __half *bTile = reinterpret_cast<const __half *>(Bglobal) + nTile * kCols;
      const int idx = warp * 32 + lane, row = idx >> 3, chunk = idx & 7;
      for (int t = 0; t < stages; ++t) {
        const int slot = t % S;
        if (t >= S) waitParity(fullBar + 8 * slot, ((t / S) - 1) & 1);
        const __half *src = bTile + size_t(t * kStageK + row) * N + chunk * 8;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(bBase + slot * kStageBytes + row * 128 + ((chunk ^ (row & 7)) << 4)), "l"(src) : "memory");
        asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(fullBar + 8 * slot) : "memory");
      }
      for (int t = stages - S; t < stages; ++t) waitParity(fullBar + 8 * (t % S), (t / S) & 1);
      goto done;
    }
    if (mode & 8) goto done;
    {
    Cursor ahead{0, mine[0]}, here{0, mine[0]};
    for (int i = 0; i < L; ++i) issue(nextHit(ahead, mine), i);
    int released = 0, waited = -1, slot = 0;
    const int mi = lane >> 3, r8 = lane & 7;
    for (int hit = nextHit(here, mine); hit >= 0; hit = nextHit(here, mine)) {
      const int kb = hit >> 1, rb = hit & 1, s = kb >> 2;
      while (released < s) release(released++);
      if (waited != s) {
        waitParity(fullBar + 8 * (s % S), (s / S) & 1);
        waited = s;
      }
      asm volatile("cp.async.wait_group %0;" :: "n"(L - 1) : "memory");
      __syncwarp();
      // Mode 2 leaves out the multiply: the walk and its copies only.
      if (!(mode & 2)) {
        uint32_t a[4];
        {
          const int row = (mi & 1) * 8 + r8, half = mi >> 1;
          ldsm4(ring + slot * 512 + row * 32 + ((half ^ ((row >> 2) & 1)) << 4), a);
        }
        const uint32_t stage = bBase + (s % S) * kStageBytes;
        const int krow = (kb & 3) * 16 + (mi & 1) * 8 + r8;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          uint32_t b[4];
          ldsm4t(stage + krow * 128 + (((2 * j + (mi >> 1)) ^ (krow & 7)) << 4), b);
          if (rb == 0) {
            mma(acc[0][2 * j], a, b[0], b[1]);
            mma(acc[0][2 * j + 1], a, b[2], b[3]);
          } else {
            mma(acc[1][2 * j], a, b[0], b[1]);
            mma(acc[1][2 * j + 1], a, b[2], b[3]);
          }
        }
      }
      __syncwarp();
      issue(nextHit(ahead, mine), slot);
      slot = slot + 1 == L ? 0 : slot + 1;
    }
    while (released < stages) release(released++);
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
  done:
    const int g = lane >> 2, t4 = lane & 3;
#pragma unroll
    for (int rb = 0; rb < 2; ++rb)
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) {
        const size_t row = size_t(mBlock * kRows + warp * 32 + rb * 16 + g);
        const int col = nTile * kCols + nt * 8 + 2 * t4;
        *reinterpret_cast<__half2 *>(C + row * N + col) = __floats2half2_rn(acc[rb][nt][0], acc[rb][nt][1]);
        *reinterpret_cast<__half2 *>(C + (row + 8) * N + col) = __floats2half2_rn(acc[rb][nt][2], acc[rb][nt][3]);
      }
  }
  clusterSync();
}

template <int S, int L, int CM>
int launch(const void *A, const void *B, void *C, const int *counts, const int *positions,
           int M, int N, int K, int cap, int mode, cudaStream_t stream) {
  static CUtensorMap map;
  // Encoded again whenever B, its shape or the box change.
  static const void *mapped = nullptr;
  static int mappedBox = -1, mappedN = 0, mappedK = 0;
  const int box = (mode >> 8) & 15, width = box == 0 || box == 1 || box == 4 ? 64 : box == 2 ? 128 : 256;
  const int stageRows = box == 4 ? 16 : kStageBytes / (2 * width);
  const CUtensorMapL2promotion promo = (mode >> 12) == 0 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : (mode >> 12) == 1 ? CU_TENSOR_MAP_L2_PROMOTION_NONE : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  if (mapped != B || mappedBox != (mode >> 8) || mappedN != N || mappedK != K) {
    mappedBox = mode >> 8;
    mappedN = N;
    mappedK = K;
    cuuint64_t dims[2] = {cuuint64_t(N), cuuint64_t(K)};
    cuuint64_t strides[1] = {cuuint64_t(N) * 2};
    cuuint32_t boxDims[2] = {cuuint32_t(width), cuuint32_t(stageRows / CM)};
    cuuint32_t elems[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<void *>(B), dims, strides, boxDims, elems,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, box == 0 || box == 4 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                                        promo, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) return 100 + r;
    mapped = B;
  }
  const int smem = S * kStageBytes + kWarps * L * 512 + kWarps * kWords * 4 + 2 * S * 8 + 1024;
  auto kernel = bstream16<S, L, CM>;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess) return 3;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(M / kRows, N / kCols);
  config.blockDim = dim3((kWarps + 1) * 32);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = CM;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  cudaError_t e = cudaLaunchKernelEx(&config, kernel, map, B, static_cast<const __half *>(A), static_cast<__half *>(C), counts, positions, N, K, cap, mode, stageRows);
  return e == cudaSuccess ? 0 : 1000 + e;
}
} // namespace

// Returns 0, or why it could not launch (1: shapes, 2: no such config,
// 3: shared memory, 100+: tensor map, 1000+: launch).
extern "C" int bstream16_run(const void *A, const void *B, void *C, const int *counts, const int *positions,
                             int M, int N, int K, int cap, int S, int CM, int mode, void *stream) {
  if (M % kRows || N % kCols || K % kStageK) return 1;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
#define CASE(s, cm) if (S == s && CM == cm) return launch<s, 4, cm>(A, B, C, counts, positions, M, N, K, cap, mode, st);
  CASE(4, 1) CASE(8, 1) CASE(16, 1) CASE(4, 2) CASE(8, 2) CASE(16, 2) CASE(8, 4) CASE(16, 4)
#undef CASE
  return 2;
}
