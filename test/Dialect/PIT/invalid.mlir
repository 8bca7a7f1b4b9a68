// Every message of the pit op verifiers.
// RUN: pit-opt %s -split-input-file -verify-diagnostics

func.func @detect_rank(%a: memref<128x256xf16>, %c: memref<4xi32>, %p: memref<4x256xi32>) {
  // expected-error @+1 {{'pit.detect' op expects a micro-tile of rank 2 to match the source, got rank 1}}
  pit.detect %a micro_tile [32] axis 0 into %c, %p : memref<128x256xf16>, memref<4xi32>, memref<4x256xi32>
  return
}

// -----

func.func @detect_extent(%a: memref<128x256xf16>, %c: memref<4xi32>, %p: memref<4x256xi32>) {
  // expected-error @+1 {{'pit.detect' op expects positive micro-tile extents, got [32, 0]}}
  pit.detect %a micro_tile [32, 0] axis 1 into %c, %p : memref<128x256xf16>, memref<4xi32>, memref<4x256xi32>
  return
}

// -----

func.func @detect_axis(%a: memref<128x256xf16>, %c: memref<4xi32>, %p: memref<4x256xi32>) {
  // expected-error @+1 {{'pit.detect' op expects axis in [0, 2), got 2}}
  pit.detect %a micro_tile [32, 1] axis 2 into %c, %p : memref<128x256xf16>, memref<4xi32>, memref<4x256xi32>
  return
}

// -----

func.func @detect_divide(%a: memref<100x256xf16>, %c: memref<4xi32>, %p: memref<4x256xi32>) {
  // expected-error @+1 {{'pit.detect' op micro-tile extent 32 does not divide source dimension 0 of size 100}}
  pit.detect %a micro_tile [32, 1] axis 1 into %c, %p : memref<100x256xf16>, memref<4xi32>, memref<4x256xi32>
  return
}

// -----

func.func @detect_counts(%a: memref<128x256xf16>, %c: memref<8xi32>, %p: memref<4x256xi32>) {
  // expected-error @+1 {{'pit.detect' op expects counts to hold 4 segments, got 8}}
  pit.detect %a micro_tile [32, 1] axis 1 into %c, %p : memref<128x256xf16>, memref<8xi32>, memref<4x256xi32>
  return
}

// -----

func.func @detect_positions_segments(%a: memref<128x256xf16>, %c: memref<4xi32>, %p: memref<8x256xi32>) {
  // expected-error @+1 {{'pit.detect' op expects positions to hold 4 segments, got 8}}
  pit.detect %a micro_tile [32, 1] axis 1 into %c, %p : memref<128x256xf16>, memref<4xi32>, memref<8x256xi32>
  return
}

// -----

func.func @detect_positions_capacity(%a: memref<128x256xf16>, %c: memref<4xi32>, %p: memref<4x64xi32>) {
  // expected-error @+1 {{'pit.detect' op expects positions to hold 256 micro-tiles per segment, got 64}}
  pit.detect %a micro_tile [32, 1] axis 1 into %c, %p : memref<128x256xf16>, memref<4xi32>, memref<4x64xi32>
  return
}

// -----

func.func @detect_counts_type(%a: memref<128x256xf16>, %c: memref<4xi64>, %p: memref<4x256xi32>) {
  // expected-error @+1 {{'pit.detect' op operand #1 must be 1D memref of 32-bit signless integer values}}
  pit.detect %a micro_tile [32, 1] axis 1 into %c, %p : memref<128x256xf16>, memref<4xi64>, memref<4x256xi32>
  return
}

// -----

func.func @stile_panel(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op panel 96 must be whole micro-tiles (1) and divide the extent 512 of the PIT axis}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [512, 128, 256] tile [64, 64, 64] micro_tile [1, 64] pit_axis 0 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> attributes {panel = 96 : i64} {
  }
  return
}

// -----

func.func @stile_group_rows(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op group_rows needs a panel}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [512, 128, 256] tile [64, 64, 64] micro_tile [1, 64] pit_axis 0 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> attributes {group_rows} {
  }
  return
}

// -----

func.func @stile_tile_rank(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op expects one tile extent per loop of the domain (3), got 2}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 64] micro_tile [32, 1] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_map_dims(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op expects sparse_map to map the 3 loops of the domain with no symbols, got affine_map<(d0, d1) -> (d0, d1)>}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map affine_map<(d0, d1) -> (d0, d1)> {
  }
  return
}

// -----

func.func @stile_map_permutation(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op expects sparse_map to be a projected permutation, got affine_map<(d0, d1, d2) -> (d0 + d1, d2)>}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0 + d1, d2)> {
  }
  return
}

// -----

func.func @stile_micro_rank(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op expects a micro-tile of rank 2 to match sparse_map, got rank 3}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 1, 1] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_domain_extent(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op expects positive domain extents, got [128, 0, 128]}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 0, 128] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_tile_extent(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op expects positive tile extents, got [32, -1, 32]}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, -1, 32] micro_tile [32, 1] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_micro_extent(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op expects positive micro-tile extents, got [32, 0]}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 0] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_axis_range(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op expects pit_axis in [0, 3), got 3}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 1] pit_axis 3 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_axis_unused(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op pit_axis 1 does not index the sparse operand (sparse_map is affine_map<(d0, d1, d2) -> (d0, d2)>)}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 1] pit_axis 1 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_tile_divide(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op tile extent 48 does not divide the domain extent 128 of loop 1}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 48, 32] micro_tile [32, 1] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_micro_divide_domain(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op micro-tile extent 3 does not divide the domain extent 128 of loop 2}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 64, 30] micro_tile [32, 3] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_micro_divide_tile(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op micro-tile extent 64 along the PIT axis does not divide its tile extent 32}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<4xi32>) domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 64] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_segment_tile(%c: memref<2xi32>) {
  // expected-error @+1 {{'pit.stile' op tile extent 64 of loop 0 must equal its micro-tile extent 32, since a tile lies in one segment}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<2xi32>) domain [128, 128, 128] tile [64, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

func.func @stile_counts(%c: memref<2xi32>) {
  // expected-error @+1 {{'pit.stile' op expects counts to hold 4 segments, got 2}}
  pit.stile (%m, %n, %k) segment(%s) counts(%c : memref<2xi32>) domain [128, 128, 128] tile [32, 64, 32] micro_tile [32, 1] pit_axis 2 sparse_map affine_map<(d0, d1, d2) -> (d0, d2)> {
  }
  return
}

// -----

// The custom form always makes the right block arguments; the generic form
// can get them wrong.
func.func @stile_body_arguments(%c: memref<4xi32>) {
  // expected-error @+1 {{'pit.stile' op expects the body to take 4 index arguments (one origin per loop, then the segment), got 3}}
  "pit.stile"(%c) <{domain = array<i64: 128, 128, 128>, micro_tile = array<i64: 32, 1>, pit_axis = 2 : i64, sparse_map = affine_map<(d0, d1, d2) -> (d0, d2)>, tile = array<i64: 32, 64, 32>}> ({
  ^bb0(%m: index, %n: index, %k: index):
    "pit.yield"() : () -> ()
  }) : (memref<4xi32>) -> ()
  return
}

// -----

func.func @yield_parent() {
  // expected-error @+1 {{'pit.yield' op expects parent op 'pit.stile'}}
  "pit.yield"() : () -> ()
  return
}

// -----

func.func @sread_element_type(%a: memref<128x128xf16>, %t: memref<32x32xf32>, %i: index) {
  // expected-error @+1 {{'pit.sread' op expects the tile and the source to have the same element type, got 'f32' and 'f16'}}
  pit.sread %a[%i, %i] into %t : memref<128x128xf16> to memref<32x32xf32>
  return
}

// -----

func.func @sread_rank(%a: memref<128x128xf16>, %t: memref<32xf16>, %i: index) {
  // expected-error @+1 {{'pit.sread' op expects a tile of rank 2 to match the source, got rank 1}}
  pit.sread %a[%i, %i] into %t : memref<128x128xf16> to memref<32xf16>
  return
}

// -----

func.func @sread_offsets(%a: memref<128x128xf16>, %t: memref<32x32xf16>, %i: index) {
  // expected-error @+1 {{'pit.sread' op expects 2 offsets, one per dimension of the source, got 1}}
  pit.sread %a[%i] into %t : memref<128x128xf16> to memref<32x32xf16>
  return
}

// -----

func.func @sread_partial_clause(%a: memref<128x128xf16>, %t: memref<32x32xf16>, %p: memref<4x128xi32>, %i: index) {
  // expected-error @+1 {{'pit.sread' op expects the 'gather' clause to give positions, segment, count, axis and micro together}}
  "pit.sread"(%a, %i, %i, %t, %p, %i, %i) <{axis = 1 : i64, operandSegmentSizes = array<i32: 1, 2, 1, 1, 1, 1>}> : (memref<128x128xf16>, index, index, memref<32x32xf16>, memref<4x128xi32>, index, index) -> ()
  return
}

// -----

func.func @sread_exceeds(%a: memref<16x128xf16>, %t: memref<32x32xf16>, %i: index) {
  // expected-error @+1 {{'pit.sread' op tile extent 32 exceeds the source extent 16 along dimension 0}}
  pit.sread %a[%i, %i] into %t : memref<16x128xf16> to memref<32x32xf16>
  return
}

// -----

func.func @sread_axis(%a: memref<128x128xf16>, %t: memref<32x32xf16>, %p: memref<4x128xi32>, %i: index) {
  // expected-error @+1 {{'pit.sread' op expects axis in [0, 2), got 5}}
  pit.sread %a[%i, %i] into %t gather %p[%i] count %i axis 5 micro 1 : memref<128x128xf16> to memref<32x32xf16>, memref<4x128xi32>
  return
}

// -----

func.func @sread_micro_tile(%a: memref<128x128xf16>, %t: memref<32x48xf16>, %p: memref<4x4xi32>, %i: index) {
  // expected-error @+1 {{'pit.sread' op micro extent 32 does not divide the tile extent 48 along axis 1}}
  pit.sread %a[%i, %i] into %t gather %p[%i] count %i axis 1 micro 32 : memref<128x128xf16> to memref<32x48xf16>, memref<4x4xi32>
  return
}

// -----

func.func @sread_micro_source(%a: memref<128x96xf16>, %t: memref<32x64xf16>, %p: memref<4x2xi32>, %i: index) {
  // expected-error @+1 {{'pit.sread' op micro extent 64 does not divide the source extent 96 along axis 1}}
  pit.sread %a[%i, %i] into %t gather %p[%i] count %i axis 1 micro 64 : memref<128x96xf16> to memref<32x64xf16>, memref<4x2xi32>
  return
}

// -----

func.func @sread_micro_positive(%a: memref<128x128xf16>, %t: memref<32x32xf16>, %p: memref<4x128xi32>, %i: index) {
  // expected-error @+1 {{'pit.sread' op attribute 'micro' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  pit.sread %a[%i, %i] into %t gather %p[%i] count %i axis 1 micro 0 : memref<128x128xf16> to memref<32x32xf16>, memref<4x128xi32>
  return
}

// -----

func.func @swrite_element_type(%c: memref<128x128xf32>, %t: memref<32x32xf16>, %i: index) {
  // expected-error @+1 {{'pit.swrite' op expects the tile and the destination to have the same element type, got 'f16' and 'f32'}}
  pit.swrite %t into %c[%i, %i] : memref<32x32xf16> to memref<128x128xf32>
  return
}

// -----

func.func @swrite_exceeds(%c: memref<128x16xf32>, %t: memref<32x32xf32>, %i: index) {
  // expected-error @+1 {{'pit.swrite' op tile extent 32 exceeds the destination extent 16 along dimension 1}}
  pit.swrite %t into %c[%i, %i] : memref<32x32xf32> to memref<128x16xf32>
  return
}

// -----

func.func @swrite_partial_clause(%c: memref<128x128xf32>, %t: memref<32x32xf32>, %p: memref<4x128xi32>, %i: index) {
  // expected-error @+1 {{'pit.swrite' op expects the 'scatter' clause to give positions, segment, count, axis and micro together}}
  "pit.swrite"(%t, %c, %i, %i, %p, %i, %i) <{micro = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1, 1>}> : (memref<32x32xf32>, memref<128x128xf32>, index, index, memref<4x128xi32>, index, index) -> ()
  return
}

// -----

func.func @swrite_combiner_float(%c: memref<128x128xi32>, %t: memref<32x32xi32>, %i: index) {
  // expected-error @+1 {{'pit.swrite' op combiner 'maximumf' does not apply to elements of type 'i32'}}
  pit.swrite %t into %c[%i, %i] combine <maximumf> : memref<32x32xi32> to memref<128x128xi32>
  return
}

// -----

func.func @swrite_combiner_integer(%c: memref<128x128xf32>, %t: memref<32x32xf32>, %i: index) {
  // expected-error @+1 {{'pit.swrite' op combiner 'ori' does not apply to elements of type 'f32'}}
  pit.swrite %t into %c[%i, %i] combine <ori> : memref<32x32xf32> to memref<128x128xf32>
  return
}

// -----

func.func @count_counts(%a: memref<4096x4096xf16>, %c: memref<16xi32>) {
  // expected-error @+1 {{'pit.count' op expects counts to hold 8 sampled segments, got 16}}
  pit.count %a micro_tile [32, 1] axis 1 every 16 into %c : memref<4096x4096xf16>, memref<16xi32>
  return
}

// -----

func.func @count_every(%a: memref<4096x4096xf16>, %c: memref<8xi32>) {
  // expected-error @+1 {{'pit.count' op attribute 'every' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  pit.count %a micro_tile [32, 1] axis 1 every 0 into %c : memref<4096x4096xf16>, memref<8xi32>
  return
}

// -----

func.func @count_divide(%a: memref<100x256xf16>, %c: memref<1xi32>) {
  // expected-error @+1 {{'pit.count' op micro-tile extent 32 does not divide source dimension 0 of size 100}}
  pit.count %a micro_tile [32, 1] axis 1 every 16 into %c : memref<100x256xf16>, memref<1xi32>
  return
}

// -----

func.func @select_no_variant() -> index {
  // expected-error @+1 {{'pit.select' op needs at least one variant}}
  %v = "pit.select"() <{capacities = array<i64>, coverage = array<f64: 0.0>, latencies = [], dense = 1.0 : f64}> : () -> index
  return %v : index
}

// -----

func.func @select_capacities(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op has 1 variants but 2 capacities}}
  %v = pit.select %c capacities [8, 8] coverage [0.0] latencies [array<f64: 1.0>] dense 1.0 : memref<4xi32>
  return %v : index
}

// -----

func.func @select_tables(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op has 1 variants but 0 latency tables}}
  %v = pit.select %c capacities [8] coverage [0.0] latencies [] dense 1.0 : memref<4xi32>
  return %v : index
}

// -----

func.func @select_capacity(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op capacities must be positive, got 0}}
  %v = pit.select %c capacities [0] coverage [0.0] latencies [array<f64: 1.0>] dense 1.0 : memref<4xi32>
  return %v : index
}

// -----

func.func @select_coverage_range(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op coverage points must lie in [0, 1], got 1.5}}
  %v = pit.select %c capacities [8] coverage [1.5] latencies [array<f64: 1.0>] dense 1.0 : memref<4xi32>
  return %v : index
}

// -----

func.func @select_coverage_order(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op coverage points must increase}}
  %v = pit.select %c capacities [8] coverage [0.5, 0.5] latencies [array<f64: 1.0, 2.0>] dense 1.0 : memref<4xi32>
  return %v : index
}

// -----

func.func @select_table_size(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op latency table 0 has 1 entries for 2 coverage points}}
  %v = pit.select %c capacities [8] coverage [0.0, 1.0] latencies [array<f64: 1.0>] dense 1.0 : memref<4xi32>
  return %v : index
}

// -----

func.func @select_negative(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op latencies must be non-negative, got -1}}
  %v = pit.select %c capacities [8] coverage [0.0] latencies [array<f64: -1.0>] dense 1.0 : memref<4xi32>
  return %v : index
}

// -----

func.func @select_dense(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op the dense latency must be non-negative}}
  %v = pit.select %c capacities [8] coverage [0.0] latencies [array<f64: 1.0>] dense -1.0 : memref<4xi32>
  return %v : index
}

// -----

func.func @select_dense_tables(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op has 1 variants but 2 dense latency tables}}
  %v = pit.select %c capacities [8] coverage [0.0] latencies [array<f64: 1.0>] dense 1.0
      dense_latencies [array<f64: 1.0>, array<f64: 2.0>] : memref<4xi32>
  return %v : index
}

// -----

func.func @select_dense_table_entries(%c: memref<4xi32>) -> index {
  // expected-error @+1 {{'pit.select' op dense latency table 0 has 1 entries for 2 coverage points}}
  %v = pit.select %c capacities [8] coverage [0.0, 1.0] latencies [array<f64: 1.0, 2.0>] dense 1.0
      dense_latencies [array<f64: 1.0>] : memref<4xi32>
  return %v : index
}
