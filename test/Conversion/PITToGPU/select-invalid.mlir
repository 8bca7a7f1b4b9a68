// A choice made on the device can only guard kernels: a variant with other
// host work is an error on the select, not a wrong result.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu --pit-gpu-coalesce-allocations -verify-diagnostics

func.func private @log_variant()

func.func @host_call_in_a_variant(%counts: memref<8xi32>) {
  // expected-error @below {{'pit.select' op cannot choose on the device: a variant runs 'func.call' on the host, which would run whatever the choice}}
  %variant = pit.select %counts capacities [64] coverage [0.0, 1.0]
      latencies [array<f64: 1.0, 200.0>] dense 100.0 : memref<8xi32>
  scf.index_switch %variant
  case 0 {
    func.call @log_variant() : () -> ()
    scf.yield
  }
  default {
  }
  return
}

// -----

func.func @choice_used_elsewhere(%counts: memref<8xi32>) -> index {
  // expected-error @below {{'pit.select' op can only choose on the device for scf.index_switch and scf.if ops without results that follow it in its block, and pure ops computing their conditions; used by func.return}}
  %variant = pit.select %counts capacities [64] coverage [0.0, 1.0]
      latencies [array<f64: 1.0, 200.0>] dense 100.0 : memref<8xi32>
  return %variant : index
}

// -----

// A condition on the choice must be computable from the choice alone: each
// guarded kernel evaluates it again on the device.
func.func @condition_on_other_values(%counts: memref<8xi32>, %other: index, %a: memref<64xf32>) {
  %variant = pit.select %counts capacities [64] coverage [0.0, 1.0]
      latencies [array<f64: 1.0, 200.0>] dense 100.0 : memref<8xi32>
  // expected-error @below {{'arith.cmpi' op computes a condition on the choice from other values: it cannot be evaluated on the device}}
  %needed = arith.cmpi eq, %variant, %other : index
  scf.if %needed {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  }
  return
}

// -----

// A memset runs whatever the choice: only of a buffer that the guarded
// regions alone use. The caller's buffer would be cleared for every choice.
func.func @memset_of_an_argument(%counts: memref<8xi32>, %a: memref<64xi32>) {
  // expected-error @below {{'pit.select' op cannot choose on the device: a variant runs 'gpu.memset' on the host, which would run whatever the choice}}
  %variant = pit.select %counts capacities [64] coverage [0.0, 1.0]
      latencies [array<f64: 1.0, 200.0>] dense 100.0 : memref<8xi32>
  %c0 = arith.constant 0 : index
  %needed = arith.cmpi eq, %variant, %c0 : index
  scf.if %needed {
    %zero = arith.constant 0 : i32
    gpu.memset %a, %zero : memref<64xi32>, i32
  }
  return
}
