// Does compute-sanitizer's racecheck model the named-barrier handover that
// the panel kernel uses (PanelMatmul.cpp, PanelKernel::addInTurn)? Two
// groups of 128 threads take turns adding into the same shared row: group
// 0 adds, then arrives on named barrier 1 (bar.arrive); group 1 waits on it
// (bar.sync) and adds. With a full barrier between the turns instead, the
// same adds must report no hazard. Prints the sums, which must be exact.
//
//   nvcc -arch=sm_90 -o barrier_handover barrier_handover.cu
//   compute-sanitizer --tool racecheck ./barrier_handover handover
//   compute-sanitizer --tool racecheck ./barrier_handover syncthreads
//   compute-sanitizer --tool racecheck ./barrier_handover replicas

#include <cstdio>
#include <cstring>

__global__ void turns(float *out, bool handover) {
  __shared__ float row[128];
  int group = threadIdx.x / 128, lane = threadIdx.x % 128;
  if (group == 0)
    row[lane] = 0.0f;
  __syncthreads();
  if (handover) {
    if (group == 0) {
      row[lane] += 1.0f;
      asm volatile("bar.arrive 1, 256;" ::: "memory");
    } else {
      asm volatile("bar.sync 1, 256;" ::: "memory");
      row[lane] += 2.0f;
    }
  } else {
    if (group == 0)
      row[lane] += 1.0f;
    __syncthreads();
    if (group == 1)
      row[lane] += 2.0f;
  }
  __syncthreads();
  if (group == 0)
    out[lane] = row[lane];
}

// The panel kernel's shape: 3 warpgroups, the last copying (here idle), two
// replicas adding unit after unit into the same rows in turn; the turns'
// barrier IDs in registers (1 + replica), the last replica handing the
// first its first turn, the replica after the last unit taking the last.
__global__ void replicaTurns(float *out, int numUnits) {
  __shared__ float row[128];
  int warpgroup = threadIdx.x / 128, lane = threadIdx.x % 128;
  if (warpgroup == 0)
    row[lane] = 0.0f;
  __syncthreads();
  if (warpgroup < 2) {
    int replica = warpgroup, replicas = 2;
    int mine = 1 + replica, next = 1 + (replica + 1) % replicas;
    if (replica == replicas - 1)
      asm volatile("bar.arrive %0, 256;" ::"r"(1) : "memory");
    for (int unit = replica; unit < numUnits; unit += replicas) {
      asm volatile("bar.sync %0, 256;" ::"r"(mine) : "memory");
      row[lane] += 1.0f;
      asm volatile("bar.arrive %0, 256;" ::"r"(next) : "memory");
    }
    if (replica == numUnits % replicas)
      asm volatile("bar.sync %0, 256;" ::"r"(mine) : "memory");
  }
  __syncthreads();
  if (warpgroup == 0)
    out[lane] = row[lane];
}

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "replicas") == 0) {
    float *out;
    cudaMalloc(&out, 128 * sizeof(float));
    replicaTurns<<<1, 384>>>(out, 7);
    float host[128];
    cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (float value : host)
      wrong += value != 7.0f;
    printf("replicas: %d of 128 sums wrong (%s)\n", wrong,
           cudaGetErrorString(cudaGetLastError()));
    cudaFree(out);
    return wrong != 0;
  }
  bool handover = argc > 1 && std::strcmp(argv[1], "handover") == 0;
  float *out;
  cudaMalloc(&out, 128 * sizeof(float));
  turns<<<1, 256>>>(out, handover);
  float host[128];
  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (float value : host)
    wrong += value != 3.0f;
  printf("%s: %d of 128 sums wrong (%s)\n", handover ? "handover" : "syncthreads",
         wrong, cudaGetErrorString(cudaGetLastError()));
  cudaFree(out);
  return wrong != 0;
}
