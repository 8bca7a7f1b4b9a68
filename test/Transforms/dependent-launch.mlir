// Every kernel lets its dependents launch, then waits for its prerequisites,
// before anything else, as inline PTX that clobbers memory (so that no load
// moves above the wait); the module gets the marker the runtime looks for.
// RUN: pit-opt %s --pass-pipeline="builtin.module(gpu.module(pit-dependent-launch))" | FileCheck %s
// Run twice, the pass adds nothing the second time.
// RUN: pit-opt %s --pass-pipeline="builtin.module(gpu.module(pit-dependent-launch,pit-dependent-launch))" | FileCheck %s

// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global external constant @pit_dependent_launch(1 : i32)
// CHECK-NOT: @pit_dependent_launch
// CHECK-LABEL: gpu.func @scale
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.launch_dependents;", "~{memory}"
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// CHECK-NEXT: gpu.thread_id x
// A function that is not a kernel runs inside one: it is left alone.
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT: griddepcontrol
// CHECK: gpu.return
gpu.module @kernels {
  gpu.func @scale(%x: memref<128xf32>) kernel {
    %tid = gpu.thread_id x
    %v = memref.load %x[%tid] : memref<128xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%tid] : memref<128xf32>
    gpu.return
  }
  gpu.func @helper(%v: f32) -> f32 {
    gpu.return %v : f32
  }
}

// A module that already defines the marker keeps its own.
// CHECK-LABEL: gpu.module @marked
// CHECK: llvm.mlir.global external constant @pit_dependent_launch(7 : i32)
// CHECK-NOT: @pit_dependent_launch
// CHECK: griddepcontrol.launch_dependents
gpu.module @marked {
  llvm.mlir.global external constant @pit_dependent_launch(7 : i32) : i32
  gpu.func @empty() kernel {
    gpu.return
  }
}

// A module without kernels gets no marker.
// CHECK-LABEL: gpu.module @no_kernels
// CHECK-NOT: pit_dependent_launch
// CHECK: gpu.func @helper
gpu.module @no_kernels {
  gpu.func @helper(%v: f32) -> f32 {
    gpu.return %v : f32
  }
}

// A kernel that marks where it starts to depend on the kernels before it
// (pit.dependent_wait, a guarded kernel that may end before it) waits
// there, not at its start: the mark becomes the wait.
// CHECK-LABEL: gpu.module @marked_wait
// CHECK-LABEL: gpu.func @ends_early
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.launch_dependents;", "~{memory}"
// CHECK: %[[EARLY:.+]] = memref.load
// CHECK-NOT: griddepcontrol.wait
// CHECK: scf.if
// CHECK-NEXT: llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// CHECK-NOT: pit.dependent_wait
// CHECK: gpu.return
gpu.module @marked_wait {
  gpu.func @ends_early(%choice: memref<1xi32>, %x: memref<128xf32>) kernel {
    %c0 = arith.constant 0 : index
    %early = memref.load %choice[%c0] : memref<1xi32>
    %zero = arith.constant 0 : i32
    %runs = arith.cmpi ne, %early, %zero : i32
    scf.if %runs {
      llvm.inline_asm has_side_effects {pit.dependent_wait} "", "~{memory}" : () -> ()
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<128xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%tid] : memref<128xf32>
    }
    gpu.return
  }
}
