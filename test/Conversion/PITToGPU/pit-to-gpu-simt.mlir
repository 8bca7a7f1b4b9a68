// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu --pit-gpu-coalesce-allocations | FileCheck %s

// The SIMT lowering of linalg ops the tensor-core kernels do not take: any
// affine indexing map is applied as written (a[i + j], not a[i]).
// CHECK-LABEL: func @shifted_map
// CHECK: gpu.launch
// CHECK: scf.for %[[P:.+]] = %{{.+}} to %{{.+}} step
// CHECK: %[[I:.+]] = arith.remui %[[P]], %c16
// CHECK: %[[C:.+]] = memref.load %{{.+}}[%[[I]]] : memref<16xf32>
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %c8 step %{{.+}} iter_args(%[[ACC:.+]] = %[[C]])
// CHECK: %[[IJ:.+]] = arith.addi %[[I]], %[[J]]
// CHECK: memref.load %{{.+}}[%[[IJ]]] : memref<24xf32>
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[I]]] : memref<16xf32>
func.func @shifted_map(%a: memref<24xf32>, %b: memref<8xf32>, %c: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i + j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : memref<24xf32>, memref<8xf32>) outs(%c : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Dynamic extents are read from the buffers in the kernel, and the grid
// strides over whatever they hold; linalg.index is the loop's index.
// CHECK-LABEL: func @dynamic_rows
// CHECK: gpu.launch blocks({{.*}}) in (%{{.+}} = %c1024,
// CHECK: %[[ROWS:.+]] = memref.dim %{{.+}}, %c0 : memref<?x64xf32>
// CHECK: %[[FLAT:.+]] = arith.muli %{{.+}}, %[[ROWS]]
// CHECK: %[[POINTS:.+]] = arith.muli %[[FLAT]], %c64
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[POINTS]]
// CHECK: %[[ROW:.+]] = arith.remui %{{.+}}, %[[ROWS]]
// CHECK: arith.index_cast %[[ROW]] : index to i32
// CHECK-NOT: linalg.index
func.func @dynamic_rows(%a: memref<?x64xf32>, %c: memref<?x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x64xf32>) outs(%c : memref<?x64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %s = arith.addf %x, %f : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An output indexed by a reduction loop: threads splitting the parallel
// loop would update the same elements, so the first thread runs the nest
// alone, in the op's loop order, reading and writing C at each point.
// CHECK-LABEL: func @output_by_reduction
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %{{.+}}, %c0
// CHECK: scf.if %[[FIRST]]
// CHECK: scf.for %[[I:.+]] = %c0 to %c8
// CHECK: scf.for %[[J:.+]] = %c0 to %c16
// CHECK: memref.load %{{.+}}[%[[J]]] : memref<16xf32>
// CHECK: memref.load %{{.+}}[%[[I]], %[[J]]] : memref<8x16xf32>
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[J]]] : memref<16xf32>
func.func @output_by_reduction(%a: memref<8x16xf32>, %c: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x16xf32>) outs(%c : memref<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two outputs: each is loaded, carried and stored.
// CHECK-LABEL: func @two_outputs
// CHECK: %[[S0:.+]] = memref.load %[[SUM:.+]][%[[I:.+]]] : memref<8xf32>
// CHECK: %[[M0:.+]] = memref.load %[[MAX:.+]][%[[I]]] : memref<8xf32>
// CHECK: %[[R:.+]]:2 = scf.for {{.+}} iter_args(%{{.+}} = %[[S0]], %{{.+}} = %[[M0]])
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: memref.store %[[R]]#0, %[[SUM]][%[[I]]]
// CHECK: memref.store %[[R]]#1, %[[MAX]][%[[I]]]
func.func @two_outputs(%a: memref<8x32xf32>, %sum: memref<8xf32>, %max: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x32xf32>) outs(%sum, %max : memref<8xf32>, memref<8xf32>) {
  ^bb0(%x: f32, %s: f32, %m: f32):
    %s2 = arith.addf %s, %x : f32
    %m2 = arith.maximumf %m, %x : f32
    linalg.yield %s2, %m2 : f32, f32
  }
  return
}

// -----

// An empty iteration space runs nothing: the op goes, and no kernel with
// zero blocks or a division by a zero extent is built.
// CHECK-LABEL: func @empty
// CHECK-NOT: gpu.launch
// CHECK-NOT: linalg
// CHECK: return
func.func @empty(%a: memref<64x0xf16>, %b: memref<0x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x0xf16>, memref<0x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
