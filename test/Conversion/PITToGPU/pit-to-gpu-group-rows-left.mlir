// RUN: pit-opt %s --pit-sparsify="latency-table=%S/../../Inputs/latency-table.json variant=0" --convert-pit-to-gpu="chip=sm_90a" --pit-gpu-coalesce-allocations -verify-diagnostics | FileCheck %s

// A panel STile whose rows are too many for the one block that orders them
// (32768 rows: 32 a thread of 1024) keeps them in A's order, and says so:
// the panels then hold consecutive rows, and no ordering kernel runs.
// CHECK-LABEL: func @many_rows
// CHECK-NOT: workgroup(%{{.+}} : memref<6xi32, #gpu.address_space<workgroup>>)
// CHECK: dynamic_shared_memory_size
// CHECK-NOT: memref<512xi32, #gpu.address_space<workgroup>>
// CHECK: return
func.func @many_rows(%a: memref<32768x256xf16>, %b: memref<256x128xf16>, %c: memref<32768x128xf32>) {
  // expected-remark @+1 {{rows of the panels left in their order (ordering takes 32 rows a thread, more than 16)}}
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x64]>}
      ins(%a, %b : memref<32768x256xf16>, memref<256x128xf16>) outs(%c : memref<32768x128xf32>)
  return
}
